#!/bin/sh
# Runs on the GPU machine over the carried build/gpu folder; prints a table.
set -eu
dir="${1:-build/gpu}"
nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv,noheader || true
"$dir/tessel-consumer"
# The compiler's CTAs per SM (target table) against the driver's.
python3 test/gpu/occupancy.py "$dir"
"$dir/tessel-gpu-tests" "$dir"
if [ "${SANITIZE:-0}" = 1 ]; then
  TESSEL_GPU_NO_TIMING=1 compute-sanitizer --tool memcheck --report-api-errors no "$dir/tessel-gpu-tests" "$dir" | tail -3
  TESSEL_GPU_NO_TIMING=1 compute-sanitizer --tool racecheck "$dir/tessel-gpu-tests" "$dir" | tail -3
fi
# libtessel_mamba2 through its Python wrapper (needs PyTorch on the machine).
if python3 -c "import torch" 2>/dev/null; then
  TESSEL_MAMBA2_LIBRARY="$dir/libtessel_mamba2.so" \
    python3 -m pytest -q -p no:cacheprovider test/gpu/test_mamba2.py 2>&1 | tail -25
  # The library's other way to the chunk states (fwd_pass_state instead of
  # chunk_state + state_passing), forced.
  echo "state path forced to fwd_pass_state:"
  TESSEL_MAMBA2_STATE_PATH=serial TESSEL_MAMBA2_LIBRARY="$dir/libtessel_mamba2.so" \
    python3 -m pytest -q -p no:cacheprovider test/gpu/test_mamba2.py 2>&1 | tail -3
  # The split path's scan over segments of 8 chunks (SEGMENT 8) and chunk
  # by chunk (1), forced.
  for segment in 1 8; do
    echo "state scan forced to segments of $segment:"
    TESSEL_MAMBA2_SEGMENT=$segment TESSEL_MAMBA2_LIBRARY="$dir/libtessel_mamba2.so" \
      python3 -m pytest -q -p no:cacheprovider test/gpu/test_mamba2.py 2>&1 | tail -3
  done
  # The scan over segments in chunk_state (CHAIN: each program waits for
  # the one of the segment before), forced with segments of 8.
  echo "state scan forced chained, segments of 8:"
  TESSEL_MAMBA2_SCAN=chain TESSEL_MAMBA2_SEGMENT=8 TESSEL_MAMBA2_LIBRARY="$dir/libtessel_mamba2.so" \
    python3 -m pytest -q -p no:cacheprovider test/gpu/test_mamba2.py 2>&1 | tail -3
  # Both ways to C·Bᵀ forced: chunk_cb's stored blocks (the library's
  # choice on large problems only, so not on most of these), and compute_out
  # forming them itself.
  for cb in stored fused; do
    echo "C·Bᵀ forced $cb:"
    TESSEL_MAMBA2_CB=$cb TESSEL_MAMBA2_LIBRARY="$dir/libtessel_mamba2.so" \
      python3 -m pytest -q -p no:cacheprovider test/gpu/test_mamba2.py 2>&1 | tail -3
  done
  if [ "${SANITIZE:-0}" = 1 ]; then
    # The Mamba-2 kernels' shared-memory traffic (pipelined loops, several
    # loops in a row) under racecheck and memcheck: one small forward per
    # state size that changes the loop structure. (API errors are not
    # reported: the runtime counts a kernel's parameters by asking
    # cuFuncGetParamInfo until it says there is no more.)
    # Both ways to the chunk states (the library's choice is the split here)
    # and both ways to C·Bᵀ (stored by chunk_cb here).
    # One sanitized forward: its label and the sanitizer's summary, or
    # FAILED when the forward did not print "ok" (a Python error, a crash:
    # the sanitizer's summary alone would still read clean).
    sanitized_forward() {
      label=$1; shift
      out=$(compute-sanitizer "$@" 2>&1) || true
      summary=$(printf '%s\n' "$out" | grep -E 'SUMMARY' | tail -1)
      if printf '%s\n' "$out" | grep -q '^ok'; then
        echo "$label: $summary"
      else
        echo "$label: FAILED, the forward did not finish: $(printf '%s\n' "$out" | tail -3 | tr '\n' ' ')"
        sanitize_failed=1
      fi
    }
    sanitize_failed=0
    for way in split,stored serial,stored split,fused; do
      path=${way%,*} cb=${way#*,}
      for n in 64 128 256; do
        for tool in racecheck memcheck; do
          TESSEL_MAMBA2_STATE_PATH=$path TESSEL_MAMBA2_CB=$cb \
            TESSEL_MAMBA2_LIBRARY="$dir/libtessel_mamba2.so" \
            sanitized_forward "forward $path $cb n=$n $tool" \
            --tool "$tool" --report-api-errors no \
            python3 bench/profile/one_forward.py --L 1024 --h 4 --n "$n" --repeat 1
        done
      done
    done
    # chunk_state's warpgroup-MMA point with x scaled in bf16 pairs (the
    # tuned table's choice from L = 4096 up with n = 128 and 256), forced at
    # this small shape.
    for n in 128 256; do
      for tool in racecheck memcheck; do
        TESSEL_MAMBA2_LIBRARY="$dir/libtessel_mamba2.so" \
          sanitized_forward "forward chunk_state wgmma packed n=$n $tool" \
          --tool "$tool" --report-api-errors no \
          python3 bench/profile/one_forward.py --L 1024 --h 4 --n "$n" --repeat 1 \
          --tunables chunk_state:BLOCK_P=64,BLOCK_T=64,num_warps=4,wgmma=1,occupancy=-1,tma_store=1,packed_scale=1,prefetch_registers=64,num_stages=2,persistent=0,warp_specialize=0,pdl=1
      done
    done
    # The chained scan (chunk_state's programs waiting for each other's
    # counters), forced, over segments of 8 at L = 4096 (two segments).
    for tool in racecheck memcheck; do
      TESSEL_MAMBA2_SCAN=chain TESSEL_MAMBA2_SEGMENT=8 \
        TESSEL_MAMBA2_LIBRARY="$dir/libtessel_mamba2.so" \
        sanitized_forward "forward chained scan n=128 $tool" \
        --tool "$tool" --report-api-errors no \
        python3 bench/profile/one_forward.py --L 4096 --h 4 --n 128 --repeat 1
    done
    [ "$sanitize_failed" = 0 ] || { echo "some sanitized forwards did not finish"; exit 1; }
  fi
fi
