#!/bin/sh
# compute_out's split_diagonal 3 (not kept: bench/results/2026-12-06-split-
# exact.md; the code in 2026-12-06-split-exact.patch, on 360156f): the exact
# diagonal a branch in the one factored loop over the chunk's blocks, so
# that the loop's early prologue does not wait for the span test, against
# 2, on the GPU machine, carrying build/abl (split3.so: the library with the
# patch and split_diagonal's -1 rule edited to give 3 at Q = 256, `sed -i
# 's/: Q >= 256                 ? 2/: Q >= 256                 ? 3/'
# kernels/mamba2/ComputeOut.cpp`, then `ninja -C build tessel_mamba2`;
# head.so: 360156f's library, 2 there):
#   sh bench/profile/split_exact.sh check   the Mamba-2 pytest with split3.so
#       (the library's paths, and chunk_cb's blocks forced; the interpreter's
#       test/unit/Mamba2ForwardTest.cpp takes both sides of the span test)
#   sh bench/profile/split_exact.sh ab      head.so and split3.so taking turns
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
case "${1:-}" in
  check)
    xz -d -k -f build/abl/split3.so.xz
    TESSEL_MAMBA2_LIBRARY=build/abl/split3.so python3 -m pytest -q \
      -p no:cacheprovider test/gpu/test_mamba2.py 2>&1 | tail -2
    TESSEL_MAMBA2_CB=stored TESSEL_MAMBA2_LIBRARY=build/abl/split3.so \
      python3 -m pytest -q -p no:cacheprovider test/gpu/test_mamba2.py 2>&1 | tail -2 ;;
  ab)
    sh bench/ab.sh build/abl/head.so.xz build/abl/split3.so.xz \
      1,65536,80,128,1,256 1,16384,80,128,1,256 4,65536,80,128,1,256 \
      1,65536,80,256,1,256 1,4096,80,128,1,256 ;;
  *) echo "usage: sh bench/profile/split_exact.sh check|ab" >&2; exit 2 ;;
esac
