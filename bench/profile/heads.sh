#!/bin/sh
# compute_out with two heads per program (variant HEADS 2: 64-token rows,
# the pair sharing C's and the stored C·Bᵀ blocks' copies) against one head
# at 128-token rows, in one library (TESSEL_MAMBA2_HEADS=2 picks the
# variant where h and h / g are even), on the GPU machine, carrying
# build/gpu (and build/abl/heads-occ2.so.xz for `ab`'s third column: the
# same library with HEADS 2 at 2 CTAs per SM, prologue_early on):
#   sh bench/profile/heads.sh check   the Mamba-2 pytest with HEADS 2
#   sh bench/profile/heads.sh ab      bench/mamba2.py per shape, 2 rounds
set -u
nvidia-smi --query-gpu=name --format=csv,noheader
lib=build/gpu/libtessel_mamba2.so
case "${1:-}" in
  check)
    TESSEL_MAMBA2_HEADS=2 TESSEL_MAMBA2_LIBRARY=$lib \
      python3 -m pytest -q -p no:cacheprovider test/gpu/test_mamba2.py 2>&1 | tail -3 ;;
  ab)
    occ2=""
    if [ -f build/abl/heads-occ2.so.xz ]; then
      xz -d -k -f build/abl/heads-occ2.so.xz && occ2=build/abl/heads-occ2.so
    fi
    for shape in ${SHAPES:-1,65536,80,128,1,256 1,16384,80,128,1,256 1,65536,80,256,1,256 1,65536,80,128,8,256 1,65536,80,64,1,256 1,4096,80,128,1,256}; do
      for round in 1 2; do
        for v in 1 2 occ2; do
          l=$lib; h=$v
          if [ "$v" = occ2 ]; then [ -n "$occ2" ] || continue; l=$occ2; h=2; fi
          printf 'heads %s %s: ' "$v" "$shape"
          TESSEL_MAMBA2_HEADS=$h TESSEL_MAMBA2_LIBRARY=$l \
            python3 bench/mamba2.py --shape "$shape" --runs 50 --warmup 10 2>&1 |
            grep -E '^b=' | sed -E 's/ call .*; ([^;]*)$/ \1/'
        done
      done
    done ;;
  *) echo "usage: sh bench/profile/heads.sh check|ab" >&2; exit 2 ;;
esac
