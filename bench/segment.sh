#!/bin/sh
# The segmented state scan (the kernels' SEGMENT: Kernels.h, segmentVariant)
# against the chunk-by-chunk one, on the GPU machine: bench/mamba2.py per
# shape, the configurations taking turns (two rounds), each forced with
# TESSEL_MAMBA2_SEGMENT and, after a slash, tessel_mamba2_set_tunables
# (bench/mamba2.py --tunables; the library must have them compiled: a tuning
# build for any but the defaults). Prints each run's row (ms), ending in
# [check: ...] where bench/mamba2.py's check against float64 did not pass.
#   sh bench/segment.sh LIBRARY [b,L,h,n,g,Q ...]
#   SPECS="1 8 8/chunk_state:BLOCK_P=32" sh bench/segment.sh LIBRARY ...
set -eu
lib=$1; shift
case "$lib" in
  *.xz) xz -d -k -f "$lib"; lib=${lib%.xz} ;;
esac
shapes=${*:-1,65536,80,128,1,256}
for shape in $shapes; do
  for round in 1 2; do
    for spec in ${SPECS:-1 8}; do
      seg=${spec%%/*}
      tunables=""
      [ "$spec" = "$seg" ] || tunables="--tunables ${spec#*/}"
      printf '%s %s: ' "$spec" "$shape"
      TESSEL_MAMBA2_SEGMENT=$seg TESSEL_MAMBA2_LIBRARY=$lib python3 bench/mamba2.py \
        --shape "$shape" --runs 50 --warmup 10 $tunables 2>&1 | grep -E '^b=|Error|error' |
        sed -e '/; ok$/{s/ vs Triton.*//;b' -e '}' \
          -e 's/ vs Triton kernels [^;]*; \(.*\)$/ [check: \1]/'
    done
  done
done
