#!/bin/sh
# compute_out with one CTA per program vs persistent: time, per-SM active
# cycles (balance), local-memory (spill) traffic, achieved occupancy.
cd "$(dirname "$0")/../.."
# usage: sh bench/profile/persistent_ncu.sh (libraries: build/gpu/libtessel_mamba2.so, build/gpu/ab/persist.so,
# the latter built with compute_out's persistent tunable at 1)
m=gpu__time_duration.sum,sm__cycles_active.avg,sm__cycles_active.max,sm__cycles_active.min,l1tex__t_bytes_pipe_lsu_mem_local_op_ld.sum,l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size
for lib in build/gpu/libtessel_mamba2.so build/gpu/ab/persist.so; do
  echo "== $lib"
  TESSEL_MAMBA2_LIBRARY=$lib ncu --kernel-name compute_out --launch-skip 1 --launch-count 1 --metrics $m python3 bench/profile/one_forward.py --L 65536 --h 80 --n 128 2>&1 | grep -E "gpu__|sm__|l1tex__|launch__"
done
