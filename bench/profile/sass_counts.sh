#!/bin/sh
# Counts the tensor-core and TMA instructions in the SASS of the Mamba-2
# kernels (cuobjdump --dump-sass of the AOT cubins), per target:
#   sh bench/profile/sass_counts.sh [build/gpu]
dir=${1:-build/gpu}
cuobjdump --version | tail -1
for t in sm_90a sm_100a sm_103a; do
  for k in chunk_cumsum chunk_state state_passing fwd_pass_state chunk_cb compute_out; do
    f=$dir/$k.$t.cubin
    [ -f "$f" ] || continue
    sass=$(cuobjdump --dump-sass "$f" 2>&1)
    if [ -z "$(printf '%s\n' "$sass" | grep -E '^ +/\*[0-9a-f]{4}\*/')" ]; then
      echo "$k $t: cuobjdump: $(printf '%s\n' "$sass" | tail -1)"
      continue
    fi
    count() { printf '%s\n' "$sass" | grep -cE "$1"; }
    echo "$k $t: HGMMA $(count 'HGMMA') UTCHMMA/UTCQMMA $(count 'UTC[A-Z]*MMA') HMMA $(count ' HMMA') UTMALDG $(count 'UTMALDG') UTMASTG $(count 'UTMASTG') UTCBAR $(count 'UTCBAR') LDTM/STTM $(count 'LDTM|STTM') $(grep -E 'spill_(stores|loads)' "$dir/$k.$t.txt" | tr '\n' ' ')"
  done
done
