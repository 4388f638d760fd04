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
# libtessel_mamba2 through its Python wrapper (needs PyTorch on the machine).
if python3 -c "import torch" 2>/dev/null; then
  TESSEL_MAMBA2_LIBRARY="$dir/libtessel_mamba2.so" \
    python3 -m pytest -q -p no:cacheprovider test/gpu/test_mamba2.py 2>&1 | tail -25
fi
