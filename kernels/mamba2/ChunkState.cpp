//===- ChunkState.cpp - Mamba-2 per-chunk states in the tessel DSL --------===//
//
// The chunk-parallel half of the state computation (mamba_ssm's chunk_state):
// per (chunk, head, p-block, n-block, batch) the state a chunk adds on its own,
//
//   S_loc(c) = (x * exp(Acs_last - Acs) * dt)ᵀ · B      over the tokens of c
//
// accumulated in f32 and stored in x's 16-bit type (half the traffic of f32
// to and from state_passing: 0.83 -> 0.76 ms for both at b=1 L=65536 h=80
// n=128 on the H200, bench/results/2026-11-30-compute-out-experiments.md)
// (Acs is kept times log2(e): exp(v) is exp2 of it). With packed
// sequences (seq_idx) only the tokens of the chunk's last sequence count.
// state_passing then scans these over the chunks. Unlike fwd_pass_state,
// which walks the chunks in order in few programs, every chunk here is its
// own program: the GPU fills at any length. With SEGMENT K > 1 (Kernels.h,
// segmentVariant) a program walks the K chunks of a segment instead, and
// writes the state entering each from the segment's own tokens, so that
// state_passing scans the segments only.
//
//===----------------------------------------------------------------------===//

#include "kernels/mamba2/Kernels.h"

