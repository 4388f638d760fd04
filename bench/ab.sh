#!/bin/sh
# A/B of two builds of libtessel_mamba2 on the GPU machine: bench/mamba2.py
# on each shape, the libraries alternating (A B A B), so that clock and
# thermal drift fall on both. Prints each run's row (kernel times in ms).
#   sh bench/ab.sh LIB_A LIB_B [b,L,h,n,g,Q ...]
set -eu
a=$1; b=$2; shift 2
shapes="$*"
[ -n "$shapes" ] || shapes="1,4096,80,128,1,256 1,16384,80,128,1,256 1,65536,80,128,1,256"
for shape in $shapes; do
  for round in 1 2; do
    for lib in "$a" "$b"; do
      printf '%s %s: ' "$(basename "$lib")" "$shape"
      out=$(TESSEL_MAMBA2_LIBRARY=$lib python3 bench/mamba2.py \
        --shape "$shape" --runs 50 --warmup 10 2>&1) || {
        echo "bench/mamba2.py failed:"; echo "$out"; exit 1; }
      echo "$out" | grep -E '^b=' | sed 's/ vs Triton.*//'
    done
  done
done
