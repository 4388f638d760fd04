#!/bin/sh
# What is left for an H200 (none came in the sixteenth to twenty-seventh
# sessions but twice: bench/results/2026-12-05-sixteenth-gpu.md,
# 2026-12-06-h100.md, 2026-12-06-9faaf38-h200-bench.txt; the twenty-fifth's
# and twenty-sixth's own checks ran on an H100: 2026-12-06-operand-in-place.md,
# 2026-12-07-heads.md; the twenty-seventh got none in fourteen tries, the
# twenty-eighth an H100 once in thirteen: 2026-12-07-seq-idx-variant.md; the
# twenty-ninth an H100 in each of twelve calls, no H200: 2026-12-07-stmatrix.md):
# the re-tune of
# the shipped table (chunk_state's rows date from eb00cf4, compute_out has none
# since Nov 30; the sweep below includes compute_out's BLOCK_M, which also
# moves refresh_in_loops' -1 rule), and the A/Bs of compute_out's split_diagonal
# (2026-12-06-split-diagonal.md) and of its L2 prefetch at Q = 256 with
# split_diagonal 2 (2026-12-06-prefetch-l2-split-ab.txt), measured on an
# H100 only. (compute_out's stmatrix 1 was measured on an H100 in the
# twenty-ninth session and is its default now: 2026-12-07-stmatrix.md.)
# (compute_out's SEQ_IDX variant, which no longer compiles the
# seq_idx code without seq_idx, was measured on an H100 in the
# twenty-eighth session: 2026-12-07-seq-idx-variant.md.) Three calls at most
# (a command may take 10 minutes):
# (Run prepare at the commit to tune: a tuning build from before 51d61b2
# has refresh_in_loops 1 as compute_out's default point, which a table row
# would then bring back at 128-token rows.)
#   here (with LLVM/MLIR):   sh bench/pending-gpu-checks.sh prepare
#   on the H200, carrying build/gpu, build/tunexz and build/abl:
#                            sh bench/pending-gpu-checks.sh run
#                            sh bench/pending-gpu-checks.sh ab
#                            BENCH=1 ... run, or bench/mamba2.py alone
#   on an H200, carrying build/gpu: the segmented scan's A/B at the shapes
#   its rule was widened to on H100 measurements (2026-12-07-segment-
#   steps.md):
#                            sh bench/pending-gpu-checks.sh segment
#   on any GPU, carrying build/gpu: where compute_out's segmented state term
#   waits (ncu, segments of 1 and of 8):
#                            sh bench/pending-gpu-checks.sh stalls
# `run` prints the GPU suite, racecheck on the newest test kernels, the
# re-tune (to $OUT/h200.tsv) and the kernel timeline of one forward at
# L=4096. Then, here: merge $OUT/h200.tsv into kernels/mamba2/tuned/h200.tsv
# (keep state_passing's L=1024 row at unroll=1, set by hand), rebuild, and
# A/B the two libraries with bench/ab.sh on the H200. (On an H100 the tune
# is not an H200 table: 2026-12-06-h100.md.)
set -eu
# The seconds of BUDGET (default 570) still left since the start, and the
# library carried xz-packed in build/gpuxz (with its COMMIT) unpacked into
# build/gpu.
start=$(date +%s)
left() { echo $(( ${BUDGET:-570} - ($(date +%s) - start) )); }
unpack_library() {
  mkdir -p build/gpu
  xz -d -c build/gpuxz/libtessel_mamba2.so.xz > build/gpu/libtessel_mamba2.so
  cp build/gpuxz/COMMIT build/gpu/COMMIT
}
# build/abl/OUT.so.xz: the library built with compute_out's tunable NAME
# (values VALUES, as ComputeOut.cpp spells them) defaulting to TO instead of
# FROM; ComputeOut.cpp restored from HEAD after.
#   library_with_default NAME VALUES FROM TO OUT
library_with_default() {
  sed -i "s/tunable(\"$1\", $2, $3,/tunable(\"$1\", $2, $4,/" \
    kernels/mamba2/ComputeOut.cpp
  git diff --quiet HEAD -- kernels/mamba2/ComputeOut.cpp && {
    echo "$1's default $3 not found" >&2; exit 1; }
  ninja -C build tessel_mamba2
  xz -T2 -c build/gpu/libtessel_mamba2.so > "build/abl/$5.so.xz"
  git checkout HEAD -- kernels/mamba2/ComputeOut.cpp
}
SWEEP="compute_out:BLOCK_M=64,128 compute_out:early_copies=0,1 compute_out:prefetch_l2=0,1 compute_out:split_decay=-1,1 chunk_state:occupancy=-1,2,3 chunk_state:prefetch_registers=32,64 chunk_state:wgmma_interleave=0,1 chunk_state:tma_register_loads=0,1 state_passing:BLOCK_P=8,16,32 state_passing:BLOCK_N=64,128 state_passing:num_warps=2,4 state_passing:prefetch_depth=1,2,3 state_passing:unroll=2,4 chunk_cb:occupancy=0,3,4 chunk_cumsum:BLOCK_H=4,8,16 chunk_cumsum:num_warps=2,4,8"
case "${1:-}" in
  prepare)
    cmake build -DTESSEL_MAMBA2_TUNE_SWEEP="$SWEEP" > /dev/null
    ninja -C build gpu-tests tessel_mamba2_tune   # about 8 + 6 minutes on 2 cores
    mkdir -p build/tunexz
    xz -T2 -c build/tune/libtessel_mamba2_tune.so > build/tunexz/libtessel_mamba2_tune.so.xz
    # The library as it is, and with two of compute_out's defaults changed
    # (ComputeOut.cpp must be unchanged here: it is restored from HEAD
    # after each; two more builds of the library, about 3 minutes each).
    git diff --quiet HEAD -- kernels/mamba2/ComputeOut.cpp || {
      echo "kernels/mamba2/ComputeOut.cpp has uncommitted changes" >&2; exit 1; }
    mkdir -p build/abl
    xz -T2 -c build/gpu/libtessel_mamba2.so > build/abl/head.so.xz
    trap 'git checkout HEAD -- kernels/mamba2/ComputeOut.cpp' EXIT
    # And split_diagonal off (0) against its default (2 at Q = 256, off
    # below; at Q = 128 the two libraries are the same kernel: a control),
    # measured on an H100 only (bench/results/2026-12-06-split-diagonal.md).
    library_with_default split_diagonal "{-1, 0, 1, 2}" -1 0 split-diagonal-0
    # And the L2 prefetch forced on (1) against its default (off at Q = 256
    # with split_diagonal 2 since the H100 measured it 1.3-3.7% slower).
    library_with_default prefetch_l2 "{-1, 0, 1}" -1 1 prefetch-on
    trap - EXIT
    ninja -C build tessel_mamba2
    cat build/gpu/COMMIT ;;
  run)
    set +e
    nvidia-smi --query-gpu=name --format=csv,noheader
    build/gpu/tessel-gpu-tests build/gpu > "$OUT/suite.txt" 2>&1
    grep -E "attention|row_reduce|column vector|cases,|FAIL" "$OUT/suite.txt"
    TESSEL_GPU_CASES=row_reduce,attention,column_words,item_branch TESSEL_GPU_NO_TIMING=1 \
      compute-sanitizer --tool racecheck build/gpu/tessel-gpu-tests build/gpu \
      > "$OUT/racecheck.txt" 2>&1
    grep -E "cases,|SUMMARY" "$OUT/racecheck.txt"
    xz -d -k -f build/tunexz/libtessel_mamba2_tune.so.xz
    timeout 330 python3 tools/tessel-tune/tessel-tune.py \
      --library build/tunexz/libtessel_mamba2_tune.so --out "$OUT/h200.tsv" \
      --commit "$(cat build/gpu/COMMIT)" > "$OUT/tune.log" 2>&1
    tail -2 "$OUT/tune.log"
    TESSEL_MAMBA2_LIBRARY=build/gpu/libtessel_mamba2.so timeout 60 \
      python3 bench/timeline.py --shape 1,4096,80,128,1,256 > "$OUT/timeline-4096.txt" 2>&1
    tail -12 "$OUT/timeline-4096.txt"
    [ "${BENCH:-0}" = 1 ] || exit 0
    # (Alone in a call: with the steps above it passes the 10 minutes a
    # command may take.)
    TESSEL_MAMBA2_LIBRARY=build/gpu/libtessel_mamba2.so timeout 180 \
      python3 bench/mamba2.py --runs 50 --warmup 10 > "$OUT/bench.txt" 2>&1
    grep "^b=" "$OUT/bench.txt" | cut -c1-150 ;;
  ab)
    # The A/Bs of compute_out's defaults on an H200 (its own call).
    set +e
    case "$(nvidia-smi --query-gpu=name --format=csv,noheader)" in
      *H200*) timeout 150 sh bench/ab.sh build/abl/head.so.xz build/abl/split-diagonal-0.so.xz \
                1,65536,80,128,1,256 1,16384,80,128,1,256 4,65536,80,128,1,256 1,65536,80,128,1,128 \
                > "$OUT/ab-split-diagonal.txt" 2>&1
              cut -c1-150 "$OUT/ab-split-diagonal.txt"
              timeout 120 sh bench/ab.sh build/abl/head.so.xz build/abl/prefetch-on.so.xz \
                1,65536,80,128,1,256 1,16384,80,128,1,256 1,4096,80,128,1,256 \
                > "$OUT/ab-prefetch-l2-q256.txt" 2>&1
              cut -c1-150 "$OUT/ab-prefetch-l2-q256.txt" ;;
    esac
    ;;
  segment)
    # The segmented state scan's A/B at the shapes the rule (Validate.cpp,
    # scanSegment) was widened to (measured on an H100 only:
    # 2026-12-07-segment-steps.md), and the headline again, on
    # any GPU (its own call; build/gpu as built: both ways are compiled).
    set +e
    nvidia-smi --query-gpu=name --format=csv,noheader
    SPECS="1 8" timeout 300 sh bench/segment.sh build/gpu/libtessel_mamba2.so \
      1,65536,80,64,1,256 1,65536,80,128,8,256 1,16384,80,128,1,256 \
      4,65536,8,256,1,128 1,65536,80,128,1,256 > "$OUT/ab-segment.txt" 2>&1
    grep -E "^(1|8) " "$OUT/ab-segment.txt" | cut -c1-150 ;;
  steps)
    # compute_out's state term under the segmented scan, on any GPU (its own
    # call), carrying build/tunexz: a tuning build made here by
    #   cmake build -DTESSEL_MAMBA2_TUNE_DEFINES="X_DTYPE=bf16 DT_DTYPE=bf16 HAS_DT_BIAS=1 DT_SOFTPLUS=1 Q=128,256 SEQ_IDX=0 CB_STORED=1 SEGMENT=1,8" \
    #     -DTESSEL_MAMBA2_TUNE_SWEEP="compute_out:segment_steps=0,1,2 compute_out:BLOCK_K=32,64 compute_out:prologue_early=-1,0"
    #   ninja -C build tessel_mamba2_tune && mkdir -p build/tunexz &&
    #   xz -T2 -c build/tune/libtessel_mamba2_tune.so > build/tunexz/libtessel_mamba2_tune.so.xz
    # segments of 1 and of 8 as shipped; S_c's blocks formed in place
    # (segment_steps 2, with and without prologue_early); both products per
    # step at 32-wide steps (segment_steps 1).
    set +e
    nvidia-smi --query-gpu=name --format=csv,noheader
    SPECS="1 8 8/compute_out:segment_steps=2 8/compute_out:segment_steps=2,prologue_early=0 8/compute_out:segment_steps=1,BLOCK_K=32" \
      timeout 330 sh bench/segment.sh build/tunexz/libtessel_mamba2_tune.so.xz \
      1,65536,80,128,1,256 1,65536,80,128,1,128 1,16384,80,128,1,256 > "$OUT/ab-steps.txt" 2>&1
    grep -E "^(1|8)" "$OUT/ab-steps.txt" | cut -c1-200 ;;
  stalls)
    # Where compute_out's segmented state term waits (2026-12-07-segment-
    # steps.md: one product instead of two was level, so the 0.11 ms it
    # costs over SEGMENT 1 at the headline should be waits, not tensor-core
    # work): ncu's full set on one launch with segments of 1 and of 8, on
    # any GPU (its own call; build/gpu as built).
    set +e
    nvidia-smi --query-gpu=name --format=csv,noheader
    for s in 1 8; do
      mkdir -p "$OUT/segment$s"
      TESSEL_MAMBA2_SEGMENT=$s OUT="$OUT/segment$s" timeout 250 \
        sh bench/profile/stalls.sh compute_out --L 65536 --h 80 --n 128
      grep -E "Duration|Warp Cycles Per Issued|Issue Slots Busy|Achieved Occupancy|Stall" \
        "$OUT/segment$s/compute_out.details.txt" | head -20
    done ;;
  scale)
    # The segmented state term's step structure on an H200 (its own call),
    # carrying build/tunexz (run on an H100 in the thirty-fourth session,
    # bench/results/2026-12-07-scale-h100-ab.txt: segment_scale 1, a little
    # faster, is the default since; the H200 not yet): a tuning build made
    # here by
    #   cmake build -DTESSEL_MAMBA2_TUNE_DEFINES="X_DTYPE=bf16 DT_DTYPE=bf16 HAS_DT_BIAS=1 DT_SOFTPLUS=1 Q=256 SEQ_IDX=0 CB_STORED=1 SEGMENT=1,8" \
    #     -DTESSEL_MAMBA2_TUNE_SWEEP="compute_out:segment_scale=0,1 compute_out:segment_steps=0,2 compute_out:prologue_early=-1,0 compute_out:wgmma_defer_wait=0,1"
    #   ninja -C build tessel_mamba2_tune && mkdir -p build/tunexz &&
    #   xz -T2 -c build/tune/libtessel_mamba2_tune.so > build/tunexz/libtessel_mamba2_tune.so.xz
    # segments of 1 as shipped; of 8 with the factor applied in every step
    # (segment_scale 0, the default before 758fdc1) and once (1, the
    # default since), and the latter with wgmma_defer_wait 1, which does not defer the
    # state loop's waits (the scaling reads its accumulator, in either form:
    # EmitLoops.cpp, deferredWgmma) but turns prologue_early off (50176
    # bytes of shared memory instead of 75776): a control of what the early
    # prologue is worth here; S_c formed in place without prologue_early
    # (measured level on an H100).
    set +e
    nvidia-smi --query-gpu=name --format=csv,noheader
    SPECS="1 8/compute_out:segment_scale=0 8/compute_out:segment_scale=1 8/compute_out:segment_scale=1,wgmma_defer_wait=1 8/compute_out:segment_steps=2,prologue_early=0" \
      timeout 250 sh bench/segment.sh build/tunexz/libtessel_mamba2_tune.so.xz \
      1,65536,80,128,1,256 1,16384,80,128,1,256 > "$OUT/ab-scale.txt" 2>&1
    grep -E "^(1|8)" "$OUT/ab-scale.txt" | cut -c1-200 ;;
  next)
    # One call of at most 10 minutes, most wanted first, each step only
    # where the time it may take is left (BUDGET seconds from the start,
    # default 570), carrying build/gpuxz (the library, xz-packed, and its
    # COMMIT):
    #   1. on an H200, the whole benchmark at the library's commit (about
    #      150 s);
    #   2. the segmented scan's A/B at the shapes whose rule is the H200's
    #      by analogy, not by measurement (about 100 s; fp16 and b=4 L=65536
    #      are the headline's class);
    #   3. ncu's stalls of compute_out with segments of 1 and of 8 (about
    #      2 x 90 s).
    # (Its first use, at e41dd7d, ran the prefetch A/B of compute_out's
    # since-removed prefetch_state and prefetch_ahead, the benchmark and
    # the stalls: bench/results/2026-12-07-segment-h200.md.)
    set +e
    unpack_library
    gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader)
    echo "$gpu; library $(cat build/gpu/COMMIT)"
    case "$gpu" in
      *H200*) if [ "$(left)" -gt 200 ]; then
                TESSEL_MAMBA2_LIBRARY=build/gpu/libtessel_mamba2.so timeout 190 \
                  python3 bench/mamba2.py --runs 50 --warmup 10 \
                  --commit "$(cat build/gpu/COMMIT)" > "$OUT/bench.txt" 2>&1
                grep "^b=" "$OUT/bench.txt" | cut -c1-170
              fi ;;
    esac
    if [ "$(left)" -gt 150 ]; then
      SPECS="1 8" timeout 140 sh bench/segment.sh build/gpu/libtessel_mamba2.so \
        4,65536,80,128,1,256 1,65536,80,64,1,128 1,65536,80,96,1,256 \
        > "$OUT/ab-segment.txt" 2>&1
      grep -E "^(1|8) " "$OUT/ab-segment.txt" | cut -c1-150
    fi
    for s in 1 8; do
      [ "$(left)" -gt 120 ] || { echo "stalls $s: no time left"; continue; }
      mkdir -p "$OUT/segment$s"
      TESSEL_MAMBA2_SEGMENT=$s OUT="$OUT/segment$s" timeout $(( $(left) - 10 )) \
        sh bench/profile/stalls.sh compute_out --L 65536 --h 80 --n 128 --layer
      grep -E "Duration|DRAM Throughput|L2 Cache Throughput|Issue Slots Busy|Achieved Occupancy" \
        "$OUT/segment$s/compute_out.details.txt" | head -8
      python3 bench/profile/sass_hot.py "$OUT/segment$s/compute_out.sass.csv" 10 \
        > "$OUT/segment$s/compute_out.hot.txt" 2>&1
      grep -E "^ *[0-9.]+% x" "$OUT/segment$s/compute_out.hot.txt" | head -6 | cut -c1-130
    done ;;
  chain)
    # The scan over segments in chunk_state (CHAIN, TESSEL_MAMBA2_SCAN=chain)
    # against state_passing's (its own call, at most 10 minutes), carrying
    # build/gpuxz (the library, xz-packed, and its COMMIT). Run on an H100
    # in the thirty-fourth session: correct, slower at all six shapes
    # (bench/results/2026-12-07-chained-scan.md); for a changed chain.
    #   1. the chained forward's float64 check over the GPU suite's Mamba-2
    #      cases (about 60 s);
    #   2. the forward side by side, two rounds: segments of 1 (the H200's
    #      rule at Q = 256), of 8 with state_passing, of 8 chained, at the
    #      headline, L=16384, b=4 L=16384, n=64, Q=128 and g=8 (each row
    #      ends in [check: ...] where bench/mamba2.py's float64 check did
    #      not pass);
    #   3. where the time is left, compute-sanitizer's memcheck of one
    #      chained forward.
    set +e
    unpack_library
    echo "$(nvidia-smi --query-gpu=name --format=csv,noheader); library $(cat build/gpu/COMMIT)"
    lib=build/gpu/libtessel_mamba2.so
    TESSEL_MAMBA2_SCAN=chain TESSEL_MAMBA2_SEGMENT=8 TESSEL_MAMBA2_LIBRARY=$lib timeout 150 \
      python3 -m pytest -q -p no:cacheprovider test/gpu/test_mamba2.py > "$OUT/chain-tests.txt" 2>&1
    tail -3 "$OUT/chain-tests.txt"
    for shape in 1,65536,80,128,1,256 1,16384,80,128,1,256 4,16384,80,128,1,256 \
                 1,65536,80,64,1,256 1,65536,80,128,1,128 1,65536,80,128,8,256; do
      for round in 1 2; do
        for spec in 1/passing 8/passing 8/chain; do
          [ "$(left)" -gt 40 ] || { echo "no time left"; break 3; }
          printf '%s %s: ' "$spec" "$shape"
          TESSEL_MAMBA2_SEGMENT=${spec%/*} TESSEL_MAMBA2_SCAN=${spec#*/} \
            TESSEL_MAMBA2_LIBRARY=$lib timeout 60 python3 bench/mamba2.py \
            --shape "$shape" --runs 50 --warmup 10 2>&1 | grep -E '^b=|Error|error' |
            sed -e '/; ok$/{s/ vs Triton.*//;b' -e '}' \
              -e 's/ vs Triton kernels [^;]*; \(.*\)$/ [check: \1]/'
        done
      done
    done | tee "$OUT/ab-chain.txt" | cut -c1-200
    if [ "$(left)" -gt 60 ]; then
      TESSEL_MAMBA2_SCAN=chain TESSEL_MAMBA2_SEGMENT=8 TESSEL_MAMBA2_LIBRARY=$lib \
        timeout $(( $(left) - 10 )) compute-sanitizer --tool memcheck --report-api-errors no \
        python3 bench/profile/one_forward.py --L 16384 --h 16 --n 128 --repeat 1 \
        > "$OUT/chain-memcheck.txt" 2>&1
      grep -E "SUMMARY|^ok" "$OUT/chain-memcheck.txt" | cut -c1-160
    fi ;;
  *)
    echo "usage: sh bench/pending-gpu-checks.sh prepare|run|ab|segment|steps|stalls|scale|next|chain" >&2; exit 2 ;;
esac
