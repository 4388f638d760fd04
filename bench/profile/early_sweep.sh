#!/bin/sh
# compute_out's BLOCK_M x prologue_early x early_copies, every point checked
# against the float64 reference and timed by tessel-tune (on the GPU
# machine, carrying build/tunexz). The tuning build (here):
#   cmake build -DTESSEL_MAMBA2_TUNE_DEFINES="X_DTYPE=bf16 DT_DTYPE=bf16 HAS_DT_BIAS=1 DT_SOFTPLUS=1 Q=256 SEQ_IDX=0" \
#     -DTESSEL_MAMBA2_TUNE_SWEEP="compute_out:BLOCK_M=64,128 compute_out:prologue_early=0,1 compute_out:early_copies=0,1"
#   ninja -C build tessel_mamba2_tune
#   xz -T2 -c build/tune/libtessel_mamba2_tune.so > build/tunexz/early-sweep.so.xz
set -eu
nvidia-smi --query-gpu=name --format=csv,noheader
xz -d -k -f build/tunexz/early-sweep.so.xz
python3 tools/tessel-tune/tessel-tune.py --library build/tunexz/early-sweep.so \
  --out "$OUT/early-sweep.tsv" --kernels compute_out --runs 40 \
  --shape 1,65536,80,128,1,256 --shape 1,16384,80,128,1,256 \
  > "$OUT/early-sweep.log" 2>&1
grep -vE "^\s*$" "$OUT/early-sweep.log" | tail -40
