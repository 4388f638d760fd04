#!/bin/sh
# What is left for the H200 after the eleventh session (2026-12-05): run
# each part once over the carried build folders, record the results in
# bench/results (with the date and commit), then delete this script. The
# tenth session's checks ran in the eleventh (bench/results/2026-12-05-
# eleventh-gpu.md); git show c5e5698:bench/pending-gpu-checks.sh has them.
#
#   sh bench/pending-gpu-checks.sh prepare   # here, not on the GPU: builds
#                                            # build/gpu and build/abl (~25 min)
#   carry build/gpu build/abl (about 38 + 8 MB), then
#   sh bench/pending-gpu-checks.sh tests           # ~3 min
#   sh bench/pending-gpu-checks.sh ab ilcs eccs    # ~3 min
#   sh bench/pending-gpu-checks.sh ab st2rf st1rf ec0   # ~4 min
#   sh bench/pending-gpu-checks.sh grouped   # ~5 min (the twelfth session's
#                                            # grouped state pass; build/gpu)
#   sh bench/pending-gpu-checks.sh proto     # ~3 min (its prototypes; needs
#                                            # build/abl's proto, proto2 and
#                                            # head, built in the twelfth
#                                            # session: not rebuilt by prepare)
#
# tests: the whole GPU suite (test/gpu/run.sh) at HEAD: compute_out now
#   with early_copies by default.
# ab LIB...: per library of build/abl (xz; head is HEAD's), the Mamba-2
#   pytest against float64, then bench/ab.sh against head on three shapes:
#   ilcs   wgmma_interleave 1 in chunk_state (on the H200 the state kernels
#          1.8-2.6% faster with it in both kernels; compute_out slower)
#   eccs   early_copies 1 in chunk_state (x's and B's first copies before
#          its dt and Acs loads; 123 registers instead of 118, 4 CTAs/SM)
#   st2rf  the state term with C's rows scaled after the intra-chunk loops
#          (state_term 2), C read by ldmatrix (row_fragments):
#          bench/results/2026-12-05-state-term-row-fragments.patch. Its
#          first build failed at launch (z copied by the TMA, an absent z
#          an empty view); the library now passes y's view for it
#   st1rf  the same first (state_term 1)
#   ec0    compute_out without early_copies (its default since 707e2f7;
#          measured 1.5-3% faster against 9e7e7ac's library)
set -u
out=${OUT:-/tmp/pending}
mkdir -p "$out"
part=${1:-tests}
shift || true
case $part in
prepare)
  # On the build machine (tesselc, ptxas): build/gpu at the tree as it is,
  # build/abl with head.so and each variant's library (xz). The variants'
  # edits are made in place and the sources restored (git checkout) after
  # each build: kernels/mamba2/ must have no uncommitted changes and must
  # not be edited while this runs.
  set -e
  if [ -n "$(git status --porcelain -- kernels/mamba2)" ]; then
    echo "prepare: commit or stash the changes under kernels/mamba2/ first" >&2
    exit 1
  fi
  trap 'git checkout -q -- kernels/mamba2' EXIT
  ninja -C build gpu-tests tessel_mamba2 tools/tesselc/tesselc-test
  rm -rf build/abl
  mkdir -p build/abl
  xz -c build/gpu/libtessel_mamba2.so > build/abl/head.so.xz
  # A variant's edits: FILE<TAB>the text as it is<TAB>as the variant has it.
  k=kernels/mamba2
  ilcs="$k/ChunkState.cpp	tunable(\"wgmma_interleave\", {0, 1}, 0,	tunable(\"wgmma_interleave\", {0, 1}, 1,"
  eccs="$k/ChunkState.cpp	earlyCopiesTunable(0,	earlyCopiesTunable(1,"
  st1="$k/ComputeOut.cpp	tunable(\"state_term\", {0, 1, 2}, 0,	tunable(\"state_term\", {0, 1, 2}, 1,"
  st2="$k/ComputeOut.cpp	tunable(\"state_term\", {0, 1, 2}, 0,	tunable(\"state_term\", {0, 1, 2}, 2,"
  ec0="$k/ComputeOut.cpp	earlyCopiesTunable(1,	earlyCopiesTunable(0,"
  variant() {
    name=$1
    patch=$2
    shift 2
    [ -z "$patch" ] || git apply "$patch"
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
  variant ilcs "" "$ilcs"
  variant eccs "" "$eccs"
  variant st2rf bench/results/2026-12-05-state-term-row-fragments.patch "$st2"
  variant st1rf bench/results/2026-12-05-state-term-row-fragments.patch "$st1"
  variant ec0 "" "$ec0"
  ninja -C build tessel_mamba2 > /dev/null
  du -sh build/gpu build/abl
  ;;
tests)
  sh test/gpu/run.sh build/gpu > "$out/tests.txt" 2>&1 || echo "test/gpu/run.sh failed"
  grep -E "FAIL|cases, |passed|failed|state path|forced|timed" "$out/tests.txt"
  ;;
