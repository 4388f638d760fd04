#!/bin/sh
# Runs on the GPU machine over the carried build/gpu folder; prints a table.
set -eu
dir="${1:-build/gpu}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader || true
"$dir/tessel-consumer"
"$dir/tessel-gpu-tests" "$dir"
if [ "${SANITIZE:-0}" = 1 ]; then
  TESSEL_GPU_NO_TIMING=1 compute-sanitizer --tool memcheck --report-api-errors no "$dir/tessel-gpu-tests" "$dir" | tail -3
  TESSEL_GPU_NO_TIMING=1 compute-sanitizer --tool racecheck "$dir/tessel-gpu-tests" "$dir" | tail -3
fi
