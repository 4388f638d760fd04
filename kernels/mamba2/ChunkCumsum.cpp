//===- ChunkCumsum.cpp - Mamba-2 chunk_cumsum in the tessel DSL -----------===//
//
// The first of the Mamba-2 forward kernels (../shared/MAMBA2.md): per
// (batch, chunk, head block) it turns raw dt into the step sizes the scan uses
//
//   dt  = clamp(softplus?(dt + dt_bias), lo, hi)
//   Acs = cumsum over the chunk of dt * A, times log2(e)
//
// and writes both transposed to [batch, head, token], so that the later
// kernels read each head's tokens contiguously (and can call exp2 directly).
//
//===----------------------------------------------------------------------===//

#include "kernels/mamba2/Kernels.h"

namespace tessel::mamba2 {
using namespace tessel::dsl;

namespace {

template <class DT>
void chunkCumsum(const Config &cfg, View<DT, 3> dt, // (b, L, h)
                 View<float, 1> A,                  // (h)
                 View<float, 1> dtBias,         // (h), read when HAS_DT_BIAS
                 View<float, 3, kDense> dtOut,  // (b, h, L)
                 View<float, 3, kDense> acsOut, // (b, h, L), x log2(e)
                 F32 dtMin, F32 dtMax) {
  const int64_t Q = cfg["Q"], BH = cfg["BLOCK_H"];
  hint("default", "num_warps", cfg["num_warps"]);
  pdlHint(cfg);
  if (cfg["occupancy"])
    hint("default", "occupancy", cfg["occupancy"]);

  auto b = program_id(0), c = program_id(1), hb = program_id(2);

  // Work on the BH x Q (head x token) tile: the layout of the outputs, with
  // the scan along the contiguous token axis (a warp-level scan). Tokens past
  // L and heads past h load as zeros; their results are dropped by the
  // stores, and a forward cumsum never lets them reach a real token.
  Tile x = transpose(cast<float>(load(dt, {b, c, hb}, {drop, Q, BH})));
  if (cfg["HAS_DT_BIAS"])
    x = x + reshape(load(dtBias, {hb}, {BH}), {BH, 1});
  if (cfg["DT_SOFTPLUS"])
    x = softplus(x);
  x = minimum(maximum(x, dtMin), dtMax);

  Tile a = x * reshape(load(A, {hb}, {BH}), {BH, 1});
  Tile acs = cumsum(a, /*axis=*/1) * kLog2e;

  store(dtOut, {b, hb, c}, x, {.squeeze = {0}});
  store(acsOut, {b, hb, c}, acs, {.squeeze = {0}});
}

const std::array<std::string, 7> kArgNames = {
    "dt", "A", "dt_bias", "dt_out", "dA_cumsum", "dt_min", "dt_max"};

const Register registration{{
    .name = "chunk_cumsum",
    .summary = "Mamba-2 dt processing and per-chunk cumulative sum of dt*A",
    .params =
        {
            variant("Q", {64, 128, 256}, 256, "chunk length"),
            dtypeVariant("DT_DTYPE", {DType::bf16, DType::f16, DType::f32},
                         DType::bf16, "element type of dt"),
            variant("HAS_DT_BIAS", {0, 1}, 1, "dt_bias is given"),
            variant("DT_SOFTPLUS", {0, 1}, 1, "apply softplus to dt"),
            tunable("BLOCK_H", {1, 2, 4, 8, 16, 32, 64}, 16,
                    "heads per program"),
            // Defaults (num_warps, BLOCK_H, occupancy) measured on the H200
            // (bench/results/2026-11-29-chunk-cumsum.md).
            tunable("num_warps", {1, 2, 4, 8}, 8, "warps per program"),
            tunable("occupancy", {0, 4, 5, 6, 8, 10}, 5,
                    "CTAs per SM to fit (0: ptxas decides)"),
            pdlTunable(),
        },
    // (batch, chunk, head block)
    .grid = {{"dt", 0, ""}, {"dt", 1, "Q"}, {"dt", 2, "BLOCK_H"}},
    // Tuned by tokens (batch x length) and heads.
    .shapeKey = {{"bL", "dt", 1, "dt", 0}, {"h", "dt", 2}},
    .build =
        [](const Config &cfg) {
          switch (cfg.dtype("DT_DTYPE")) {
          case DType::f16:
            return define(chunkCumsum<f16>, cfg, kArgNames);
          case DType::f32:
            return define(chunkCumsum<float>, cfg, kArgNames);
          default:
            return define(chunkCumsum<bf16>, cfg, kArgNames);
          }
        },
    .check = [](const Config &cfg) -> std::string {
      // An SM holds at most 2048 threads (64 warps).
      if (cfg.get("occupancy") * cfg.get("num_warps") > 64)
        return "occupancy x num_warps must be at most 64 warps per SM";
      return "";
    },
}};

} // namespace
} // namespace tessel::mamba2