ab)
  unpack() {
    python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
      "build/abl/$1.so.xz" "$out/$1.so"
  }
  unpack head
  libs=""
  for lib in "$@"; do
    unpack "$lib"
    echo "== $lib: pytest"
    ok=1
    res=$(TESSEL_MAMBA2_LIBRARY="$out/$lib.so" timeout -s KILL 240 python3 -m pytest -q \
      -p no:cacheprovider test/gpu/test_mamba2.py 2>&1) || ok=0
    printf '%s\n' "$res" | tail -2
    if [ $ok = 1 ]; then libs="$libs $out/$lib.so"; else echo "$lib: pytest failed or timed out: no A/B"; fi
  done
  [ -n "$libs" ] || exit 1
  echo "== A/B against head:$libs"
  timeout -s KILL 420 sh bench/ab.sh "$out/head.so" $libs \
    1,65536,80,128,1,256 1,65536,80,128,1,128 1,16384,80,128,1,256 || echo "A/B failed or timed out"
  ;;
grouped)
  # The grouped state pass (STATE_GROUP 8; taken only where forced) against
  # the split path, one library (build/gpu), alternating: pytest with it
  # forced (the whole suite; test_grouped_path_taken checks it was taken),
  # then bench/mamba2.py per shape, split / grouped / split / grouped.
  lib=build/gpu/libtessel_mamba2.so
  echo "== pytest, state path forced grouped"
  TESSEL_MAMBA2_STATE_PATH=grouped TESSEL_MAMBA2_LIBRARY=$lib timeout -s KILL 240 \
    python3 -m pytest -q -p no:cacheprovider test/gpu/test_mamba2.py 2>&1 | tail -3
  for shape in 1,65536,80,128,1,256 1,16384,80,128,1,256 1,4096,80,128,1,256 \
      1,65536,80,256,1,256 1,65536,80,64,1,256; do
    for round in 1 2; do
      for path in split grouped; do
        printf '%s %s: ' $path $shape
        TESSEL_MAMBA2_STATE_PATH=$path TESSEL_MAMBA2_LIBRARY=$lib timeout -s KILL 100 \
          python3 bench/mamba2.py --shape $shape --runs 50 --warmup 10 2>&1 \
          | grep -E '^\| [0-9]' | cut -d'|' -f10-16,29
      done
    done
  done
  ;;
proto)
  # Timing only (its outputs are wrong by design): the grouped state pass's
  # two costly parts, bench/results/2026-12-05-grouped-state-prototype.patch
  # (chunk_state carrying the state over 8 chunks per program; compute_out's
  # state term with a second state and the group's decay). Each kernel's
  # time is read from the table row (the check column says FAIL). proto2:
  # the same with chunk_state storing its states from registers (no 16 KB
  # staging buffer beside the ring: 4 CTAs per SM instead of 3).
  for lib in head proto proto2; do
    python3 -c "import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], 'wb'))" \
      "build/abl/$lib.so.xz" "$out/$lib.so"
  done
  for shape in 1,65536,80,128,1,256 1,16384,80,128,1,256 1,4096,80,128,1,256; do
    for round in 1 2; do
      for lib in head proto proto2; do
        printf '%s %s: ' $lib $shape
        TESSEL_MAMBA2_LIBRARY="$out/$lib.so" timeout -s KILL 100 python3 bench/mamba2.py \
          --shape $shape --runs 50 --warmup 10 2>&1 | grep -E '^\| [0-9]' | cut -d'|' -f10-16
      done
    done
  done
  ;;
*)
  echo "usage: sh bench/pending-gpu-checks.sh prepare | tests | ab LIB..." >&2
  exit 2
  ;;
esac
