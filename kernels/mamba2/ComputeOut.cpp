//===- ComputeOut.cpp - Mamba-2 outputs in the tessel DSL -----------------===//
//
// The last of the Mamba-2 forward kernels (../shared/MAMBA2.md): per
// (batch, head, block of BLOCK_M tokens, p-block) it computes
//
//   y_t = exp(Acs_t) C_t·S_cᵀ + Σ_{s<=t in the chunk} (C_t·B_s)
//         exp(Acs_t - Acs_s) dt_s x_s  +  D x_t,   then y *= silu(z)
//
// with C·Bᵀ formed block by block on chip (CB_STORED = 0: never written to
// memory) or read from chunk_cb's blocks (CB_STORED = 1, formed once per
// chunk and group instead of once per head; without seq_idx its entries of
// future tokens are 0 and no mask is needed), the causal decay mask applied
// to it in registers, and the product with x as a second tile.mma. With
// packed sequences (seq_idx), the state term reaches a token only when it
// continues the sequence that ended the previous chunk, and the intra-chunk
// sum runs over tokens of its own sequence.
//
//===----------------------------------------------------------------------===//

#include "kernels/mamba2/Kernels.h"

#include <functional>
#include <optional>

namespace tessel::mamba2 {
using namespace tessel::dsl;

namespace {

/// Whether the kernel gets a producer warpgroup: `warp_specialize` 1, or
/// -1 (the default) where it forms C·Bᵀ itself and there is a copy for the
/// producer to issue: wgmma, and rows of whole 128-byte TMA panels (64
/// 16-bit elements) in the state or head dimension. (Reading chunk_cb's
/// blocks, 4 CTAs per SM without a producer were 8-10% faster than 3 with
/// one on the H200: bench/results/2026-12-01-chunk-cb.md.)
bool producerWarpgroup(const Config &cfg) {
  if (cfg.get("warp_specialize") >= 0)
    return cfg.get("warp_specialize") > 0;
  return cfg.get("wgmma") && !cfg.get("CB_STORED") &&
         (cfg.get("BLOCK_K") >= 64 || cfg.get("BLOCK_P") >= 64);
}

template <class X>
void computeOut(const Config &cfg, View<X, 4, kDense> x, // (b, L, h, p)
                View<X, 4, kDense> B,                    // (b, L, g, n)
                View<X, 4, kDense> C,                    // (b, L, g, n)
                View<float, 3, kDense> dt,               // (b, h, L)
                View<float, 3, kDense> acs,              // (b, h, L), x log2 e
                View<int32_t, 2> seqIdx,                 // (b, L)
                View<X, 5, kDense> states,               // (b, nc, h, p, n)
                View<X, 5, kDense> slots,     // (b, 2 nc, h, p, n), SEGMENT > 1
                View<float, 3, kDense> decay, // (b, h, nc), SEGMENT > 1
                View<float, 2> D,             // (h, p); stride 0 for (h)
                View<X, 4, kDense> z,         // (b, L, h, p)
                View<X, 4, kDense> y,         // (b, L, h, p)
                View<X, 5, kDense> cbt,       // (b, nc, g, Q, Q), CB_STORED
                I32 hasSeqIdx, I32 hasD, I32 hasZ) {
  const int64_t Q = cfg["Q"], BM = cfg["BLOCK_M"], BP = cfg["BLOCK_P"],
                BK = cfg["BLOCK_K"],
                BS = cfg["BLOCK_S"]             ? cfg["BLOCK_S"]
                     : std::min<int64_t>(BM, 64);
  const int64_t blocksPerChunk = Q / BM;
  // SEQ_IDX 0 compiles none of the seq_idx code (libtessel_mamba2 takes
  // SEQ_IDX 1 whenever the caller passes seq_idx; that variant still honours
  // has_seq_idx 0): at the headline's variant it held nearly all of ptxas's
  // spills (600 bytes with it in the library's build, 24 without; none
  // with y staged by stmatrix, the default since 2026-12-07-stmatrix.md),
  // in the loop only seq_idx runs.
  // whenSeq(cond, then, otherwise): if_(cond, then, otherwise) under
  // SEQ_IDX 1, otherwise() alone under SEQ_IDX 0.
  const bool seqVariant = cfg["SEQ_IDX"] != 0;
  auto whenSeq = [&](const Scalar &cond, auto then, auto otherwise) {
    return seqVariant ? if_(cond, then, otherwise) : otherwise();
  };
  hint("default", "num_warps", cfg["num_warps"]);
  pdlHint(cfg);
  stmatrixHint(cfg);
  stagesHint(cfg);
  persistentHint(cfg);
  if (cfg["wgmma"])
    hint("sm_90a", "wgmma", 1);
  hint("sm_90a", "wgmma_register_a", cfg["wgmma_register_a"]);
  hint("sm_90a", "wgmma_interleave", cfg["wgmma_interleave"]);
  hint("sm_90a", "wgmma_defer_wait", cfg["wgmma_defer_wait"]);
  earlyCopiesHint(cfg);
  hint("default", "tcgen05_tmem_a", cfg["tcgen05_tmem_a"]);
  // The P·x accumulator stays in tensor memory across the intra-chunk loop
  // (columns 0-63), C·Bᵀ's goes after it (64-127) and P, the register A,
  // over C·Bᵀ's once read (reading chunk_cb's blocks, P alone): the same
  // 128 columns as before, 4 CTAs per SM, without a tcgen05.st and .ld of
  // the 64 x 64 accumulator per iteration.
  // Not measured (no Blackwell GPU here).
  for (const char *target : {"sm_100a", "sm_103a"})
    hint(target, "tcgen05_tmem_acc", 2);
  // Forming C·Bᵀ (CB_STORED 0) without the producer warpgroup
  // (warp_specialize 0; by default it has one there, below), occupancy -1:
  // 4 CTAs per SM where their shared memory fits (49152 bytes each, 49408
  // with SEQ_IDX 1: A of P·x from registers on sm_90a, through tensor
  // memory on sm_100a/sm_103a, and y stored directly), else 3. Measured on
  // the H200 (4 beat 3 by 7-12%); on Blackwell the same rule by analogy,
  // not measured (there 4 fit without spills, 128 registers, and use all 512
  // tensor-memory columns, 128 each).
  // One block of tokens per chunk (Q = BLOCK_M) with the state dimension in
  // loops: the intra-chunk loop runs once, and at 128 registers ptxas
  // spilled 472 bytes on sm_90a. There 3 CTAs per SM (161 registers without
  // refresh_in_loops, no spills) were 14-15% faster on the H200: 1.606 ->
  // 1.374 ms at b=1 L=65536 h=80 n=128 Q=64, 0.427 -> 0.364 at L=16384
  // g=8 (bench/results/2026-11-30-q64.md). With N_MAX = 64 4 stay (1.067
  // against 1.186 ms at n=64).
  const bool oneBlock = Q == BM && cfg["N_MAX"] == 0;
  // Forming C·Bᵀ, a producer warpgroup (below) by default, and y through
  // the TMA with it. With one block of tokens per chunk the consumers' 136
  // registers spill 136 bytes on sm_90a, and still compute_out was 17%
  // faster than without a producer at 3 CTAs per SM (1.135 against 1.368
  // ms at b=1 L=65536 h=80 n=128 Q=64; refresh_in_loops there spills 152).
  const bool ws = producerWarpgroup(cfg);
  // (The producer warpgroup issues the copies across programs itself.)
  if (!ws)
    hint("default", "prologue_ahead", cfg["prologue_ahead"]);
  // The intra-chunk loop's first copies issued right after the state term's
  // (tilegpu.prologue_early), instead of once its products are done: the
  // two DRAM round trips that start every program overlap. Their stage
  // (x_s, the stored C·Bᵀ block, Acs and dt: 25 KB at 128-token rows) stays
  // taken under the state term's rings: 75776 bytes of shared memory
  // instead of 50176, still 3 CTAs per SM. On an H100 (bench/results/
  // 2026-12-06-prologue-early.md) compute_out 4.5% faster at b=1 L=65536
  // h=80 n=128 (0.800 -> 0.764 ms; forward 1.424 -> 1.383), 5.4% with
  // fp16, 3.8% at L=16384 and n=256, 5.4% at b=4, 6% at Q = 128, 2% at
  // g = 8, level at L=4096 and 1024; with N_MAX = 64 (the state dimension
  // unrolled) 1% slower: -1 is on except there. Not measured on the H200.
  // (Not with the producer warpgroup, which issues the copies itself, nor
  // with prologue_ahead.)
  const bool prologueEarly =
      !ws && !cfg["prologue_ahead"] &&
      (cfg["prologue_early"] > 0 ||
       (cfg["prologue_early"] < 0 && cfg["N_MAX"] == 0));
  if (prologueEarly)
    hint("default", "prologue_early", 1);
  if (cfg["segment_steps"] == 2 && cfg["SEGMENT"] > 1 && cfg["N_MAX"] == 0) {
    hint("default", "route_mma_operands", 0);
    hint("sm_90a", "operand_in_place", 1);
  }
  // Reading chunk_cb's C·Bᵀ blocks (CB_STORED), without the producer: y
  // through the TMA too, 4 CTAs per SM with 4 warps and 64 x 64 tiles
  // (33024 bytes of shared memory, y staged in the rings' memory once they
  // are free; 128 registers without spills; larger
  // tiles or 8 warps: 3). On the H200 7-10% faster than with the
  // producer at 3 CTAs per SM, and than without the TMA store at 4 (1.406
  // -> 1.280 ms at b=1 L=65536 h=80 n=128, 1.590 -> 1.457 at n=256, 0.367
  // -> 0.329 at L=16384; bench/results/2026-12-01-chunk-cb.md).
  // sm_100a/sm_103a the same by analogy, not measured.
  const bool stored = cfg["CB_STORED"] != 0;
  const bool tmaStore =
      cfg["tma_store"] > 0 || (cfg["tma_store"] < 0 && (ws || stored));
  const bool fourStored = stored && !ws && cfg["num_warps"] == 4 &&
                          BM <= 64 && BP <= 64 && BS <= 64;
  occupancyHint(cfg, fourStored ? 4 : 3);
  if (cfg["wgmma"] && cfg["wgmma_register_a"] && !tmaStore && !oneBlock)
    occupancyHint(cfg, 4, "sm_90a");
  if (cfg["tcgen05_tmem_a"] && !tmaStore) {
    occupancyHint(cfg, 4, "sm_100a");
    occupancyHint(cfg, 4, "sm_103a");
  }
  // 128-token rows on sm_100a/sm_103a: 256 tensor-memory columns, two
  // CTAs per SM (not measured: no Blackwell GPU here).
  if (BM > 64) {
    occupancyHint(cfg, 2, "sm_100a");
    occupancyHint(cfg, 2, "sm_103a");
  }
  // Warp-specialised (the default with CB_STORED 0), the rings live as long
  // as the kernel: with ring_slots, one ring of that many 8 KB buffers that
  // every load shares (32768 bytes at 4), 3 CTAs per SM, the producer
  // keeping 24 registers so that the consumers get 136; with ring_slots = 0
  // one ring per load (81920 bytes with BLOCK_K = 64), 2 CTAs per SM. -1:
  // 4 buffers with the state dimension in loops (a K step holds 2, x_s 1), 5
  // with it unrolled (N_MAX > 0: each source block holds its B blocks and
  // x_s).
  // And y through shared memory and the TMA (tma_store): the CTA then
  // leaves without waiting for its stores to drain (6% of compute_out's
  // stall samples were that wait). On the H200 with both 1-12.5% faster
  // than 4 CTAs per SM without a producer (compute_out 1.724 -> 1.561 ms at
  // b=1 L=65536 h=80 n=128, 0.430 -> 0.388 at L=16384, 1.343 -> 1.175 at
  // Q=128, 1.341 -> 1.326 at n = 64: bench/results/2026-11-30-ablation-
  // shared-ring.md); without tma_store the producer only draws level.
  // sm_100a/sm_103a the same by analogy, not measured (3 CTAs per SM, 384
  // of the 512 tensor-memory columns, no spills).
  const int64_t ringSlots = cfg["ring_slots"] >= 0 ? cfg["ring_slots"]
                            : cfg["N_MAX"] > 0     ? 5
                                                   : 4;
  // 3 CTAs per SM where one warpgroup of consumers and the ring (buffers of
  // the largest 16-bit tile, 1 KB aligned) with y's staging fit in a third
  // of the SM's shared memory, else 2 (a ring per load: 2).
  const int64_t slotBytes =
      (2 * std::max({BM * BK, BS * BK, BS * BP, BP * BK, BS * BM}) + 1023) /
      1024 * 1024;
  const int64_t sharedBytes =
      ringSlots * slotBytes + (tmaStore ? 2 * BM * BP : 0);
  const bool threeFit =
      ringSlots && cfg["num_warps"] == 4 && 3 * (sharedBytes + 2048) <= 233472;
  warpSpecializeHint(cfg, ws, threeFit ? 3 : 2);
  if (ws && ringSlots)
    for (const char *target : {"sm_90a", "sm_100a", "sm_103a"}) {
      hint(target, "ring_slots", ringSlots);
      hint(target, "producer_registers", 24);
    }
  if (cfg["prefetch_registers"])
    hint("default", "prefetch_registers", cfg["prefetch_registers"]);
  // The loops' per-column Acs and dt of each source block copied by the TMA
  // into the rings an iteration ahead, read from shared memory where they
  // are loaded (no registers held across iterations, as prefetch_registers
  // would: 208 bytes of spills at 16). -1: on reading chunk_cb's blocks
  // without the producer warpgroup, where it was measured (with the
  // producer, forming C·Bᵀ at Q = 64, its consumers' spills grew from 136
  // to 152 bytes; not measured).
  const bool tmaRegisterLoads =
      cfg["tma_register_loads"] > 0 ||
      (cfg["tma_register_loads"] < 0 && cfg["CB_STORED"] != 0 &&
       !producerWarpgroup(cfg));
  for (const char *target : {"sm_90a", "sm_100a", "sm_103a"})
    hint(target, "tma_register_loads", tmaRegisterLoads ? 1 : 0);
  // Addresses recomputed per loop iteration: no spills at 128 registers
  // (24 bytes without) and 1-2% faster on the H200 with the state dimension
  // in loops (N_MAX = 0); 1.4% slower with it unrolled (N_MAX = 64), so
  // there it stays off (bench/results/2026-11-30-refresh-in-loops.md). On
  // sm_100a/sm_103a too, not measured: 116 registers instead of 123, no
  // spills either way.
  // With one block of tokens per chunk (oneBlock, above) sm_90a keeps it off
  // (no spills at 3 CTAs per SM without it: 161 registers; 16 bytes with).
  // At 128-token rows (-1: off) registers are capped at 168 either way (3
  // CTAs per SM), and re-reading the parameters only adds instructions: on
  // an H100 compute_out was 4.3% faster without it at b=1 L=65536 h=80
  // n=128 (0.852 -> 0.815 ms), 3.4% at L=16384, 1.6% at b=4, 1.2% at
  // n=256, level at L=4096; ptxas spilled 632 bytes instead of 516
  // (bench/results/2026-12-06-h100-block-m-128-knobs.md; 552 and 428
  // since the parity bits were packed, 536 and 460 with prologue_early).
  // sm_100a/sm_103a take the same rule, not measured (2 CTAs per SM there
  // at 128 rows).
  const bool refresh =
      cfg["refresh_in_loops"] > 0 || (cfg["refresh_in_loops"] < 0 && BM <= 64);
  if (refresh && cfg["N_MAX"] == 0) {
    if (!oneBlock)
      hint("sm_90a", "refresh_in_loops", 1);
    for (const char *target : {"sm_100a", "sm_103a"})
      hint(target, "refresh_in_loops", 1);
  }

  // Heads vary fastest: the programs running at once share their blocks of
  // C and B (read from L2 instead of once per head from memory).
  auto rh = program_id(0), pb = program_id(1), bi = program_id(2);
  auto H = dim(x, 2), G = dim(B, 2), N = dim(B, 3);
  auto r = rh / H, hi = rh % H, gi = hi / (H / G);
  auto c = r / blocksPerChunk; // the chunk of this block of tokens
  auto numK = (N + (BK - 1)) / BK;

  Tile acsT = load(acs, {bi, hi, r}, {drop, drop, BM});
  // The diagonal block's source tokens are this block's own: their dt and
  // x (the first reads of them anywhere, unless D x_t loads x) are
  // prefetched into L2 here, so that the diagonal block, last, finds them
  // there instead of waiting a DRAM round trip where it starts (ncu: its
  // first use of dt_s and Acs_s was 6.9% of compute_out's stall samples).
  // On the H200 (tessel-tune, 4 rounds) compute_out 0.2-3.5% faster at b=1
  // L=65536 n=128 and 256, b=4 and L=16384, 1 of 13 comparisons 3.6%
  // slower; dt alone, or the whole chunk's dt, Acs and x, were slower
  // (bench/results/2026-12-04-descriptors-and-prefetch.md). -1: on where
  // it was measured to pay, reading chunk_cb's blocks (CB_STORED) at
  // Q = 256. At Q = 128 and 64 it cost: without it compute_out was 13%
  // faster on an H100 at b=1 L=65536 h=80 n=128 Q=128 (0.934 -> 0.813 ms),
  // 7% at b=4 L=65536 h=8 n=256 Q=128 (0.644 -> 0.599) and 5% at b=1
  // L=65536 h=80 n=128 Q=64 (0.975 -> 0.924; bench/results/
  // 2026-12-06-h100.md). Not measured on the H200 at Q < 256.
  // With split_diagonal 2 (below) the diagonal block is the last iteration
  // of the loop over the chunk's blocks, its copies issued an iteration
  // ahead like the others': there the prefetch only added instructions and
  // requests. Without it compute_out was 1.3-1.7% faster on an H100 at b=1
  // L=65536 and 16384 h=80 n=128 Q=256 (0.886 -> 0.873 ms, 0.230 ->
  // 0.226), 1.4% at b=4, 3.7% at L=4096 (0.068 -> 0.065;
  // bench/results/2026-12-06-prefetch-l2-split-ab.txt). Not measured on
  // the H200.
  const int64_t splitMode = cfg["split_diagonal"] >= 0 ? cfg["split_diagonal"]
                            : Q >= 256                 ? 2
                                                       : 0;
  // (Source blocks may be smaller than the row block: the factors then run
  // alike over the row block's source blocks on its diagonal, through its
  // last token.)
  const bool splitDiagonal =
      splitMode != 0 && stored && !ws && BM <= cbZeroSpan(Q);
  const bool wholeChunkSplit = splitDiagonal && splitMode == 2;
  if (cfg["prefetch_l2"] > 0 ||
      (cfg["prefetch_l2"] < 0 && cfg["CB_STORED"] != 0 && Q >= 256 &&
       !wholeChunkSplit)) {
    prefetch(dt, {bi, hi, r}, {1, 1, BM});
    prefetch(x, {bi, r, hi, pb}, {1, BM, 1, BP});
  }
  std::optional<Tile> seqT;
  if (seqVariant)
    seqT = if_(
        hasSeqIdx != 0, [&] { return load(seqIdx, {bi, r}, {drop, BM}); },
        [&] { return zeros({BM}, DType::i32); });

  // N_MAX > 0: n <= N_MAX (the caller's promise: with a larger n the state
  // blocks past N_MAX would be dropped; libtessel_mamba2 picks N_MAX from
  // n), so the state dimension
  // is SB = N_MAX / BK blocks, known when the kernel is traced. C's blocks
  // are then loaded once, before the loops (they stay in shared memory for
  // every product that reads them), and the products over the state
  // dimension are unrolled, so that the loop over source blocks prefetches
  // all of its B blocks an iteration ahead. 0: any n, walked by loops.
  const int64_t SB = cfg["N_MAX"] / BK;
  std::vector<Tile> Cres;
  for (int64_t k = 0; k < SB; ++k)
    Cres.push_back(load(C, {bi, r, gi, k}, {drop, BM, drop, BK}));
  // Σ_k C_k · (T_k)ᵀ over the state dimension, T_k the k-th block of a tile
  // whose rows `rowsOf` loads.
  auto overState = [&](Tile acc, auto rowsOf) {
    if (SB > 0) {
      for (int64_t k = 0; k < SB; ++k)
        acc = mma(Cres[k], transpose(rowsOf(ScalarArg(k))), acc);
      return acc;
    }
    return for_range({0, numK}, acc, [&](Scalar k, Tile a) {
      Tile Ck = load(C, {bi, r, gi, k}, {drop, BM, drop, BK});
      return mma(Ck, transpose(rowsOf(ScalarArg(k))), a);
    });
  };

  // D x_t. has_D: 0 none, 1 one D per head (the view's stride along p is 0),
  // 2 one per (head, p).
  // fold_d, one per head: added to the diagonal entries of the diagonal
  // block's P (P_tt + D), so that its mma with x_s (= x_t there) adds D x_t:
  // no x_t loaded into registers, widened and scaled (ncu: 177 of
  // compute_out's 1215 instructions per warp, and x_t's 16 loads and their
  // addresses) for a compare and select per entry of one block: compute_out
  // 5-8% faster on the H200 (0.923 -> 0.871 ms at b=1 L=65536 h=80 n=128;
  // bench/results/2026-12-04-fold-d.md). D then goes through x's 16-bit type
  // (P's): D and P_tt + D are rounded to it (in the packed path), two
  // roundings that D x_t did not have.
  // With fold_d, D per (head, p) (has_D 2) loads x_t after the state term,
  // in a branch only that case takes (its wait at the branch's join, below,
  // not measured: the benchmark's D is per head).
  // Without fold_d, x_t is loaded before the state term's copies are waited
  // for (its latency then overlaps theirs) and D x_t added to the
  // accumulator the intra-chunk loop starts from: compute_out 3-4% faster on
  // the H200 (at L = 65536, n = 64 and 128) than with x_t loaded after the
  // loop, where every CTA waited for it (bench/results/2026-11-30-early-
  // dx.md). Loaded whether or not D is given (without D it is multiplied by
  // zero; the diagonal block reads the same tokens, so they are in L2 either
  // way): yielded by an if_ on has_D, the tile's 16-bit elements were
  // unpacked at the branch's join, right after the loads, and every warp
  // waited there for them (ncu: 9.4% of compute_out's stall samples on those
  // PRMTs); loaded unconditionally, they are first used after the state
  // term.
  // -1: on where measured, reading chunk_cb's blocks (CB_STORED; forming
  // C·Bᵀ without the producer warpgroup ptxas spilled 152 bytes with it, none
  // without; with the producer, at Q = 64, 0 bytes instead of 136: not
  // measured).
  const bool foldD =
      cfg["fold_d"] > 0 || (cfg["fold_d"] < 0 && cfg["CB_STORED"] != 0);
  // D of the head where folded into the diagonal, else 0 (a 1 x 1 tile).
  Tile dDiagonal = zeros({1, 1});
  if (foldD)
    dDiagonal = if_(
        hasD == 1,
        [&] { return reshape(load(D, {hi, 0}, {drop, 1}), {1, 1}); },
        [&] { return zeros({1, 1}); });
  std::optional<Tile> xt, dRow;
  if (!foldD) {
    xt = load(x, {bi, r, hi, pb}, {drop, BM, drop, BP});
    dRow = if_(
        hasD != 0, [&] { return load(D, {hi, pb}, {drop, BP}); },
        [&] { return zeros({BP}); });
  }

  // split_diagonal's test (below, where the loops are): with prologue_early
  // read before the state term, so that the intra-chunk loop's first copies
  // can go out where the state term starts, under the branches' conditions
  // (without it, read there, after the state term: on an H100 compute_out
  // was 1.7% slower with the loads before it and the copies where the loop
  // starts).
  constexpr double kSplitSpan = 64.0;
  // (Acs_l as a one-element tile in the factors: a scalar there was splat
  // once for the rows and the columns alike, and the columns then took the
  // rows' layout, moved through shared memory.)
  std::optional<Tile> acsLast;
  std::optional<Scalar> spanFits;
  auto spanTest = [&] {
    if (!splitDiagonal)
      return;
    acsLast = load(acs, {bi, hi, r * BM + (BM - 1)}, {drop, drop, 1},
                   {.padding = Padding::nan});
    spanFits = item(load(acs, {bi, hi, r * BM}, {drop, drop, 1})) -
                   item(*acsLast) <=
               kSplitSpan;
  };
  if (prologueEarly)
    spanTest();
  const Scalar seqGiven = hasSeqIdx != 0;

  // The state term: C_t · S_cᵀ over the state dimension, block by block.
  Tile cs;
  const int64_t K = cfg["SEGMENT"];
  if (K == 1) {
    cs = overState(zeros({BM, BP}), [&](const ScalarArg &k) {
      return load(states, {bi, c, hi, pb, k}, {drop, drop, drop, BP, BK});
    });
  } else {
    // SEGMENT K > 1: S_c = decay_c T_s + R_c (Kernels.h, segmentVariant),
    // T_s the state entering c's segment (slot 2 first of `slots`, first
    // the segment's first chunk) and R_c the state entering c from the
    // segment's own tokens (slot 2 c + 1): T_s's blocks then R_c's (R_c's
    // only after the segment's first chunk), the sum scaled by decay_c
    // between them. With the state dimension in loops one loop over both,
    // so that their copies share one ring (two loops took a second ring
    // above the intra-chunk loop's first copies, which prologue_early
    // issues under the first: 2 CTAs per SM instead of 3).
    Scalar first = c - c % K;
    Scalar withR = c != first;
    Scalar kept =
        where(withR, item(load(decay, {bi, hi, c}, {drop, drop, 1})), 1.0f);
    if (SB > 0) {
      // (The state dimension unrolled, C resident: two products, the
      // second only past the segment's first chunk.)
      auto slotRows = [&](const Scalar &slot) {
        return [&, slot](const ScalarArg &k) {
          return load(slots, {bi, slot, hi, pb, k}, {drop, drop, drop, BP, BK});
        };
      };
      cs = overState(zeros({BM, BP}), slotRows(2 * first));
      cs = if_(
          withR, [&] { return overState(cs * kept, slotRows(2 * c + 1)); },
          [&] { return cs; });
    } else if (cfg["segment_steps"]) {
      // C's block copied once per step of the state dimension with R_c's
      // and T_s's (in the segment's first chunk R's slot is T_s's own and
      // T_s's factor 0), then
      // - 1: both products, C_t · R_cᵀ with C from shared memory, then
      //   (decay_c C_t) · T_sᵀ with the scaled C from registers (one
      //   rounding, in f32);
      // - 2: one product on S_c's block formed in place: each thread adds
      //   decay_c T to R in f32 where the copy of R landed and writes the
      //   rounded sum back into that buffer, swizzled as the mma reads it
      //   (operand_in_place; no scratch buffer).
      const bool inPlace = cfg["segment_steps"] == 2;
      Scalar slotR = where(withR, 2 * c + 1, 2 * first);
      Scalar scaleT = where(withR, kept, 0.0f);
      cs = for_range({0, numK}, zeros({BM, BP}), [&](Scalar k, Tile a) {
        Tile Rk =
            load(slots, {bi, slotR, hi, pb, k}, {drop, drop, drop, BP, BK});
        Tile Tk =
            load(slots, {bi, 2 * first, hi, pb, k}, {drop, drop, drop, BP, BK});
        auto loadC = [&] {
          return load(C, {bi, r, gi, k}, {drop, BM, drop, BK});
        };
        if (inPlace) {
          Tile Sk = cast<X>(fma(cast<float>(Tk), scaleT, cast<float>(Rk)));
          return mma(loadC(), transpose(Sk), a);
        }
        Tile Ck = loadC();
        a = mma(Ck, transpose(Rk), a);
        return mma(cast<X>(cast<float>(Ck) * scaleT), transpose(Tk), a);
      });
    } else {
      cs = for_range(
          {0, where(withR, 2 * numK, numK)}, zeros({BM, BP}),
          [&](Scalar kk, Tile a) {
            Scalar second = kk >= numK;
            Scalar k = kk - where(second, numK, 0);
            Scalar slot = where(second, 2 * c + 1, 2 * first);
            Tile Ck = load(C, {bi, r, gi, k}, {drop, BM, drop, BK});
            Tile Sk =
                load(slots, {bi, slot, hi, pb, k}, {drop, drop, drop, BP, BK});
            // segment_scale 1: the accumulator scaled by decay_c once, in a
            // uniform branch at the first of R_c's steps, instead of by
            // where(first of R_c's steps, decay_c, 1) in every step (64 FMUL
            // per thread per step: ncu on the H200 counted 39 M of the 69 M
            // warp instructions the segmented state term adds, bench/
            // results/2026-12-07-segment-h200.md).
            if (cfg["segment_scale"] > 0)
              return mma(Ck, transpose(Sk),
                         if_(
                             kk == numK, [&] { return a * kept; },
                             [&] { return a; }));
            return mma(Ck, transpose(Sk), a * where(kk == numK, kept, 1.0f));
          });
    }
  }
  // It reaches the tokens that continue the sequence of the token before the
  // chunk (sequence 0 before token 0).
  Tile decayT = exp2(acsT);
  if (seqVariant) {
    Tile seqPrev = if_(
        (hasSeqIdx != 0) && (c > 0),
        [&] { return load(seqIdx, {bi, c * Q - 1}, {drop, 1}); },
        [&] { return zeros({1}, DType::i32); });
    decayT = where(seqT.value() == seqPrev, decayT, 0.0f);
  }
  Tile scale = reshape(decayT, {BM, 1});
  // The state term scaled, plus D x_t from x_t and D's row. (One rounding
  // fewer, and an instruction, per element with fma.)
  auto plusDx = [&](const Tile &xRows, const Tile &dp) {
    return fma(cs, scale, cast<float>(xRows) * reshape(dp, {1, BP}));
  };
  Tile acc0 = foldD ? if_(
                          hasD == 2,
                          [&] {
                            return plusDx(
                                load(x, {bi, r, hi, pb}, {drop, BM, drop, BP}),
                                load(D, {hi, pb}, {drop, BP}));
                          },
                          [&] { return cs * scale; })
                    : plusDx(*xt, *dRow);

  // The intra-chunk term, one block of BS source tokens at a time (s counts
  // blocks of BS tokens), up to and including the diagonal.
  const int64_t sourcePerBlock = BM / BS;
  Tile acsCol = reshape(acsT, {BM, 1});
  // With chunk_cb's blocks (and split_decay), the source blocks wholly
  // before this block of tokens first, without seq_idx: every pair there is
  // causal, and the decay factors through the first token t0 of the block,
  //   exp2(Acs_t - Acs_s) = exp2(Acs_t - Acs_t0) exp2(Acs_t0 - Acs_s),
  // both exponents <= 0 (Acs does not grow along a chunk): 64 exp2 per
  // block instead of 4096, no compares, no selects. Reading the stored
  // blocks compute_out keeps 62-67% of its issue slots busy (ncu) and waits
  // on its copies and mmas as much (2026-12-01-instruction-mix.md); on the
  // H200 this was 5% faster at Q = 256 (compute_out 1.280 -> 1.212 ms at
  // b=1 L=65536 h=80 n=128, 0.327 -> 0.310 at L=16384, 1.475 -> 1.404 at
  // n=256), 2% slower at Q = 128 (one block of two is off-diagonal; again
  // at d8707b1) and level with N_MAX = 64, where it spills 48 bytes
  // (bench/results/2026-12-01-chunk-cb.md). -1: on at Q = 256 with the state
  // dimension in loops, without a producer warpgroup (where it was
  // measured; with one, the producer evaluates the loop bound's branch on
  // has_seq_idx itself, not measured).
  const bool splitDecay =
      stored && (cfg["split_decay"] > 0 ||
                 (cfg["split_decay"] < 0 && !ws && Q >= 256 &&
                  cfg["N_MAX"] == 0));
  const Scalar chunkStart = c * (Q / BS); // the chunk's first source block
  // C·Bᵀ of source block s as chunk_cb stored it (transposed: B_s·C_tᵀ, one
  // block per source block and block of tokens of the chunk), transposed
  // back into the accumulator layout.
  auto storedBlock16 = [&](const Scalar &s) {
    return transpose(load(cbt, {bi, c, gi, s - chunkStart, r % blocksPerChunk},
                          {drop, drop, drop, BS, BM}));
  };
  auto storedBlock = [&](const Scalar &s) {
    return cast<float>(storedBlock16(s));
  };
  // split_diagonal: reading chunk_cb's blocks without seq_idx, the decay of
  // the blocks up to and including the diagonal as a row and a column
  // factor through this block's last token l:
  //   exp2(Acs_t - Acs_s) = exp2(Acs_t - Acs_l) exp2(Acs_l - Acs_s),
  // the column factor at most 1 (times dt_s), the row factor at most
  // 2^(Acs_t0 - Acs_l) (Acs does not grow along a chunk, as split_decay
  // assumes too). The entries of future tokens stay the 0 chunk_cb stored:
  // both factors are finite. So where this block's decay spans at most
  // kSplitSpan (in log2 units; the whole block is in the sequence: a token
  // past L reads NaN, and the comparison fails), a block is scaled by 2 x
  // 64 factors instead of 4096 exp2, minimums and products: in x's 16-bit
  // pairs with packed_decay in bf16, where 2^kSplitSpan fits (in f16 it
  // does not: f32 there), else in f32. A CTA whose block spans more (a
  // decay below 2^-64 within the row block) takes the exact path, the branch
  // uniform (one Acs per CTA). Not with the producer warpgroup: it would
  // have to evaluate the branch, on a loaded value. (At 2 a far block's
  // column factor may flush to 0 below 2^-126, where the row factor would
  // have scaled it by at most 2^64: an error below 2^-62 |C·B dt|.)
  // sm_100a/sm_103a: compiled (112 registers, no spills), not run.
  // 2: every block of the chunk up to the diagonal in that one loop (the
  // diagonal block's copies then issued an iteration ahead, like the
  // others', and one loop's setup instead of two); 1: the masked loop
  // alone (the diagonal block, and at Q < 256 the blocks before it).
  // Measured on one H100 (bench/results/2026-12-06-split-diagonal.md),
  // chunk_cb + compute_out: at Q = 256 2 was 3-3.5% faster (0.918 -> 0.887
  // ms at b=1 L=65536 h=80 n=128, 0.237 -> 0.231 at L=16384, level at
  // L=4096), 1 2% slower; at Q = 128 and 64 both 1% slower. -1: 2 at
  // Q = 256, else off.
  // (splitMode, splitDiagonal and wholeChunkSplit: above, where the L2
  // prefetch is decided.)
  Scalar firstMasked = chunkStart;
  Tile acc1 = acc0;
  std::function<Tile()> beforeDiagonal = [&] { return acc0; };
  if (splitDecay) {
    Scalar offDiagonal = r * sourcePerBlock;
    firstMasked = whenSeq(
        hasSeqIdx != 0, [&] { return chunkStart; },
        [&] { return offDiagonal; });
    // packed_decay: the block scaled in x's 16-bit type, two elements per
    // instruction (mul.rn.bf16x2 or mul.rn.f16x2 on the block as chunk_cb
    // stored it), instead of widened to f32, scaled and narrowed again: the
    // factors and each product rounded to 16 bits (four roundings of each
    // entry of P instead of one). 2.3-3.2% faster on the H200 at Q = 256
    // (bench/results/2026-12-02-packed-decay.md).
    const bool packed = cfg["packed_decay"] != 0;
    // (Called below, within this function, where the references it
    // captures are alive; packed, of this block, by value. Its row factor
    // is traced where it is called, so that at split_diagonal 2 the
    // factored path does not compute it.)
    beforeDiagonal = [&, packed] {
      Tile acsT0 = load(acs, {bi, hi, r * BM}, {drop, drop, 1});
      Tile rowF = reshape(exp2(acsT - acsT0), {BM, 1});
      Tile rowFactor = packed ? cast<X>(rowF) : rowF;
      return for_range({chunkStart, firstMasked}, acc0,
                       [&](Scalar s, Tile acc) {
        // Acs, dt and x_s are read first (x_s: its copy is issued before the
        // stored block's wait either way), Acs and dt used after the stored
        // block's copy is waited for and scaled by the rows: their latency
        // then overlaps that wait (used at once, ncu found 2.7% of
        // compute_out's stall samples on the first use of Acs).
        Tile acsS = load(acs, {bi, hi, s}, {drop, drop, BS});
        Tile dtS = load(dt, {bi, hi, s}, {drop, drop, BS});
        Tile xs = load(x, {bi, s, hi, pb}, {drop, BS, drop, BP});
        Tile rows = (packed ? storedBlock16(s) : storedBlock(s)) * rowFactor;
        Tile colF = exp2(acsT0 - acsS) * dtS;
        Tile p = rows * reshape(packed ? cast<X>(colF) : colF, {1, BS});
        return mma(packed ? p : cast<X>(p), xs, acc);
      });
    };
    // (split_diagonal 2 runs it only on the exact path: where the span is
    // too wide or the block reaches past L. Under seq_idx firstMasked is
    // chunkStart, so there acc1 = acc0 is what the loop would give.)
    if (!wholeChunkSplit)
      acc1 = beforeDiagonal();
  }
  // The blocks from firstMasked up to and including the diagonal, in two
  // loops when reading chunk_cb's blocks: one with seq_idx (`sequences`),
  // one without (and with split_diagonal a third, factored, which at 2
  // starts from the chunk's first block instead). Without seq_idx, with row
  // blocks of at most cbZeroSpan(Q) tokens, no mask is needed: chunk_cb
  // stores the entries of future tokens
  // in such a block as 0, and the decay's exponent, at most 0 for every
  // kept entry (Acs does not grow along a chunk: A <= 0 and dt >= 0, as
  // MAMBA2.md's model has them; mamba_ssm's chunk_scan clamps the same
  // way), is clamped to 0 so that those entries stay 0 (exp2 of their
  // positive exponent may overflow). Without split_decay (Q < 256, or
  // N_MAX > 0) the blocks before the diagonal go through this loop too.
  // With packed_decay the block is scaled in 16-bit pairs, as the blocks
  // before it are. That saves the mask's compares and selects and the
  // block's widening: compute_out's diagonal block was 28% of its
  // instructions, 400 per warp, now 251 (ncu on the H200).
  if (!prologueEarly)
    spanTest();
  auto maskedBlocks = [&](bool sequences, bool split = false,
                          std::optional<Tile> start = std::nullopt,
                          std::optional<Scalar> from = std::nullopt) {
    const bool packedSplit =
        std::is_same_v<X, bf16> && cfg["packed_decay"] != 0;
    std::optional<Tile> rowF;
    if (split) {
      rowF = exp2(acsCol - reshape(*acsLast, {1, 1}));
      if (packedSplit)
        rowF = cast<X>(*rowF);
    }
    return for_range(
        {from ? *from : firstMasked, (r + 1) * sourcePerBlock},
        start ? *start : acc1, [&](Scalar s, Tile acc) {
          // The loads that do not feed the mma first: their latency then
          // overlaps C·Bᵀ (nothing moves them across its waits).
          Tile acsS = load(acs, {bi, hi, s}, {drop, drop, BS});
          Tile dtS = load(dt, {bi, hi, s}, {drop, drop, BS});
          auto causal = [&] {
            return iota({BM, BS}, 0) + r * BM >= iota({BM, BS}, 1) + s * BS;
          };
          // P plus D of the head on its diagonal entries (fold_d; P itself
          // without it). On every block of the loop: where it also runs over
          // blocks before the diagonal (Q < 256, N_MAX, seq_idx), a branch
          // that left those blocks alone was 2.5-3% slower on the H200 at
          // Q = 128 (bench/results/2026-12-04-fold-d-diagonal-branch-ab.txt).
          auto withD = [&](const Tile &p) {
            if (!foldD)
              return p;
            Tile onDiagonal =
                iota({BM, BS}, 0) + r * BM == iota({BM, BS}, 1) + s * BS;
            // -0 off the diagonal: x + -0 is x exactly, so the adds of
            // register pairs that hold no diagonal entry fold away (with
            // +0 they stayed: x + +0 turns -0 into +0).
            return p + where(onDiagonal, cast(dDiagonal, p.dtype()), -0.0f);
          };
          auto sameSequence = [&](const Tile &seqS) {
            return reshape(seqT.value(), {BM, 1}) == reshape(seqS, {1, BS});
          };
          if (split) {
            Tile colF = reshape(exp2(*acsLast - acsS) * dtS, {1, BS});
            Tile p = packedSplit ? storedBlock16(s) * cast<X>(colF) * *rowF
                                 : cast<X>(storedBlock(s) * colF * *rowF);
            Tile xs = load(x, {bi, s, hi, pb}, {drop, BS, drop, BP});
            return mma(withD(p), xs, acc);
          }
          if (stored && !sequences && BM <= cbZeroSpan(Q)) {
            // (The loop runs over the diagonal block alone where
            // split_decay takes the blocks before it.)
            // (In f16 a dt past 65504 would make the factor inf, and a
            // future token's 0 entry NaN: clamped to f16's range.)
            auto inRange = [&](Tile t) {
              if constexpr (std::is_same_v<X, f16>)
                t = minimum(t, 65504.0f);
              return t;
            };
            Tile exponent = acsCol - reshape(acsS, {1, BS});
            Tile p;
            // (Tried and not kept, bench/results/2026-12-04-saturated-
            // decay.md: the product exp2(Acs_t - Acs_s) dt_s narrowed with
            // saturating_cast instead of the exponent clamped, 32 minimums
            // per thread fewer and level on the H200, but wrong where a
            // future token's exponent overflows and its dt is 0 (padding,
            // or a clamped dt): inf * 0 is NaN, which no saturation turns
            // into the 0 the clamp gives. And dt folded into the exponent,
            // exp2(Acs_t + log2(dt_s) - Acs_s) with fast_log2, 44
            // instructions per warp fewer, 1.5-2% slower with the column's
            // log2 in lanes and warp shuffles, level to 2% slower with 16
            // log2 per thread.)
            if (cfg["packed_exp2"] != 0 && cfg["packed_decay"] != 0) {
              // The exponent rounded to x's 16-bit type, and the clamp, the
              // exp2 and the products in pairs there (min.NaN.bf16x2,
              // ex2.approx.ftz.bf16x2, mul.rn.bf16x2): 16 instructions each
              // per thread instead of 32 f32 ones.
              p = storedBlock16(s) *
                  exp2(minimum(cast<X>(exponent), 0.0f)) *
                  cast<X>(inRange(reshape(dtS, {1, BS})));
            } else {
              Tile decay = inRange(exp2(minimum(exponent, 0.0f)) *
                                   reshape(dtS, {1, BS}));
              p = cfg["packed_decay"] != 0
                      ? storedBlock16(s) * cast<X>(decay)
                      : cast<X>(storedBlock(s) * decay);
            }
            Tile xs = load(x, {bi, s, hi, pb}, {drop, BS, drop, BP});
            return mma(withD(p), xs, acc);
          }
          if (stored) {
            // (The source tokens' sequences are read after the stored
            // block's wait. Read with Acs and dt instead, compute_out was
            // level on the H200 at Q = 256, but at Q = 64 ptxas spilled 100
            // bytes, not measured.)
            // Entries of future tokens may overflow exp2, and with 128-token
            // row blocks the stored blocks may hold entries chunk_cb never
            // wrote: the select comes after the product, so that they are
            // dropped. The mask is formed beside its select: a tile of
            // predicates alive across a branch was packed by ptxas, short of
            // predicate registers, into bits of general registers (109
            // instructions per warp on the H200, then a bit test per
            // element).
            Tile v = storedBlock(s) * exp2(acsCol - reshape(acsS, {1, BS})) *
                     reshape(dtS, {1, BS});
            Tile p = sequences
                         ? where(causal() && sameSequence(load(seqIdx, {bi, s},
                                                               {drop, BS})),
                                 v, 0.0f)
                         : where(causal(), v, 0.0f);
            Tile xs = load(x, {bi, s, hi, pb}, {drop, BS, drop, BP});
            return mma(cast<X>(withD(p)), xs, acc);
          }
          // (Forming C·Bᵀ with a producer warpgroup, the select in the
          // branches spilled more at Q = 64: 180 bytes each way against 136.)
          Tile causalMask = causal();
          Tile mask = whenSeq(
              hasSeqIdx != 0,
              [&] {
                return causalMask &&
                       sameSequence(load(seqIdx, {bi, s}, {drop, BS}));
              },
              [&] { return causalMask; });
          Tile cb = overState(zeros({BM, BS}), [&](const ScalarArg &k) {
            return load(B, {bi, s, gi, k}, {drop, BS, drop, BK});
          });
          // Masked entries may overflow exp2; the select drops them.
          Tile w = where(mask, exp2(acsCol - reshape(acsS, {1, BS})), 0.0f) *
                   reshape(dtS, {1, BS});
          Tile xs = load(x, {bi, s, hi, pb}, {drop, BS, drop, BP});
          return mma(cast<X>(withD(cb * w)), xs, acc);
        });
  };
  Tile out = !stored ? maskedBlocks(true)
                     : whenSeq(
                           seqGiven, [&] { return maskedBlocks(true); },
                           [&] {
                             if (!splitDiagonal)
                               return maskedBlocks(false);
                             // At 2 the factored loop starts from the
                             // chunk's first block, and the exact path runs
                             // the blocks before the diagonal first.
                             return if_(
                                 *spanFits,
                                 [&] {
                                   return wholeChunkSplit
                                              ? maskedBlocks(false, true, acc0,
                                                             chunkStart)
                                              : maskedBlocks(false, true);
                                 },
                                 [&] {
                                   return maskedBlocks(
                                       false, false,
                                       wholeChunkSplit ? beforeDiagonal()
                                                       : acc1);
                                 });
                           });

  out = if_(
      hasZ != 0,
      [&] {
        Tile zt = load(z, {bi, r, hi, pb}, {drop, BM, drop, BP});
        return out * silu(cast<float>(zt));
      },
      [&] { return out; });
  store(y, {bi, r, hi, pb}, cast<X>(out),
        {.squeeze = {0, 2}, .tma = tmaStore});
}

const std::array<std::string, 16> kArgNames = {
    "x",      "B",           "C",
    "dt",     "dA_cumsum",   "seq_idx",
    "states", "state_slots", "segment_decay",
    "D",      "z",           "y",
    "CBt",    "has_seq_idx", "has_D",
    "has_z"}; // has_D: 0, 1 (h), 2 (h, p)

const Register registration{{
    .name = "compute_out",
    .summary = "Mamba-2 outputs: C·Bᵀ with the causal decay mask times dt·x, "
               "plus C·Sᵀ, D and z",
    .params =
        {
            variant("Q", {64, 128, 256}, 256, "chunk length"),
            segmentVariant(),
            xDtypeVariant("element type of x, B, C, z and y"),
            tunable("BLOCK_M", {32, 64, 128}, 64,
                    "tokens per program (by variant: 128 at Q = 256 with "
                    "CB_STORED and SEQ_IDX 0, else 64)"),
            tunable("BLOCK_P", {32, 64, 128}, 64,
                    "head-dim columns per program"),
            // Smaller source blocks: 16-22% slower at 32, 50-70% at 16 on
            // the H200 (bench/results/2026-11-30-compute-out-source-block.md).
            // 128 (BLOCK_M 128): 133 KB of shared memory, one CTA per SM,
            // 4-6x slower on an H100 (bench/results/2026-12-06-h100-
            // compute-out-block-m.md).
            tunable("BLOCK_S", {0, 16, 32, 64, 128}, 0,
                    "source tokens per step of the intra-chunk loop (a "
                    "divisor of BLOCK_M; 0: BLOCK_M, at most 64)"),
            tunable("BLOCK_K", {16, 32, 64, 128}, 64,
                    "state dimension per mma step"),
            tunable("num_warps", {4, 8}, 4, "warps per program"),
            // 64: compute_out 1.52 -> 1.37 ms at b=1 L=65536 h=80 n=64 on
            // the H200; 128 (73728 bytes of shared memory: 3 CTAs per SM)
            // was 2-4% slower than the loops at n=128 (bench/results/
            // 2026-11-30-compute-out-experiments.md).
            variant("N_MAX", {0, 64}, 0,
                    "n is at most this (C kept in shared memory, the state "
                    "dimension unrolled); 0: any n"),
            tunable("split_decay", {-1, 0, 1}, -1,
                    "with CB_STORED and without seq_idx, the source blocks "
                    "before the diagonal with the decay as a row and a "
                    "column factor, no mask (-1: at Q = 256 with N_MAX = "
                    "0 and no producer warpgroup; on the H200 5% faster "
                    "there)"),
            // Off: on the H200 level to 1% slower (compute_out 0.765 ->
            // 0.774 ms at Q=128, 0.759 -> 0.763 at n=64, level at the
            // headline and n=256), and less accurate (ex2.approx.bf16x2:
            // 2^-7; bench/results/2026-12-04-packed-exp2-ab.txt).
            tunable("packed_exp2", {0, 1}, 0,
                    "with packed_decay, the diagonal block's decay "
                    "exp2(min(Acs_t - Acs_s, 0)) dt in x's 16-bit type, two "
                    "per instruction (ex2.approx.ftz.bf16x2 / f16x2), "
                    "instead of in f32 and rounded"),
            tunable("packed_decay", {0, 1}, 1,
                    "the blocks before the diagonal (split_decay) and the "
                    "unmasked ones up to it scaled in 16-bit pairs "
                    "(mul.rn.bf16x2 / f16x2) instead of in f32"),
            variant("CB_STORED", {0, 1}, 1,
                    "C·Bᵀ read from chunk_cb's blocks (CBt) instead of "
                    "formed here for every head"),
            // With seq_idx every source block goes through the masked f32
            // loop, which at 128-token rows holds nearly all of ptxas's
            // spills: there compute_out was 43-45% slower than with
            // 64-token rows on an H100 (1.11 -> 1.59 ms at b=1 L=65536 h=80
            // n=128 with 8 sequences per row, bench/results/2026-12-06-
            // block-m-128-default.md).
            variant("SEQ_IDX", {0, 1}, 0,
                    "the caller may pass seq_idx: 1 compiles the packed-"
                    "sequence code (and honours has_seq_idx), 0 compiles "
                    "none of it (has_seq_idx must be 0); at Q = 256 with "
                    "CB_STORED also the defaults (64-token rows under 1)"),
            // 10% faster on the H200 with the TMA-staged operands (2.55 ->
            // 2.29 ms at b=1 L=65536 h=80 n=128: 2026-11-29-tma.md).
            tunable("wgmma", {0, 1}, 1,
                    "warpgroup MMA on sm_90a (reading TMA-staged operands "
                    "where it can)"),
            // From registers: 8 KB less shared memory, which lets 4 CTAs
            // fit per SM (with occupancy 4): 7-12% faster on the H200;
            // with 3 CTAs it was 2% slower than staging
            // (bench/results/2026-11-29-wgmma-register-a.md).
            // Not measured (no Blackwell GPU here); 0 is the fallback
            // that stages A in shared memory.
            tunable("tcgen05_tmem_a", {0, 1}, 1,
                    "the masked C·Bᵀ to the P·x tcgen05.mma through tensor "
                    "memory (1) or shared memory (0), sm_100a/sm_103a"),
            tunable("wgmma_register_a", {0, 1}, 1,
                    "the masked C·Bᵀ to the P·x wgmma from registers (1) or "
                    "through shared memory (0)"),
            tunable("wgmma_interleave", {0, 1}, 0,
                    "P·x's wgmma K step by K step, each step's part of P "
                    "computed right before it (sm_90a; on the H200 3-6% "
                    "slower, bench/results/2026-12-05-eleventh-gpu.md)"),
            // The state term's C and chunk state (from DRAM: its first
            // wait was 9.3% of compute_out's stall samples, 2026-12-05-
            // compute-out-trials.md), issued some 250 instructions earlier
            // per warp.
            earlyCopiesTunable(1, "the state term's C and chunk state; on "
                                  "the H200 1.5-3% faster, bench/results/"
                                  "2026-12-05-eleventh-gpu.md"),
            tunable("wgmma_defer_wait", {0, 1, 2}, 0,
                    "each loop's wgmma group waited for in the next "
                    "iteration, before its A is pinned, with a spare ring "
                    "buffer: 1 where A is read from shared memory (the "
                    "state term), 2 also where it is computed in registers "
                    "(sm_90a; at 1 on the H200 1% slower, bench/results/"
                    "2026-12-05-eleventh-gpu.md, level on an H100; at 2, "
                    "no spills since split_diagonal, 2-4.3% slower on an "
                    "H100, 2026-12-06-defer-wait-2-ab.txt)"),
            // 4 CTAs per SM (128 registers; since refresh_in_loops no
            // spills on sm_90a, 24 bytes before; 4 fit in
            // shared memory only with wgmma_register_a and without
            // tma_store): 1.86 vs 2.01 ms with 3 (154 registers) at b=1
            // L=65536 h=80 n=128 (2026-11-29-wgmma-register-a.md); 3 beat 2
            // (238): bench/results/2026-11-29-mamba2-layouts-pipelining.md.
            tunable("occupancy", {-1, 0, 1, 2, 3, 4, 5}, -1,
                    "CTAs per SM to fit (0: ptxas decides; -1, "
                    "warp-specialised: 3 where one ring fits three times "
                    "with 4 warps, else 2; without the producer: 4 where "
                    "they fit (CB_STORED: 4 warps and tiles up to 64 x "
                    "64), else 3)"),
            tunable("prefetch_registers", {0, 16, 32}, 0,
                    "registers per thread for loads issued a block ahead"),
            tunable("tma_register_loads", {-1, 0, 1}, -1,
                    "the loops' loads into registers (Acs and dt of each "
                    "source block) copied ahead by the TMA into the rings "
                    "and read from shared memory (-1: with CB_STORED and "
                    "no producer warpgroup)"),
            // On with the producer (see warp_specialize above). Without
            // it, forming C·Bᵀ, staging y took 8 KB more shared memory
            // (57344 bytes): 3 CTAs per SM instead of 4, 6% slower; since
            // the staging lies in the rings' memory (free when y is
            // stored) 4 fit (49152 bytes), not measured; reading chunk_cb's
            // blocks 4 fit, and it pays (above).
            tunable("tma_store", {-1, 0, 1}, -1,
                    "y through shared memory and the TMA (sm_90a and "
                    "later; -1: with the producer warpgroup or CB_STORED)"),
            // 3 was 16-26% slower on the H200: the third buffer per load
            // cost a CTA per SM (bench/results/2026-11-30-pipeline-depth.md);
            // with y staged in the rings' memory 4 CTAs fit at 3 stages
            // (49408 bytes), and it was still 3-4% slower (2026-12-04-
            // epilogue-staging.md).
            stagesTunable("3: 16-26% slower on the H200"),
            tunable("refresh_in_loops", {-1, 0, 1}, -1,
                    "with N_MAX = 0: each loop iteration re-reads "
                    "the thread index and parameters (fewer registers "
                    "held; -1: with rows of at most 64 tokens)"),
            persistentTunable(0, "on the H200 0-15% slower, "
                                 "bench/results/2026-11-30-persistent.md"),
            tunable("prologue_ahead", {0, 1}, 0,
                    "with persistent: the state term's first copies for "
                    "the CTA's next program issued as its state term ends, "
                    "their buffers kept under the intra-chunk loop's rings "
                    "(1.5-1.9x the default's time on an H100: bench/"
                    "results/2026-12-06-packed-phases-and-persistent-"
                    "ahead.md)"),
            tunable("prologue_early", {-1, 0, 1}, -1,
                    "the intra-chunk loop's first copies issued with the "
                    "state term's, their buffers kept under the state "
                    "term's rings (1; 4-6% faster on an H100, bench/"
                    "results/2026-12-06-prologue-early.md), or not (0); "
                    "-1: 1 except with N_MAX > 0 (1% slower there)"),
            tunable("warp_specialize", {-1, 0, 1}, -1,
                    "the loops' TMA copies issued by a producer warpgroup "
                    "(1; with one shared ring and tma_store 1-12.5% faster "
                    "on the H200, bench/results/2026-11-30-ablation-shared-"
                    "ring.md), by the kernel's warps (0), or -1: 1 with "
                    "wgmma, CB_STORED 0 and 64-element rows in BLOCK_K or "
                    "BLOCK_P (a copy the TMA can issue), else 0. Reading "
                    "chunk_cb's blocks, with split_decay and "
                    "tma_register_loads, 8-13% slower on the H200: 3 CTAs "
                    "per SM instead of 4, bench/results/2026-12-05-pending-"
                    "gpu-checks.md"),
            tunable("ring_slots", {-1, 0, 3, 4, 5, 6, 8}, -1,
                    "warp-specialised: the buffers of the one ring all the "
                    "producer's copies share (0: a ring per load; -1: 4, "
                    "or 5 with N_MAX > 0)"),
            pdlTunable(),
            stmatrixTunable(1,
                            "level on the H200 at 64-token rows, "
                            "bench/results/2026-12-05-pending-gpu-checks.md; "
                            "at 128-token rows bf16 spills nothing with it "
                            "(24 bytes without), level to 0.5% faster on an "
                            "H100, bench/results/2026-12-07-stmatrix.md"),
            tunable("segment_steps", {0, 1, 2}, 0,
                    "with SEGMENT > 1 and the state dimension in loops, "
                    "both products of the state term in each step (1: C "
                    "copied once, scaled by the segment's factor in "
                    "registers for the second), or one product on S_c's "
                    "blocks formed where R_c's copy landed (2: R + decay "
                    "T in f32, operand_in_place), instead of one loop "
                    "over twice the steps (0). On an H100 2 was level "
                    "with 0 without prologue_early (3 CTAs per SM) and "
                    "18% slower with it (2 CTAs), bench/results/2026-12-"
                    "07-segment-steps.md; 1 is not measured"),
            tunable("segment_scale", {0, 1}, 1,
                    "with SEGMENT > 1 in one loop over T_s's and R_c's "
                    "steps (segment_steps 0), the accumulator scaled by "
                    "the segment's factor once, in a branch (1), or in "
                    "every step by a select (0). On an H100 1 took "
                    "compute_out 0.856 -> 0.849-0.851 ms at b=1 L=65536 "
                    "h=80 n=128, level at L=16384 (bench/results/2026-12-"
                    "07-scale-h100-ab.txt)"),
            tunable("fold_d", {-1, 0, 1}, -1,
                    "D of a head (has_D 1) added to the diagonal block's "
                    "diagonal entries before its mma with x, instead of D "
                    "x_t from x_t loaded into registers (-1: with "
                    "CB_STORED; on the H200 compute_out 5-8% faster there)"),
            tunable("split_diagonal", {-1, 0, 1, 2}, -1,
                    "with CB_STORED and without seq_idx, the decay as a "
                    "row and a column factor through the block's last "
                    "token where the block's decay spans at most 2^64: 1 "
                    "in the masked loop, 2 in one loop over the chunk's "
                    "blocks up to the diagonal (-1: 2 at Q = 256, else 0; "
                    "3-3.5% faster at Q = 256 on an H100, 1 2% slower, "
                    "both 1% slower at Q < 256)"),
            tunable("prefetch_l2", {-1, 0, 1}, -1,
                    "dt and x of the diagonal block (this block's own "
                    "tokens) prefetched into L2 at the start (-1: with "
                    "CB_STORED at Q = 256 where split_diagonal does not "
                    "take the diagonal into the loop over the chunk's "
                    "blocks; at Q = 64 and 128 5-13% slower on an H100, "
                    "with split_diagonal 2 1.3-3.7%)"),
        },
    // (token block x head, p block, batch)
    .grid = {{"x", 1, "BLOCK_M", "x", 2}, {"x", 3, "BLOCK_P"}, {"x", 0, ""}},
    // Tuned by tokens (batch x length), heads, groups and state size.
    .shapeKey =
        {{"bL", "x", 1, "x", 0}, {"h", "x", 2}, {"g", "B", 2}, {"n", "B", 3}},
    // A program's heads' group is h / (h / g): h a multiple of g.
    .shapeRules = {{"x", 2, "", "B", 2}},
    .build = buildForXDtype(computeOut<bf16>, computeOut<f16>, kArgNames),
    .check = [](const Config &cfg) -> std::string {
      if (std::string problem = mustDivide(cfg, "BLOCK_M", "Q");
          !problem.empty())
        return problem;
      if (cfg.get("BLOCK_S") && cfg.get("BLOCK_M") % cfg.get("BLOCK_S"))
        return "BLOCK_S must divide BLOCK_M";
      if (cfg.get("N_MAX") % cfg.get("BLOCK_K"))
        return "BLOCK_K must divide N_MAX";
      if (cfg.get("warp_specialize") > 0 && !cfg.get("wgmma"))
        return "warp_specialize is built and measured with wgmma only";
      if (cfg.get("ring_slots") > 0 && !producerWarpgroup(cfg))
        return "ring_slots shares the producer's ring: it needs "
               "warp_specialize";
      return "";
    },
    // 128-token row blocks reading chunk_cb's blocks at Q = 256 (chunk_cb's
    // zero span is 128 tokens there, Kernels.h, so the diagonal takes
    // split_diagonal's factored path). One warpgroup over two m64 halves
    // that share the chunk state and each source block's x and C·Bᵀ copy:
    // some 15% fewer bytes through L2 per row, compute_out's busiest unit
    // (78% of its throughput at 64-token rows). 168 registers, 3 CTAs per
    // SM; ptxas spills nothing in bf16, 64 bytes in f16 (where the factored
    // diagonal's factors stay f32: 2^64 does not fit f16) with y staged by
    // stmatrix (24 and 88 without; 600 and 592 while the variant also
    // compiled the seq_idx code, which SASS showed holding nearly all of
    // them; now only under SEQ_IDX 1). On an H100 against
    // 64-token rows chunk_cb + compute_out 4.4% faster at b=1 L=65536
    // h=80 n=128 (0.875 -> 0.836 ms, the forward 1.8%), 5.7% at n=256,
    // 3.5% at g=8, 2.6% at L=16384, 0.6% in fp16; and before chunk_cb's
    // TMA store came back, 4.3% at n=64, 2.7% at b=4 L=16384, 2.3% at
    // L=4096 (bench/results/2026-12-06-block-m-128-default.md). On the
    // H200 the forward 1.0% faster at the headline,
    // 4.2% at n=256 (2026-12-06-9faaf38-h200-bench.txt). With seq_idx
    // 43-45% slower: 64-token rows there (SEQ_IDX). Not measured on
    // sm_100a/sm_103a. (At Q < 256 the span stays 64: 128-token rows there
    // take the exact, masked path.)
    .variantDefaults = [](const Config &cfg) -> std::map<std::string, int64_t> {
      if (cfg.get("Q") >= 256 && cfg.get("CB_STORED") && !cfg.get("SEQ_IDX"))
        return {{"BLOCK_M", 128}};
      return {};
    },
}};

} // namespace
} // namespace tessel::mamba2
