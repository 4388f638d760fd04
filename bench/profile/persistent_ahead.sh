#!/bin/sh
# The twenty-second session's GPU calls (bench/results/2026-12-06-packed-
# phases-and-persistent-ahead.md): compute_out persistent x prologue_ahead x
# BLOCK_M through tessel-tune (each point checked against float64, then
# timed; build/tunexz/pa4.so.xz: the tuning build with
# -DTESSEL_MAMBA2_TUNE_SWEEP="compute_out:BLOCK_M=64,128
# compute_out:persistent=0,1 compute_out:prologue_ahead=0,1"), the library
# with the parity bits packed against the one before (AB=1, the default),
# and (NCU=1) ncu's stall samples of libraries with compute_out's defaults
# set to persistent + prologue_ahead (pa.so) and persistent alone (p.so).
set +e
nvidia-smi --query-gpu=name --format=csv,noheader
xz -d -k -f build/tunexz/pa4.so.xz
timeout 240 python3 tools/tessel-tune/tessel-tune.py --library build/tunexz/pa4.so \
  --out "$OUT/pa4.tsv" --kernels compute_out --runs 40 \
  --shape 1,65536,80,128,1,256 --shape 1,16384,80,128,1,256 --shape 1,65536,80,256,1,256 \
  > "$OUT/pa4.log" 2>&1
grep -E "^\s*\[|^shape|failed" "$OUT/pa4.log" | sed -E 's/BLOCK_M=([0-9]+).*persistent=([0-9]).*prologue_ahead=([0-9]).*: ([0-9.]+ ms.*)/BM=\1 pers=\2 pa=\3 \4/' | cut -c1-120
# The library with the parity bits packed (packed.so) against the one
# before (head.so), the forward at three shapes.
[ "${AB:-1}" = 1 ] && timeout 300 sh bench/ab.sh build/abl/head.so.xz build/abl/packed.so.xz \
  1,65536,80,128,1,256 1,16384,80,128,1,256 1,65536,80,256,1,256 > "$OUT/ab-packed.txt" 2>&1
cut -c1-160 "$OUT/ab-packed.txt"
[ "${NCU:-0}" = 1 ] || exit 0
for v in pa p; do
  xz -d -k -f build/abl/$v.so.xz
  TESSEL_MAMBA2_LIBRARY=build/abl/$v.so timeout 150 sh bench/profile/stalls.sh compute_out \
    --L 65536 --h 80 --n 128 > /dev/null 2>&1
  mv "$OUT/compute_out.details.txt" "$OUT/$v.details.txt"
  python3 bench/profile/sass_hot.py "$OUT/compute_out.sass.csv" 10 > "$OUT/$v.hot.txt" 2>&1
  rm -f "$OUT/compute_out.sass.csv"
  echo "== $v"
  grep -E "Duration|Grid Size|Registers Per|Achieved Occupancy|Theoretical Occ|Block Limit|Dynamic Shared|L1/TEX Hit|Local|Issued Warp" "$OUT/$v.details.txt" | head -20
  grep -E "^ *[0-9.]+% x" "$OUT/$v.hot.txt" | head -8
done