namespace tessel::mamba2 {
using namespace tessel::dsl;

namespace {

template <class X>
void chunkState(const Config &cfg, View<X, 4, kDense> x, // (b, L, h, p)
                View<X, 4, kDense> B,                    // (b, L, g, n)
                View<float, 3, kDense> dt,               // (b, h, L)
                View<float, 3, kDense> acs,              // (b, h, L), x log2 e
                View<int32_t, 2> seqIdx,                 // (b, L)
                View<X, 5, kDense> local,                // (b, nc, h, p, n)
                View<float, 3, kDense> decay, // (b, h, nc), SEGMENT > 1
                I32 hasSeqIdx,
                // CHAIN 1: the states entering the chunks, and R_c read
                // back (both local's memory: three views of it, so that
                // each of local's and entering's stores, the view's only
                // access, may go by the TMA, and R is loaded ahead of the
                // store before it), the states entering the segments (b,
                // segments, h, p, n) f32, their counters (b, segments, h, p
                // blocks, n blocks), zero at the start, and the initial and
                // final states.
                View<X, 5, kDense> entering, View<X, 5, kDense> localIn,
                View<float, 5, kDense> carry, View<int32_t, 5> counters,
                View<int32_t, 1> order, View<float, 4> initStates,
                View<float, 4> finalStates, I32 hasInit, I32 hasFinal) {
  const int64_t Q = cfg["Q"], BP = cfg["BLOCK_P"], BN = cfg["BLOCK_N"],
                BT = cfg["BLOCK_T"], K = cfg["SEGMENT"];
  hint("default", "num_warps", cfg["num_warps"]);
  pdlHint(cfg);
  stmatrixHint(cfg);
  stagesHint(cfg);
  persistentHint(cfg);
  if (cfg["wgmma"])
    hint("sm_90a", "wgmma", 1);
  hint("sm_90a", "wgmma_interleave", cfg["wgmma_interleave"]);
  hint("sm_90a", "wgmma_defer_wait", cfg["wgmma_defer_wait"]);
  earlyCopiesHint(cfg);
  tmemAHint();
  // -1: by the block's width, as measured (below). 256 columns: 2 CTAs per
  // SM. On sm_90a ptxas then has 255 registers for mma.sync's 64 x 256 f32
  // accumulator and the loads issued a token block ahead: 88 bytes spilled
  // at Q = 256, none at Q = 128; without the register prefetch none spill,
  // but chunk_state is 10% slower (0.879 against 0.791 ms at b=1 L=65536
  // h=80 n=256 on the H200, bench/results/2026-11-30-chunk-state-256.md).
  // On sm_100a/sm_103a the accumulator is in tensor memory (256 columns
  // each): 150-153 registers, no spills.
  occupancyHint(cfg, BN <= 64 ? 4 : BN <= 128 ? 3 : 2);
  // With Acs and dt through the TMA rings (below; sm_90a) no registers
  // carry the next token block's: at 4 CTAs per SM ptxas fits 128 columns
  // in 122 registers without spills (416 bytes spilled with the register
  // prefetch).
  // (Not with CHAIN: its scan over segments holds T_s and the R_c beside
  // the walk's registers, and at 4 ptxas spilled 506 bytes; at 3, 168
  // bytes with tickets (the program ids in registers), none without.)
  if (BN == 128 && cfg["tma_register_loads"] && !cfg["CHAIN"])
    occupancyHint(cfg, 4, "sm_90a");
  // Warp-specialised (B's copies by a producer warpgroup; only where the
  // chunk takes several token blocks, a loop): 2 CTAs per SM (256 threads
  // each at 4 warps, the producer's included), so that the consumers keep
  // their registers.
  warpSpecializeHint(cfg, Q > BT && cfg["warp_specialize"], 2);
  hint("default", "prefetch_registers", cfg["prefetch_registers"]);
  // Each token block's Acs and dt through the TMA rings: 2-3% faster on
  // the H200 than carried in registers a block ahead (bench/results/
  // 2026-12-04-tma-register-loads.md). sm_90a only: on sm_100a/sm_103a
  // their 1 KB of rings would take the default's fourth CTA per SM
  // (58368 bytes of shared memory each fill an SM exactly).
  hint("sm_90a", "tma_register_loads", cfg["tma_register_loads"]);

  // Heads vary fastest: neighbouring programs read the same chunk of B (and
  // neighbouring columns of x).
  // CHAIN 1: the program's place in the grid from its ticket (`order`, at
  // 0 when the kernel starts: the programs in the order they started), so
  // that the program of the segment before, H tickets earlier, has started
  // whatever order the GPU starts them in. (The ids are then registers, not
  // special registers ptxas rematerialises: 168 bytes spilled at 3 CTAs
  // per SM, none without; tickets 0 takes the launch order instead.)
  const bool chain = cfg["CHAIN"] != 0;
  Scalar ch = program_id(0), pb = program_id(1), nbb = program_id(2);
  if (chain && cfg["tickets"]) {
    Scalar t = ticket(order, {0});
    Scalar across = num_programs(0), down = num_programs(1);
    ch = t % across;
    pb = t / across % down;
    nbb = t / (across * down);
  }
  auto L = dim(x, 1), H = dim(x, 2), G = dim(B, 2), N = dim(B, 3);
  auto numN = (N + (BN - 1)) / BN;
  auto s = ch / H, hi = ch % H, nb = nbb % numN, bi = nbb / numN;
  auto gi = hi / (H / G);
  const StateInputs<X> in{x, B, dt, acs, seqIdx, hasSeqIdx};
  const bool packed = cfg["packed_scale"] != 0, tma = cfg["tma_store"] != 0;
  auto put = [&](const Scalar &c, const Tile &S) {
    store(local, {bi, c, hi, pb, nb}, cast<X>(S),
          {.squeeze = {0, 1, 2}, .tma = tma});
  };

  if (K == 1) { // one chunk per program: what it adds
    ChunkEnd end = chunkEnd(acs, seqIdx, hasSeqIdx, L, bi, hi, s, Q);
    put(s, addChunk<X>(zeros({BP, BN}), in, end, bi, hi, gi, pb, nb, s, Q, BT,
                       packed));
    return;
  }
  // SEGMENT K > 1: the program walks the K chunks of segment s (fewer in
  // the last) from a zero state, as fwd_pass_state walks them all. Into
  // local it writes, for each chunk c after the segment's first, R_c (the
  // state entering c from the segment's tokens alone), and at the
  // segment's first chunk the state after its last one; into decay the
  // factor the state entering the segment keeps at c (and at the first
  // chunk, at the segment's end). Then S_c = R_c + decay_c T_s with T_s the
  // state entering the segment: state_passing scans the segments, and
  // compute_out adds the two terms.
  auto nc = (L + (Q - 1)) / Q;
  auto first = s * K, count = minimum(nc - first, K);
  // The sequence that ended the chunk before the segment (0 before token 0).
  Tile seqBefore = if_((hasSeqIdx != 0) && (first > 0),
                       [&] {
                         return load(seqIdx, {bi, first * Q - 1}, {drop, 1});
                       },
                       [&] { return zeros({1}, DType::i32); });
  // Only one program of a (segment, head) writes the factors.
  const Scalar writesDecay = (pb == 0) && (nb == 0);
  // Each step adds chunk c and stores the state entering the next chunk,
  // at the segment's first chunk after its last one.
  // (CHAIN 1 stores only the R_c here, none at the segment's first chunk,
  // and no factors.)
  using Carried = std::tuple<Tile, Tile, Tile>; // state, factor, sequence
  Carried after = for_range(
      {0, count},
      Carried{zeros({BP, BN}), full({1}, 1.0, DType::f32), seqBefore},
      [&](Scalar j, Tile S, Tile gamma, Tile seqPrev) {
        Scalar c = first + j;
        ChunkEnd end = chunkEnd(acs, seqIdx, hasSeqIdx, L, bi, hi, c, Q);
        Tile flow = carried(end, seqPrev, hasSeqIdx);
        Tile next = addChunk<X>(S * reshape(flow, {1, 1}), in, end, bi, hi,
                                gi, pb, nb, c, Q, BT, packed);
        Tile kept = gamma * flow;
        if (chain) {
          if_(j + 1 < count, [&] { put(c + 1, next); });
        } else {
          Scalar at = where(j + 1 < count, c + 1, first);
          put(at, next);
          if_(writesDecay, [&] {
            store(decay, {bi, hi, at}, kept, {.squeeze = {0, 1}});
          });
        }
        return Carried{next, kept, end.seq};
      });
  if (!chain)
    return;
  // CHAIN 1: the scan over segments here, program after program. The state
  // entering segment s, T_s: the initial state (or 0) in the first, else
  // what the program of segment s - 1 (same head and blocks: H tickets
  // before this one) published; T_{s+1} = kept T_s + U,
  // U the state after the segment's last chunk from its own tokens,
  // published for the next at once (f32), or the final state in the last
  // segment. Then the states entering the segment's chunks, S_c = decay_c
  // T_s + R_c, written over the R_c (in L2 still, most of them, so that
  // DRAM sees one write of each) for compute_out (SEGMENT 1): no
  // state_passing, and each chunk's state crosses DRAM twice instead of
  // four times.
  auto numSegments = (nc + (K - 1)) / K;
  // U goes to the segment's own entry of `carry` before the wait (its
  // registers then free), and T_{s+1} over it, by halves of the state
  // columns: whole, T_s and U held together took 128 registers and ptxas
  // spilled 3-6 KB at 4 CTAs per SM.
  store(carry, {bi, s, hi, pb, nb}, std::get<0>(after),
        {.squeeze = {0, 1, 2}});
  wait_for_earlier(counters, {bi, s - 1, hi, pb, nb}, 1);
  const int64_t BH = BN / 2;
  auto half = [&](int64_t k) { return nb * 2 + k; };
  // T_s: the initial state (or 0) in the first segment, else the entry of
  // segment s - 1 (which only that program writes), of `width` columns
  // from column block `col`.
  auto entering0 = [&](int64_t width, const Scalar &col) {
    return if_(
        s == 0,
        [&] {
          return initialState(initStates, hasInit, bi, hi, pb, col, BP, width);
        },
        [&] {
          return load(carry, {bi, s - 1, hi, pb, col},
                      {drop, drop, drop, BP, width});
        });
  };
  for (int64_t k = 0; k < 2; ++k) {
    Tile T = entering0(BH, half(k));
    Tile Tnext = fma(T, reshape(std::get<1>(after), {1, 1}),
                     load(carry, {bi, s, hi, pb, half(k)},
                          {drop, drop, drop, BP, BH}));
    if_(s + 1 < numSegments, [&] {
      store(carry, {bi, s, hi, pb, half(k)}, Tnext, {.squeeze = {0, 1, 2}});
    });
    if_((s + 1 == numSegments) && (hasFinal != 0), [&] {
      store(finalStates, {bi, hi, pb, half(k)}, Tnext, {.squeeze = {0, 1}});
    });
  }
  // (The signal also waits for this program's TMA stores of the R_c to
  // complete and orders them before what follows: read back through
  // localIn, below.)
  signal(counters, {bi, s, hi, pb, nb}, 1);
  // S_c = decay_c T_s + R_c for the segment's chunks (R = 0 at its first),
  // whole blocks: one store, the only access of `entering` (by the TMA). T_s
  // read again (from L2), in x's type: the one rounding the segmented scan's
  // T_s had too, and half the registers beside each R. (Each S_c's TMA
  // store overwrites the bytes its R_c was read from by generic loads, with
  // no global proxy fence between: the model leaves that write-after-read
  // across proxies unordered, but every value stored is computed from the
  // value loaded, so the store cannot issue before the load returns.)
  Tile T16 = cast<X>(entering0(BN, nb));
  using Factor = std::tuple<Tile, Tile>; // decay_c, sequence
  for_range(
      {0, count}, Factor{full({1}, 1.0, DType::f32), seqBefore},
      [&](Scalar j, Tile gamma, Tile seqPrev) {
        Scalar c = first + j;
        Tile R = if_(
            j > 0,
            [&] {
              return cast<float>(load(localIn, {bi, c, hi, pb, nb},
                                      {drop, drop, drop, BP, BN}));
            },
            [&] { return zeros({BP, BN}); });
        store(entering, {bi, c, hi, pb, nb},
              cast<X>(fma(cast<float>(T16), reshape(gamma, {1, 1}), R)),
              {.squeeze = {0, 1, 2}, .tma = tma});
        ChunkEnd end = chunkEnd(acs, seqIdx, hasSeqIdx, L, bi, hi, c, Q);
        return Factor{gamma * carried(end, seqPrev, hasSeqIdx), end.seq};
      });
}

const std::array<std::string, 17> kArgNames = {
    "x",                "B",
    "dt",               "dA_cumsum",
    "seq_idx",          "chunk_states",
    "segment_decay",    "has_seq_idx",
    "states",           "chunk_states_in",
    "segment_states",
    "segment_counters", "segment_order",
    "initial_states",
    "final_states",     "has_initial_states",
    "has_final_states"};

const Register registration{{
    .name = "chunk_state",
    .summary = "Mamba-2 per-chunk states (chunk-parallel): what each chunk "
               "adds to the state (accumulated in f32, stored in x's type)",
    .params =
        {
            variant("Q", {64, 128, 256}, 256, "chunk length"),
            segmentVariant(),
            // Not measured yet (bench/pending-gpu-checks.sh chain).
            variant("CHAIN", {0, 1}, 0,
                    "with SEGMENT > 1, the scan over segments in this "
                    "kernel: each program waits for the state entering its "
                    "segment from the program of the segment before, then "
                    "writes the states entering its chunks (no "
                    "state_passing; compute_out takes SEGMENT 1)"),
            xDtypeVariant("element type of x and B"),
            tunable("tickets", {0, 1}, 1,
                    "with CHAIN, each program's place in the grid from a "
                    "ticket taken as it starts (1: the program it waits for "
                    "has started, whatever order the GPU starts them in), "
                    "or from its block index (0: relies on the GPU starting "
                    "blocks in index order, as it does in practice but does "
                    "not promise); not measured"),
            tunable("BLOCK_P", {32, 64}, 64, "head-dim rows per program"),
            // 128 reads x once for n = 128 (the states at b=1 L=65536 h=80
            // on the H200: 1.017 -> 0.860 ms with state_passing, bench/
            // results/2026-11-29-split-states.md), 256 for n = 256
            // (chunk_state 0.871 -> 0.813 ms there, 0.474 -> 0.375 at b=4
            // h=8 Q=128: 2026-11-30-chunk-state-256.md); the library takes
            // the narrowest block that covers n (64 when n <= 64, no empty
            // half-blocks).
            variant("BLOCK_N", {64, 128, 256}, 128,
                    "state columns per program"),
            tunable("BLOCK_T", {32, 64, 128}, 64, "tokens per mma"),
            tunable("num_warps", {4, 8}, 4, "warps per program"),
            // On: with packed_scale, and the weights computed once per token
            // (tilegpu-assign-layouts keeps them blocked), the fastest point
            // of the tuned sweep at each of MAMBA2.md's shapes on the H200,
            // 8-25% faster than mma.sync's best point (chunk_state 0.445 ->
            // 0.335 ms at b=1 L=65536 h=80 n=128, 0.571 -> 0.456 at Q=128,
            // 0.294 -> 0.246 at n=64: bench/results/2026-12-02-blocked-
            // weights.md).
            // Before that change, with x scaled in f32, 4% slower at
            // L = 65536 (2026-11-30-transposed-register-a.md).
            tunable("wgmma", {0, 1}, 1,
                    "warpgroup MMA on sm_90a (its A, x scaled per token, "
                    "from registers: x read by ldmatrix.trans from its TMA "
                    "copy)"),
            // With 128 columns 3 CTAs per SM (168 registers, 20 bytes
            // spilled on sm_90a) beat 2 (208): states 0.863 -> 0.819 ms at b=1
            // L=65536 h=80 n=128, 1.346 -> 1.275 at Q=128 (bench/results/
            // 2026-11-29-split-states.md), and 4 (416 bytes spilled: 1.04
            // ms); with 64, 4 beat 3: chunk_state 0.531 vs 0.566 ms at n=64
            // (2026-11-29-wgmma-register-a.md).
            // With Acs and dt through the TMA rings (tma_register_loads, on
            // sm_90a) 4 fit with 128 columns (122 registers, no spills):
            // chunk_state + state_passing 0.489 -> 0.462 ms at the headline,
            // 0.784 -> 0.737 at Q=128, 0.497 -> 0.473 at g=8 (bench/results/
            // 2026-12-04-tma-register-loads.md).
            tunable("wgmma_interleave", {0, 1}, 0,
                    "the wgmma K step by K step, each step's x scaled right "
                    "before it (sm_90a; on the H200, with compute_out's, "
                    "chunk_state + state_passing 1.8-2.6% faster; alone "
                    "not yet measured)"),
            tunable("wgmma_defer_wait", {0, 2}, 0,
                    "each token block's wgmma group waited for in the next "
                    "block, before its A (computed in registers) is pinned "
                    "(a spare ring buffer: 3 CTAs per SM at BLOCK_N 128; "
                    "sm_90a; on the H200 chunk_state + state_passing 6% "
                    "slower, bench/results/2026-12-05-eleventh-gpu.md)"),
            earlyCopiesTunable(0, "not yet measured"),
            tunable("occupancy", {-1, 0, 1, 2, 3, 4}, -1,
                    "CTAs per SM to fit (0: ptxas decides; -1: 4 for 64 "
                    "state columns, 3 for 128 (4 on sm_90a with "
                    "tma_register_loads), 2 for 256)"),
            // On since the per-chunk states are 16-bit: chunk_state +
            // state_passing 0.76 -> 0.68 ms at b=1 L=65536 h=80 n=128, 0.50
            // -> 0.47 at n=64 on the H200 (with f32 states it lost at
            // n=128: bench/results/2026-11-30-compute-out-experiments.md,
            // 2026-11-29-tma-store.md).
            tunable("tma_store", {0, 1}, 1,
                    "the states through shared memory and the TMA (sm_90a "
                    "and later)"),
            // With wgmma (x read by ldmatrix.trans: the registers pair
            // tokens, as the weights do) 2-10% faster than in f32 on the
            // H200, and it makes wgmma the best choice at most shapes (the
            // tuned table: headline 0.425 -> 0.406 ms, n=256 0.773 ->
            // 0.635); with mma.sync (x loaded pairing p) ptxas needs more
            // registers and it is 3-10% slower (bench/results/
            // 2026-12-02-packed-decay.md). On by default with wgmma's
            // default; on sm_100a/sm_103a the same by analogy, not measured.
            tunable("packed_scale", {0, 1}, 1,
                    "x scaled per token in its 16-bit type, two elements per "
                    "instruction (mul.rn.bf16x2 / f16x2), instead of in f32"),
            tunable("tma_register_loads", {0, 1}, 1,
                    "each token block's Acs and dt copied ahead by the TMA "
                    "into the rings and read from shared memory (instead "
                    "of prefetch_registers; sm_90a)"),
            tunable("prefetch_registers", {0, 32, 64}, 64,
                    "registers per thread for loads issued a token block "
                    "ahead"),
            // 3 was 4-38% slower on the H200 with 128 state columns (the
            // third buffer per load cost a CTA per SM), the same with 64
            // (bench/results/2026-11-30-pipeline-depth.md). With the states
            // staged in the rings' memory, 3 CTAs fit at 3 stages with 128
            // columns (73856 bytes), and it was still 4-6% slower
            // (2026-12-04-epilogue-staging.md).
            stagesTunable("3: up to 38% slower on the H200"),
            persistentTunable(0,
                              "on the H200 chunk_state + state_passing 6-16% "
                              "slower, bench/results/2026-11-30-persistent.md"),
            warpSpecializeTunable(
                0, "on the H200 8-25% slower at 2 CTAs per SM, "
                   "bench/results/2026-11-30-warp-specialize.md"),
            pdlTunable(),
            stmatrixTunable(0,
                            "level on the H200, "
                            "bench/results/2026-12-05-pending-gpu-checks.md"),
        },
    // (segment x head, p block, n block x batch); segment_decay is
    // (b, h, nc) whatever the variant.
    .grid = {{"segment_decay", 2, "SEGMENT", "x", 2},
             {"x", 3, "BLOCK_P"},
             {"B", 3, "BLOCK_N", "x", 0}},
    // Tuned by tokens (batch x length), heads, groups and state size.
    .shapeKey =
        {{"bL", "x", 1, "x", 0}, {"h", "x", 2}, {"g", "B", 2}, {"n", "B", 3}},
    // A program's heads' group is h / (h / g): h a multiple of g.
    .shapeRules = {{"x", 2, "", "B", 2}},
    .build = buildForXDtype(chunkState<bf16>, chunkState<f16>, kArgNames),
    .check = [](const Config &cfg) -> std::string {
      if (cfg.get("CHAIN") && cfg.get("SEGMENT") < 2)
        return "CHAIN scans segments: it needs SEGMENT > 1";
      // (A program waits for the one H tickets before it: a persistent
      // grid's programs are not one ticket each, and a producer
      // warpgroup's copies would not wait.)
      if (cfg.get("CHAIN") &&
          (cfg.get("persistent") || cfg.get("warp_specialize")))
        return "CHAIN waits for earlier programs: not with persistent or "
               "warp_specialize";
      return mustDivide(cfg, "BLOCK_T", "Q");
    },
}};

} // namespace
} // namespace tessel::mamba2
