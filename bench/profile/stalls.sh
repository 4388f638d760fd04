#!/bin/sh
# Where a Mamba-2 kernel's warps wait: ncu's full set on one launch, the
# details page and the per-SASS-instruction stall samples (CSV), under $OUT.
#   sh bench/profile/stalls.sh KERNEL [one_forward.py args...]
# e.g. sh bench/profile/stalls.sh compute_out --L 65536 --h 80 --n 128
set -eu
kernel=$1; shift
out=${OUT:-/tmp}/$kernel
lib=${TESSEL_MAMBA2_LIBRARY:-build/gpu/libtessel_mamba2.so}
TESSEL_MAMBA2_LIBRARY=$lib ncu --kernel-name "$kernel" --launch-skip 1 \
  --launch-count 1 --set full --import-source no -f -o /tmp/$kernel \
  python3 bench/profile/one_forward.py "$@" > /dev/null
ncu -i /tmp/$kernel.ncu-rep --page details > $out.details.txt
ncu -i /tmp/$kernel.ncu-rep --page source --csv --print-source sass \
  > $out.sass.csv
echo "$kernel: $(wc -l < $out.sass.csv) SASS lines"
