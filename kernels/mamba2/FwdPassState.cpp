//===- FwdPassState.cpp - Mamba-2 chunk states in the tessel DSL ----------===//
//
// The chunk states in one pass (../shared/MAMBA2.md's second kernel): per
// (batch, head, p-block, n-block) it walks the chunks in order with the
// running state S (p x n, f32) on chip, writes the state entering each chunk,
// and updates it with one tile.mma per token block:
//
//   S <- exp(Acs_last) S + (x * exp(Acs_last - Acs) * dt)ᵀ · B
//
// (Acs is kept times log2(e): exp(v) is exp2 of it.) With packed sequences
// (seq_idx) a token contributes only when it belongs to the chunk's last
// sequence, and the state flows into the next chunk only when the sequence
// did not change over this one. The per-token weights are applied to x, the
// smaller operand (BLOCK_P <= BLOCK_N), which the mma takes transposed in
// its A slot (the slot that takes registers); B only feeds the mma.
//
//===----------------------------------------------------------------------===//

#include "kernels/mamba2/Kernels.h"

namespace tessel::mamba2 {
using namespace tessel::dsl;

namespace {

template <class X>
void fwdPassState(const Config &cfg,
                  View<X, 4, kDense> x,                 // (b, L, h, p)
                  View<X, 4, kDense> B,                 // (b, L, g, n)
                  View<float, 3, kDense> dt,            // (b, h, L)
                  View<float, 3, kDense> acs,           // (b, h, L), x log2 e
                  View<int32_t, 2> seqIdx,              // (b, L)
                  View<float, 4> initStates,            // (b, h, p, n)
                  View<X, 5, kDense> states,            // (b, nc, h, p, n)
                  View<float, 4> finalStates,           // (b, h, p, n)
                  I32 hasSeqIdx, I32 hasInit, I32 hasFinal) {
  const int64_t Q = cfg["Q"], BP = cfg["BLOCK_P"], BN = cfg["BLOCK_N"],
                BT = cfg["BLOCK_T"];
  hint("default", "num_warps", cfg["num_warps"]);
  pdlHint(cfg);
  stagesHint(cfg);
  if (cfg["wgmma"])
    hint("sm_90a", "wgmma", 1);
  tmemAHint();
  if (cfg["occupancy"])
    hint("default", "occupancy", cfg["occupancy"]);
  // x, Acs and dt issued a token block ahead (B goes by cp.async): 20-25%
  // faster on the H200 (bench/results/2026-11-29-mamba2-states-bf16.md).
  hint("default", "prefetch_registers", cfg["prefetch_registers"]);

  auto pb = program_id(0), nb = program_id(1), bh = program_id(2);
  auto L = dim(x, 1), H = dim(x, 2), G = dim(B, 2);
  auto bi = bh / H, hi = bh % H, gi = hi / (H / G);
  const StateInputs<X> in{x, B, dt, acs, seqIdx, hasSeqIdx};
  walkChunks(states, initStates, finalStates, acs, seqIdx, hasSeqIdx, hasInit,
             hasFinal, L, bi, hi, pb, nb, Q, BP, BN, 0, false,
             [&](Scalar c, Tile S, const ChunkEnd &end, const Tile &seqPrev) {
               S = S * reshape(carried(end, seqPrev, hasSeqIdx), {1, 1});
               return addChunk<X>(S, in, end, bi, hi, gi, pb, nb, c, Q, BT);
             });
}

const std::array<std::string, 11> kArgNames = {
    "x",      "B",
    "dt",     "dA_cumsum",
    "seq_idx", "initial_states",
    "states", "final_states",
    "has_seq_idx", "has_initial_states",
    "has_final_states"};

const Register registration{{
    .name = "fwd_pass_state",
    .summary = "Mamba-2 chunk states: the state entering every chunk, and "
               "the final state",
    .params =
        {
            variant("Q", {64, 128, 256}, 256, "chunk length"),
            xDtypeVariant("element type of x and B"),
            // Compiled both ways: the library takes 32 when 64 would leave
            // fewer than two CTAs per SM (see Mamba2.cpp).
            variant("BLOCK_P", {32, 64}, 64, "head-dim rows per program"),
            tunable("BLOCK_N", {16, 32, 64, 128}, 64,
                    "state columns per program"),
            tunable("BLOCK_T", {32, 64, 128}, 64, "tokens per mma"),
            tunable("num_warps", {4, 8}, 4, "warps per program"),
            tunable("wgmma", {0, 1}, 0,
                    "warpgroup MMA on sm_90a (reading TMA-staged operands "
                    "where it can)"),
            // 0: ptxas fits 4 CTAs per SM (128 registers, 16 bytes
            // spilled on sm_90a); 3 (154 registers, no spills) measured
            // 0.2-0.5% slower on the H200 at Q = 64 (state 1.537 -> 1.544
            // ms at b=1 L=65536 h=80 n=128; bench/results/2026-12-04-fwd-
            // pass-state-occupancy-ab.txt).
            tunable("occupancy", {0, 1, 2, 3, 4}, 0,
                    "CTAs per SM to fit (0: ptxas decides)"),
            tunable("prefetch_registers", {0, 32, 64}, 64,
                    "registers per thread for loads issued a token block "
                    "ahead"),
            // 3 was 14% slower on the H200 at Q = 64, 4 within 2% of 2
            // (bench/results/2026-11-30-pipeline-depth.md).
            stagesTunable("3: 14% slower on the H200, 4: the same"),
            // Off: with it, the forward at Q = 64 (its default path)
            // measured 14% slower on the H200 (b=1 L=65536 h=80 n=128: 2.865
            // against 2.514 ms). Our reading, not verified: launched early,
            // its few long-lived CTAs go to the SMs chunk_cumsum frees first
            // instead of spreading; bench/results/2026-12-01-plain-launch.md.
            pdlTunable(
                0, "off: the forward at Q = 64 14% slower with it on the H200"),
        },
    // (p block, n block, batch x head)
    .grid = {{"x", 3, "BLOCK_P"},
             {"B", 3, "BLOCK_N"},
             {"x", 0, "", "x", 2}},
    // Tuned by length (the serial walk), batch x heads and state size.
    .shapeKey = {{"L", "x", 1}, {"bh", "x", 0, "x", 2}, {"n", "B", 3}},
    // A program's heads' group is h / (h / g): h a multiple of g.
    .shapeRules = {{"x", 2, "", "B", 2}},
    .build =
        buildForXDtype(fwdPassState<bf16>, fwdPassState<f16>, kArgNames),
    .check =
        [](const Config &cfg) { return mustDivide(cfg, "BLOCK_T", "Q"); },
}};

} // namespace
} // namespace tessel::mamba2
