#!/bin/sh
# A/B (or A/B/C...) of builds of libtessel_mamba2 on the GPU machine:
# bench/mamba2.py on each shape, the libraries taking turns (A B A B), so
# that clock and thermal drift fall on all of them. Prints each run's row
# (kernel times in ms). The arguments that name an existing file are the
# libraries (at least two; a .so.xz is unpacked beside itself first), the
# rest shapes b,L,h,n,g,Q.
#   sh bench/ab.sh LIB_A LIB_B [LIB_C ...] [b,L,h,n,g,Q ...]
# A library whose outputs fail bench/mamba2.py's check stops the run, unless
# AB_TIMING_ONLY=1 (a timing-only build, e.g. a kernel with a term removed to
# see what it costs): the run goes on, each failed row marked with its check.
# AB_ARGS adds options to every bench/mamba2.py call (e.g. "--seq-idx 8").
set -eu
libs=""; shapes=""
for arg in "$@"; do
  if [ -f "$arg" ]; then
    case "$arg" in
      *.xz) xz -d -k -f "$arg"; arg=${arg%.xz} ;;
    esac
    libs="$libs $arg"
  else
    case "$arg" in
      *,*,*,*,*,*) shapes="$shapes $arg" ;;
      *) echo "bench/ab.sh: '$arg' is neither a library file nor a shape b,L,h,n,g,Q" >&2
         exit 2 ;;
    esac
  fi
done
[ "$(echo $libs | wc -w)" -ge 2 ] || {
  echo "usage: sh bench/ab.sh LIB_A LIB_B [LIB_C ...] [b,L,h,n,g,Q ...]" >&2; exit 2; }
[ -n "$shapes" ] || shapes="1,4096,80,128,1,256 1,16384,80,128,1,256 1,65536,80,128,1,256"
for shape in $shapes; do
  for round in 1 2; do
    for lib in $libs; do
      printf '%s %s: ' "$(basename "$lib")" "$shape"
      out=$(TESSEL_MAMBA2_LIBRARY=$lib python3 bench/mamba2.py \
        --shape "$shape" --runs 50 --warmup 10 ${AB_ARGS:-} 2>&1) ||
        [ "${AB_TIMING_ONLY:-0}" = 1 ] || {
          echo "bench/mamba2.py failed:"; echo "$out"; exit 1; }
      # A row ends in its check: dropped where ok, else kept, marked.
      echo "$out" | grep -E '^b=' | sed -e '/; ok$/{s/ vs Triton.*//;b' -e '}' \
        -e 's/ vs Triton kernels [^;]*; \(.*\)$/ [check: \1; timing only]/'
    done
  done
done
