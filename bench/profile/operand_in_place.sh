#!/bin/sh
# The hint operand_in_place (a wgmma B computed in registers from a loop's
# TMA-copied load, written back into that load's ring buffer) and what it
# is for: compute_out's state term as E_c + D_c R_r (the chunk state from
# the start of a range of chunks plus the range's entering state, scaled),
# which would let the state scan run over ranges instead of chunks. On the
# GPU machine, carrying build/gpu, build/abl (head.so: 360156f's library,
# byte-identical to this tree's) and build/abl2:
#   sh bench/profile/operand_in_place.sh check
#       the three test kernels (in place bf16 and f16 on two warpgroups,
#       and the scratch-staged control) against their references, then
#       racecheck on them; the Mamba-2 pytest with the chunk states by
#       ranges forced (build/abl2/ranged-lib.so: the library of the branch
#       ranged-states at its commit, TESSEL_MAMBA2_STATE_PATH=ranged,
#       TESSEL_MAMBA2_CB=stored)
#   sh bench/profile/operand_in_place.sh ab
#       that library's ranged path (chunk_state by ranges of 8 chunks, the
#       scan over ranges, compute_out adding the range's entering state
#       through operand_in_place) against its split path, both reading
#       chunk_cb's blocks, taking turns, bench/mamba2.py per shape, 2 rounds
#   sh bench/profile/operand_in_place.sh ab-timing
#       timing only: build/abl2/ranged.so, the library with compute_out's
#       state term E + D R (bench/results/2026-12-06-ranged-timing.patch:
#       R read as the state of the range's first chunk, D from the chunk
#       ends before c; its outputs are wrong), against head.so
#   sh bench/profile/operand_in_place.sh ws
#       tessel-tune over compute_out:warp_specialize x num_warps x
#       persistent x ring_slots at 128-token rows (build/abl2/ws-sweep.so,
#       TESSEL_MAMBA2_TUNE_DEFINES="X_DTYPE=bf16 DT_DTYPE=bf16 HAS_DT_BIAS=1
#       DT_SOFTPLUS=1 Q=256 SEQ_IDX=0")
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
cases=operand_in_place,operand_scratch
case "${1:-}" in
  check)
    TESSEL_GPU_CASES=$cases TESSEL_GPU_NO_TIMING=1 build/gpu/tessel-gpu-tests build/gpu 2>&1 | tail -6
    TESSEL_GPU_CASES=$cases TESSEL_GPU_NO_TIMING=1 compute-sanitizer --tool racecheck \
      build/gpu/tessel-gpu-tests build/gpu 2>&1 | grep -E "cases,|SUMMARY|hazard" | head -5
    xz -d -k -f build/abl2/ranged-lib.so.xz
    TESSEL_MAMBA2_STATE_PATH=ranged TESSEL_MAMBA2_CB=stored TESSEL_MAMBA2_LIBRARY=build/abl2/ranged-lib.so \
      python3 -m pytest -q -p no:cacheprovider test/gpu/test_mamba2.py 2>&1 | tail -2 ;;
  ab)
    xz -d -k -f build/abl2/ranged-lib.so.xz
    for shape in 1,65536,80,128,1,256 1,16384,80,128,1,256 1,65536,80,256,1,256; do
      for round in 1 2; do
        for path in split ranged; do
          printf '%s %s: ' "$path" "$shape"
          TESSEL_MAMBA2_STATE_PATH=$path TESSEL_MAMBA2_CB=stored \
            TESSEL_MAMBA2_LIBRARY=build/abl2/ranged-lib.so \
            python3 bench/mamba2.py --shape "$shape" --runs 50 --warmup 10 2>&1 |
            grep -E '^b=' | sed 's/ vs Triton.*//'
        done
      done
    done ;;
  ab-timing)
    AB_TIMING_ONLY=1 sh bench/ab.sh build/abl/head.so.xz build/abl2/ranged.so.xz \
      1,65536,80,128,1,256 1,16384,80,128,1,256 1,65536,80,256,1,256 ;;
  ws)
    xz -d -k -f build/abl2/ws-sweep.so.xz
    python3 tools/tessel-tune/tessel-tune.py --library build/abl2/ws-sweep.so \
      --out "${OUT:-/tmp}/ws.tsv" --kernels compute_out --runs 20 \
      --shape 1,65536,80,128,1,256 --shape 1,16384,80,128,1,256 2>&1 | tail -25 ;;
  *) echo "usage: sh bench/profile/operand_in_place.sh check|ab|ab-timing|ws" >&2; exit 2 ;;
esac
