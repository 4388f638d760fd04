#!/bin/sh
# compute_out's intra-chunk loop issuing its first copies where the state
# term starts (hint prologue_early, tilegpu.prologue_early), on the GPU
# machine, carrying build/gpu and build/abl:
#   sh bench/profile/prologue_early.sh check   the test kernels (and under
#       racecheck), the Mamba-2 pytest with early.so (compute_out's
#       prologue_early 1) on the library's paths and chunk_cb's blocks forced
#   sh bench/profile/prologue_early.sh ab      head.so (before), ctrl.so
#       (the same tree at prologue_early 0) and early.so taking turns
# (early.so / ctrl.so: the library built with compute_out's default
# prologue_early 1 / 0; head.so: the commit before.)
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
case "${1:-}" in
  check)
    TESSEL_GPU_CASES=test_early build/gpu/tessel-gpu-tests build/gpu 2>&1 | tail -9
    TESSEL_GPU_CASES=test_early TESSEL_GPU_NO_TIMING=1 compute-sanitizer \
      --tool racecheck build/gpu/tessel-gpu-tests build/gpu 2>&1 |
      grep -E "cases,|SUMMARY"
    xz -d -k -f build/abl/early.so.xz
    echo "early.so, the library's choices:"
    TESSEL_MAMBA2_LIBRARY=build/abl/early.so python3 -m pytest -q \
      -p no:cacheprovider test/gpu/test_mamba2.py 2>&1 | tail -2
    echo "early.so, chunk_cb's blocks forced (compute_out with the early prologue):"
    TESSEL_MAMBA2_CB=stored TESSEL_MAMBA2_LIBRARY=build/abl/early.so \
      python3 -m pytest -q -p no:cacheprovider test/gpu/test_mamba2.py 2>&1 | tail -2 ;;
  ab)
    sh bench/ab.sh build/abl/head.so.xz build/abl/ctrl.so.xz \
      build/abl/early.so.xz 1,65536,80,128,1,256 1,16384,80,128,1,256 \
      1,65536,80,256,1,256 1,4096,80,128,1,256 ;;
  *) echo "usage: sh bench/profile/prologue_early.sh check|ab" >&2; exit 2 ;;
esac
