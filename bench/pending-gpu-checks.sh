#!/bin/sh
# What the seventh session of 2026-12-04 (no GPU lent) left for the H200
# (the eighth, 2026-12-05, no GPU either, added `prepare`):
# run each part once over the carried build folders, record the results in
# bench/results, then delete this script.
#
#   sh bench/pending-gpu-checks.sh prepare        # here, not on the GPU:
#                                                 # builds the three folders (~15 min)
#   carry build/gpu build/early build/abl (36 + 2.3 + 6.9 MB), then
#   sh bench/pending-gpu-checks.sh tests          # ~4 min
#   sh bench/pending-gpu-checks.sh ab stmatrix ws # ~6 min
#   sh bench/pending-gpu-checks.sh ab ws6 wsp     # ~6 min
#   sh bench/pending-gpu-checks.sh ab wsst        # ~3 min (if stmatrix and ws paid)
#
# tests: the GPU test suite over build/gpu (new cases: test_mma_store_tma_*
#   (stmatrix), test_ws{,_ring}_scaled_t_bf16 (a producer warpgroup filling the
#   rings of an mma operand and of a fragment load, the consumers the ring
#   of a register load), test_column_words), and
#   racecheck over the five TMA GEMM test kernels built with thread 0's first
#   copies before the setup barrier (build/early, from
#   bench/results/2026-12-04-early-copies.patch) and as at HEAD, with the
#   SASS around every reported offset.
# ab LIB...: per library of build/abl (xz; head.so is HEAD's), the Mamba-2
#   pytest against float64, then bench/ab.sh against head.so on three shapes:
#   stmatrix  stmatrix = 1 in compute_out, chunk_state, chunk_cb
#   ws        compute_out: warp_specialize 1 (the producer now fills C, S,
#             the C·Bᵀ blocks and x), split_decay 1,
#             tma_register_loads 1 (3 CTAs per SM)
#   ws6       ws with ring_slots 6
#   wsp       ws, persistent (24 bytes spilled on sm_90a)
#   wsst      ws and stmatrix (stmatrix also in chunk_state, chunk_cb)
set -u
out=${OUT:-/tmp/pending}
mkdir -p "$out"
part=${1:-tests}
shift || true
case $part in
prepare)
  # On the build machine (tesselc, ptxas): build/gpu at the tree as it is,
  # build/early (the early-copies patch applied to codegen/ for the five TMA
  # GEMM test kernels, with the test driver), build/abl (head.so and each
  # variant's library, xz). The tunables' defaults are edited in place and
  # the sources restored (git checkout) after each build: codegen/ and
  # kernels/mamba2/ must have no uncommitted changes, and must not be edited
  # while it runs (about 15 minutes on 2 cores).
  set -e
  if [ -n "$(git status --porcelain -- codegen kernels/mamba2)" ]; then
    echo "prepare: commit or stash the changes under codegen/ and kernels/mamba2/ first" >&2
    exit 1
  fi
  trap 'git checkout -q -- codegen kernels/mamba2' EXIT
  ninja -C build gpu-tests tessel_mamba2 tools/tesselc/tesselc-test
  rm -rf build/early build/abl
  mkdir -p build/early build/abl
  git apply bench/results/2026-12-04-early-copies.patch --include='codegen/*'
  ninja -C build tools/tesselc/tesselc-test
  build/tools/tesselc/tesselc-test --target=sm_90a -o build/early \
    test_tma_bf16 test_tma_tf32 test_tma_wgmma_bf16 test_tma_wgmma_tf32 test_tma_wgmma_f16_t
  cp build/gpu/tessel-gpu-tests build/early/
  git checkout -q -- codegen
  # A variant's edits: FILE<TAB>the default as it is<TAB>as the variant has it.
  k=kernels/mamba2
  st="$k/Kernels.h	return dsl::tunable(\"stmatrix\", {0, 1}, value,	return dsl::tunable(\"stmatrix\", {0, 1}, 1,"
  ws="$k/ComputeOut.cpp	tunable(\"warp_specialize\", {-1, 0, 1}, -1,	tunable(\"warp_specialize\", {-1, 0, 1}, 1,
