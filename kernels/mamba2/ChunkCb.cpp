//===- ChunkCb.cpp - Mamba-2 C·Bᵀ blocks per chunk in the tessel DSL ------===//
//
// The product of C and B within each chunk, once per group (mamba_ssm's
// bmm_chunk): per (batch, chunk, group) and pair of BLOCK_M-token blocks
// (s, t) it stores
//
//   CBt[b, c, g, s-block, t-block] = B_s · C_tᵀ     (f32 sums, x's 16-bit type)
//
// the transpose of the C·Bᵀ block that compute_out reads when CB_STORED is
// set. With g = 1 every head reads the same blocks (the 80 heads of
// MAMBA2.md's shapes formed them 80 times over inside compute_out); stored
// transposed, compute_out's transpose of the loaded block lands in the
// accumulator layout its mask is applied in, and the load is read as mma
// fragments from its TMA copy (tilegpu-assign-layouts). The entries of
// future tokens (source after target) are stored as 0 within each aligned
// span of cbZeroSpan(Q) tokens (Kernels.h): in the diagonal blocks, and in
// the blocks above them inside the span where the blocks are smaller than
// it. compute_out then scales its diagonal block without a causal mask.
// The other blocks above the diagonal are never written: compute_out reads
// them only with its causal mask after the product (row blocks wider than
// the span, or seq_idx), which drops whatever they hold. (Zeroing more of
// them costs: the 128-token span's two more zero blocks per chunk with
// BLOCK_M = 64 made chunk_cb + compute_out 0.9% slower at g = 8 on the H200
// and 1.4% at the headline shape on an H100 with 64-token row blocks, both
// measured with the zero blocks as a second store, which cost chunk_cb its
// TMA store (below); the span is taken at Q = 256 for compute_out's
// 128-token rows, Kernels.h.)
//
//===----------------------------------------------------------------------===//

#include "kernels/mamba2/Kernels.h"

namespace tessel::mamba2 {
using namespace tessel::dsl;

namespace {

template <class X>
void chunkCb(const Config &cfg,
             View<X, 4, kDense> B,   // (b, L, g, n)
             View<X, 4, kDense> C,   // (b, L, g, n)
             View<X, 5, kDense> cbt) { // (b, nc, g, Q, Q)
  const int64_t Q = cfg["Q"], BM = cfg["BLOCK_M"], BK = cfg["BLOCK_K"];
  const int64_t blocksPerChunk = Q / BM;
  hint("default", "num_warps", cfg["num_warps"]);
  pdlHint(cfg);
  stmatrixHint(cfg);
  stagesHint(cfg);
  if (cfg["wgmma"])
    hint("sm_90a", "wgmma", 1);
  earlyCopiesHint(cfg);
  occupancyHint(cfg, 0);

  // Groups vary fastest, then the block of tokens t over the sequence; the
  // source block s (within t's chunk) and the batch row.
  auto tg = program_id(0), sl = program_id(1), bi = program_id(2);
  auto G = dim(B, 2), N = dim(B, 3);
  auto t = tg / G, gi = tg % G;
  auto c = t / blocksPerChunk, tl = t % blocksPerChunk;
  auto numK = (N + (BK - 1)) / BK;
  const bool tmaStore = cfg["tma_store"] != 0;
  // The blocks up to the diagonal, and those above it within a span of
  // cbZeroSpan(Q) tokens: the latter with no K steps, so that the causal
  // mask below stores them as 0 (every source token there follows every
  // target). One store for both keeps it a TMA store (the TMA takes a
  // view's only store: a separate store of zeros left both to st.global).
  const int64_t perSpan = cbZeroSpan(Q) / BM;
  auto written = perSpan > 1 ? (sl <= tl || sl / perSpan == tl / perSpan)
                             : sl <= tl;
  if_(written, [&] {
    auto s = c * blocksPerChunk + sl;
    auto steps = perSpan > 1 ? where(sl <= tl, numK, 0) : numK;
    Tile acc = for_range({0, steps}, zeros({BM, BM}), [&](Scalar k, Tile a) {
      Tile Bs = load(B, {bi, s, gi, k}, {drop, BM, drop, BK});
      Tile Ct = load(C, {bi, t, gi, k}, {drop, BM, drop, BK});
      return mma(Bs, transpose(Ct), a);
    });
    // f16 tops out at 65504: a larger sum stored as f16 would be inf, and
    // inf times a decay that underflowed to 0 a NaN in a kept entry (where
    // compute_out forming C·Bᵀ itself gets 0). Clamped instead (the result
    // is then as wrong as the fused path's f16 P would be).
    if constexpr (std::is_same_v<X, f16>)
      acc = minimum(maximum(acc, -65504.0f), 65504.0f);
    // Causal: target token t (column) at or after source token s (row);
    // every entry of a block before the diagonal (sl < tl) is.
    acc = where(iota({BM, BM}, 1) + tl * BM >= iota({BM, BM}, 0) + sl * BM, acc,
                0.0f);
    store(cbt, {bi, c, gi, sl, tl}, cast<X>(acc),
          {.squeeze = {0, 1, 2}, .tma = tmaStore});
  });
}

const std::array<std::string, 3> kArgNames = {"B", "C", "CBt"};

const Register registration{{
    .name = "chunk_cb",
    .summary = "Mamba-2 C·Bᵀ per chunk and group, stored transposed for "
               "compute_out (CB_STORED)",
    .params =
        {
            variant("Q", {64, 128, 256}, 256, "chunk length"),
            xDtypeVariant("element type of B, C and the stored blocks"),
            tunable("BLOCK_M", {32, 64, 128}, 64,
                    "tokens per block (rows and columns of a stored block)"),
            tunable("BLOCK_K", {32, 64, 128}, 64,
                    "state dimension per mma step"),
            tunable("num_warps", {4, 8}, 4, "warps per program"),
            tunable("wgmma", {0, 1}, 1,
                    "warpgroup MMA on sm_90a (reading TMA-staged operands)"),
            earlyCopiesTunable(0, "not yet measured"),
            tunable("occupancy", {0, 2, 3, 4}, 0,
                    "CTAs per SM to fit (0: ptxas decides)"),
            tunable("tma_store", {0, 1}, 1,
                    "the blocks through shared memory and the TMA (sm_90a "
                    "and later)"),
            stagesTunable("not measured"),
            pdlTunable(),
            stmatrixTunable(0, "level on the H200, bench/results/2026-12-05-pending-gpu-checks.md"),
        },
    // (token block x group, source block in the chunk, batch)
    .grid = {{"C", 1, "BLOCK_M", "C", 2},
             {"CBt", 3, "BLOCK_M"},
             {"C", 0, ""}},
    // Tuned by tokens (batch x length), groups and state size.
    .shapeKey = {{"bL", "C", 1, "C", 0}, {"g", "C", 2}, {"n", "C", 3}},
    .build = buildForXDtype(chunkCb<bf16>, chunkCb<f16>, kArgNames),
    .check =
        [](const Config &cfg) { return mustDivide(cfg, "BLOCK_M", "Q"); },
}};

} // namespace
} // namespace tessel::mamba2
