#!/bin/sh
# What the tenth session (2026-12-05, no GPU lent) left for the H200: run
# each part once over the carried build folders, record the results in
# bench/results (with the date and commit), then delete this script.
#
#   sh bench/pending-gpu-checks.sh prepare   # here, not on the GPU: builds
#                                            # build/gpu and build/abl (~20 min)
#   carry build/gpu build/abl (about 36 + 6 MB), then
#   sh bench/pending-gpu-checks.sh tests     # ~5 min
#   sh bench/pending-gpu-checks.sh ab ra0 il       # ~6 min
#   sh bench/pending-gpu-checks.sh ab dw st1rf     # ~6 min
#   sh bench/pending-gpu-checks.sh ab st2rf        # ~4 min (if st1rf paid)
#   sh bench/pending-gpu-checks.sh ab ec           # ~4 min
#
# tests: the new test kernels alone first (under a time limit, then
#   racecheck and memcheck), then the whole GPU suite (test/gpu/run.sh):
#   test_row_frag_bf16 (row_fragments: 16-bit A fragments by ldmatrix
#   without .trans from a swizzled TMA copy), test_row_shared_bf16 (the same
#   through ld.shared), wgmma_interleave's three: test_wgmma_chain_il_bf16
#   (compute_out's P·x shape), test_scaled_t_il_bf16 (chunk_state's (x w)ᵀ),
#   test_row_frag_il_bf16 (with row_fragments), and wgmma_defer_wait's four:
#   test_tma_wgmma_dw_bf16 and test_tma_wgmma_pipe_dw_bf16 (GEMMs, operands
#   in shared memory; the latter also timed beside test_tma_wgmma_pipe_bf16
#   in the suite's timed cases), test_scaled_t_dw_bf16 (A in registers),
#   test_row_frag_il_dw_bf16 (all three opt-ins); early_copies' one:
#   test_tma_wgmma_pipe_ec_bf16 (a pipelined GEMM whose first copies thread
#   0 issues before the setup's CTA barrier).
# ab LIB...: per library of build/abl (xz; head is HEAD's), the Mamba-2
#   pytest against float64, then bench/ab.sh against head on three shapes:
#   ra0    compute_out's P staged through shared memory (wgmma_register_a 0;
#          128 registers, 41984 bytes, 4 CTAs per SM)
#   il     wgmma_interleave 1 in compute_out and chunk_state (each K step's
#          part of the register A computed right before its wgmma)
#   dw     wgmma_defer_wait 1 in compute_out (its state term's groups left
#          running into the next iteration; 49152 bytes, 4 CTAs per SM) and
#          2 in chunk_state (its register-A groups too; 75264 bytes, 3 CTAs
#          per SM)
#   st1rf  the state term with C's rows scaled, first (state_term 1), C read
#          by ldmatrix (row_fragments): bench/results/2026-12-05-state-term-
#          row-fragments.patch
#   st2rf  the same after the intra-chunk loops (state_term 2)
#   ec     early_copies 1 in compute_out (the eleventh session): the state
#          term's first copies issued right after the dependency wait
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
  ra0="$k/ComputeOut.cpp	tunable(\"wgmma_register_a\", {0, 1}, 1,	tunable(\"wgmma_register_a\", {0, 1}, 0,"
  il="$k/ComputeOut.cpp	tunable(\"wgmma_interleave\", {0, 1}, 0,	tunable(\"wgmma_interleave\", {0, 1}, 1,
$k/ChunkState.cpp	tunable(\"wgmma_interleave\", {0, 1}, 0,	tunable(\"wgmma_interleave\", {0, 1}, 1,"
  dw="$k/ComputeOut.cpp	tunable(\"wgmma_defer_wait\", {0, 1, 2}, 0,	tunable(\"wgmma_defer_wait\", {0, 1, 2}, 1,
$k/ChunkState.cpp	tunable(\"wgmma_defer_wait\", {0, 2}, 0,	tunable(\"wgmma_defer_wait\", {0, 2}, 2,"
  st1="$k/ComputeOut.cpp	tunable(\"state_term\", {0, 1, 2}, 0,	tunable(\"state_term\", {0, 1, 2}, 1,"
  st2="$k/ComputeOut.cpp	tunable(\"state_term\", {0, 1, 2}, 0,	tunable(\"state_term\", {0, 1, 2}, 2,"
  ec="$k/ComputeOut.cpp	tunable(\"early_copies\", {0, 1}, 0,	tunable(\"early_copies\", {0, 1}, 1,"
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
  variant ra0 "" "$ra0"
  variant il "" "$il"
  variant dw "" "$dw"
  variant st1rf bench/results/2026-12-05-state-term-row-fragments.patch "$st1"
  variant st2rf bench/results/2026-12-05-state-term-row-fragments.patch "$st2"
  variant ec "" "$ec"
  ninja -C build tessel_mamba2 > /dev/null
  du -sh build/gpu build/abl
  ;;
tests)
  # The new cases first, alone and under a time limit (a wrong mbarrier
  # protocol hangs rather than fails); the whole suite runs them again,
  # only once they passed here.
  cases=test_row_frag,test_row_shared,_il_bf16,_dw_bf16,_ec_bf16
  new=1
  res=$(TESSEL_GPU_NO_TIMING=1 TESSEL_GPU_CASES=$cases \
    timeout -s KILL 120 build/gpu/tessel-gpu-tests build/gpu 2>&1) || new=0
  printf '%s\n' "$res" | tail -8
  if [ $new = 1 ]; then
    for tool in racecheck memcheck; do
      printf 'new cases under %s: ' $tool
      TESSEL_GPU_NO_TIMING=1 TESSEL_GPU_CASES=$cases \
        timeout -s KILL 300 compute-sanitizer --tool $tool --report-api-errors no \
        build/gpu/tessel-gpu-tests build/gpu 2>&1 | grep -E "SUMMARY" | tail -1
    done
    sh test/gpu/run.sh build/gpu > "$out/tests.txt" 2>&1 || echo "test/gpu/run.sh failed"
    grep -E "FAIL|cases, |passed|failed|state path|forced|timed" "$out/tests.txt"
    # Where the HGMMAs and warpgroup syncs stand in the SASS, by cuobjdump
    # and by bench/profile/cubin_hgmma.py (its opcode classes inferred on
    # the build machine, which lacks cuobjdump): both lines must name the
    # same instruction indices (G any HGMMA; the tool tells H from h).
    for k in test_wgmma_chain_il_bf16 test_scaled_t_il_bf16 test_scaled_t_dw_bf16 test_tma_wgmma_pipe_dw_bf16; do
      echo "== $k"
      cuobjdump --dump-sass "build/gpu/$k.sm_90a.cubin" |
        grep -E '^ +/\*[0-9a-f]{4,}\*/' |
        awk '/HGMMA/ { printf "G%d ", NR - 1 } /WARPGROUP/ { printf "W%d ", NR - 1 } END { print "" }'
      python3 bench/profile/cubin_hgmma.py "build/gpu/$k.sm_90a.cubin"
    done
  else
    echo "new cases failed or timed out: the whole suite skipped"
  fi
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
*)
  echo "usage: sh bench/pending-gpu-checks.sh prepare | tests | ab LIB..." >&2
  exit 2
  ;;
esac