$k/ComputeOut.cpp	tunable(\"split_decay\", {-1, 0, 1}, -1,	tunable(\"split_decay\", {-1, 0, 1}, 1,
$k/ComputeOut.cpp	tunable(\"tma_register_loads\", {-1, 0, 1}, -1,	tunable(\"tma_register_loads\", {-1, 0, 1}, 1,"
  r6="$k/ComputeOut.cpp	tunable(\"ring_slots\", {-1, 0, 3, 4, 5, 6, 8}, -1,	tunable(\"ring_slots\", {-1, 0, 3, 4, 5, 6, 8}, 6,"
  pe="$k/ComputeOut.cpp	persistentTunable(0, \"on the H200 0-15%	persistentTunable(1, \"on the H200 0-15%"
  variant() {
    name=$1
    shift
    printf '%s\n' "$@" | python3 -c '
import sys
for line in sys.stdin.read().splitlines():
    path, old, new = line.split("\t")
    text = open(path).read()
    if text.count(old) != 1:
        sys.exit("prepare: %r is not once in %s" % (old, path))
    open(path, "w").write(text.replace(old, new))'
    ninja -C build tessel_mamba2 > /dev/null
    xz -c build/gpu/libtessel_mamba2.so > "build/abl/$name.so.xz"
    git checkout -q -- kernels/mamba2
  }
  xz -c build/gpu/libtessel_mamba2.so > build/abl/head.so.xz
  variant stmatrix "$st"
  variant ws "$ws"
  variant ws6 "$ws" "$r6"
  variant wsp "$ws" "$pe"
  variant wsst "$ws" "$st"
  ninja -C build tessel_mamba2 > /dev/null
  du -sh build/gpu build/early build/abl
  ;;
tests)
  # The new cases first, alone and under a time limit: a wrong mbarrier
  # protocol hangs rather than fails.
  # (The whole suite runs them again: only once they passed here.)
  new=1
  res=$(TESSEL_GPU_NO_TIMING=1 TESSEL_GPU_CASES=test_ws_scaled,test_ws_ring_scaled,test_mma_store,test_column_words \
    timeout -s KILL 120 build/gpu/tessel-gpu-tests build/gpu 2>&1) || new=0
  printf '%s\n' "$res" | tail -8
  if [ $new = 1 ]; then
    for tool in racecheck memcheck; do
      printf 'new cases under %s: ' $tool
      TESSEL_GPU_NO_TIMING=1 TESSEL_GPU_CASES=test_ws_scaled,test_ws_ring_scaled,test_mma_store \
        timeout -s KILL 300 compute-sanitizer --tool $tool --report-api-errors no \
        build/gpu/tessel-gpu-tests build/gpu 2>&1 | grep -E "SUMMARY" | tail -1
    done
    sh test/gpu/run.sh build/gpu > "$out/tests.txt" 2>&1 || echo "test/gpu/run.sh failed"
    grep -E "FAIL|cases, |passed|failed|state path|forced" "$out/tests.txt"
  else
    echo "new cases failed or timed out: the whole suite skipped"
  fi
  k=test_tma_bf16,test_tma_tf32,test_tma_wgmma_bf16,test_tma_wgmma_tf32,test_tma_wgmma_f16_t
  for build in early gpu; do
    echo "== racecheck, build/$build"
    python3 bench/profile/racecheck_sass.py "build/$build" "$k" --out "$out/$build"
  done
  ;;
ab)
  unpack() {
    python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
      "build/abl/$1.so.xz" "$out/$1.so"
  }
  unpack head
  for lib in "$@"; do
    unpack "$lib"
    echo "== $lib: pytest"
    ok=1
    res=$(TESSEL_MAMBA2_LIBRARY="$out/$lib.so" timeout -s KILL 240 python3 -m pytest -q \
      -p no:cacheprovider test/gpu/test_mamba2.py 2>&1) || ok=0
    printf '%s\n' "$res" | tail -2
    [ $ok = 1 ] || { echo "$lib: pytest failed or timed out: no A/B"; continue; }
    echo "== $lib: A/B against head"
    timeout -s KILL 300 sh bench/ab.sh "$out/head.so" "$out/$lib.so" \
      1,65536,80,128,1,256 1,65536,80,128,1,128 1,16384,80,128,1,256 || echo "$lib: A/B failed or timed out"
  done
  ;;
*)
  echo "usage: sh bench/pending-gpu-checks.sh prepare | tests | ab LIB..." >&2
  exit 2
  ;;
esac
