//===- StatePassing.cpp - Mamba-2 state scan over chunks in the tessel DSL ===//
//
// The sequential half of the state computation (mamba_ssm's state_passing):
// per (batch, head, block of the p x n state) it walks the chunks in order,
//
//   states[c] = S;   S <- exp(Acs_last(c)) S + S_loc(c)
//
// from S = initial_states (or 0; S_loc as chunk_state stored it, in x's
// type, the sum in f32), writing the state entering every chunk in
// x's 16-bit type (what compute_out's mma reads) and the final state in f32.
// With packed sequences the state flows into the next chunk only when the
// sequence did not change over this one. Elementwise work on small blocks: many
// programs, each a short dependent chain of loads. With SEGMENT K > 1
// (Kernels.h, segmentVariant) it walks the segments of K chunks instead,
//
//   states[first of s] = T;   T <- decay(s) T + R(s)
//
// with R(s) the state a segment reaches from its own tokens and decay(s) the
// factor over it (chunk_state wrote both at the segment's first chunk):
// a K-th of the chunks' traffic.
//
//===----------------------------------------------------------------------===//

#include "kernels/mamba2/Kernels.h"

namespace tessel::mamba2 {
using namespace tessel::dsl;

namespace {

template <class X>
void statePassing(const Config &cfg,
                  View<X, 5, kDense> local,     // (b, nc, h, p, n)
                  View<float, 3, kDense> decay, // (b, h, nc), SEGMENT > 1
                  View<float, 3, kDense> acs,   // (b, h, L), x log2 e
                  View<int32_t, 2> seqIdx,      // (b, L)
                  View<float, 4> initStates,    // (b, h, p, n)
                  View<X, 5, kDense> states,    // (b, nc, h, p, n)
                  View<float, 4> finalStates,   // (b, h, p, n)
                  I32 hasSeqIdx, I32 hasInit, I32 hasFinal) {
  const int64_t Q = cfg["Q"], BP = cfg["BLOCK_P"], BN = cfg["BLOCK_N"],
                K = cfg["SEGMENT"];
  hint("default", "num_warps", cfg["num_warps"]);
  pdlHint(cfg);
  // The next chunk's block is loaded while this one is combined.
  hint("default", "prefetch_registers", cfg["prefetch_registers"]);

  auto pb = program_id(0), nb = program_id(1), bh = program_id(2);
  auto L = dim(acs, 2), H = dim(acs, 1);
  auto bi = bh / H, hi = bh % H;
  walkChunks(
      states, initStates, finalStates, acs, seqIdx, hasSeqIdx, hasInit,
      hasFinal, L, bi, hi, pb, nb, Q, BP, BN, int(cfg["prefetch_depth"]),
      cfg["tma_store"] != 0,
      [&](Scalar c, Tile S, const ChunkEnd &end, const Tile &seqPrev) {
        const int ahead = int(cfg["prefetch_depth"]);
        // SEGMENT > 1: c is a segment's first chunk, where
        // chunk_state left the segment's own state at its end and
        // the factor the state entering it keeps over it (0 where
        // the sequence changed within it).
        Tile flow = K > 1 ? load(decay, {bi, hi, c}, {drop, drop, 1},
                                 {.latency = ahead})
                          : carried(end, seqPrev, hasSeqIdx);
        Tile add =
            cast<float>(load(local, {bi, c, hi, pb, nb},
                             {drop, drop, drop, BP, BN}, {.latency = ahead}));
        return fma(S, reshape(flow, {1, 1}), add);
      },
      cfg["unroll"], K);
}

const std::array<std::string, 10> kArgNames = {
    "chunk_states",       "segment_decay",   "dA_cumsum",    "seq_idx",
    "initial_states",     "states",          "final_states", "has_seq_idx",
    "has_initial_states", "has_final_states"};

const Register registration{{
    .name = "state_passing",
    .summary = "Mamba-2 state scan: the state entering every chunk from the "
               "per-chunk states, and the final state",
    .params =
        {
            variant("Q", {64, 128, 256}, 256, "chunk length"),
            segmentVariant(),
            xDtypeVariant("element type of the states written"),
            tunable("BLOCK_P", {8, 16, 32, 64}, 16,
                    "head-dim rows per program"),
            tunable("BLOCK_N", {32, 64, 128}, 64, "state columns per program"),
            tunable("num_warps", {1, 2, 4, 8}, 4, "warps per program"),
            tunable("prefetch_registers", {0, 16, 32, 64}, 32,
                    "registers per thread for loads issued chunks ahead"),
            // Off: 1-3% slower on the H200 (states 0.462 -> 0.476 ms at
            // b=1 L=65536 h=80 n=64, 1.005 -> 1.020 at Q = 128, 0.751 ->
            // 0.771 at b=4 h=8 n=256; CTA barriers in every chunk for the
            // staging buffer; bench/results/2026-12-01-state-scan.md).
            tunable("tma_store", {0, 1}, 0,
                    "the states through shared memory and the TMA (sm_90a "
                    "and later)"),
            // 4: ptxas moves the prefetched chunk end's Acs to a uniform
            // register right after its load, so each iteration waited out
            // one load; with 4 chunks per iteration their loads go out
            // together. On the H200 (forward ms, 1 -> 2 -> 4): 1.603 ->
            // 1.556 -> 1.535 at b=1 L=65536 h=80 n=64, 2.059 -> 2.009 ->
            // 1.980 at Q=128, 1.830 -> 1.808 -> 1.794 at n=128, 1.336 ->
            // 1.281 -> 1.234 at b=4 h=8 n=256 (bench/results/2026-12-02-
            // state-scan-unroll.md).
            tunable("unroll", {1, 2, 4}, 4,
                    "chunks per iteration of the walk (their loads issued "
                    "together)"),
            // 2-4 measured no faster on the H200 (chunk_state +
            // state_passing at b=1 L=65536 h=80 n=128: 0.664-0.665 ms at 1,
            // 0.669-0.675 at 2-4;
            // bench/results/2026-11-30-register-prefetch-depth.md); again with
            // the chunk end's Acs loaded as far ahead (no depth beyond noise at
            // any tuned shape: 2026-12-01-state-scan.md).
            tunable("prefetch_depth", {1, 2, 3, 4}, 1,
                    "chunks ahead the per-chunk states are loaded (within "
                    "prefetch_registers)"),
            // Off: with it, the forward at five shapes on the split path
            // measured 0.9-3.6% slower on the H200 (b=4 L=65536 h=8 n=256:
            // 1.404 against 1.355 ms). Our reading, not verified: launched
            // early, its few long-lived CTAs go to the SMs chunk_state frees
            // first instead of spreading;
            // bench/results/2026-12-01-plain-launch.md.
            pdlTunable(0,
                       "off: the forward 0.9-3.6% slower with it on the H200"),
        },
    // (p block, n block, batch x head)
    .grid = {{"states", 3, "BLOCK_P"},
             {"states", 4, "BLOCK_N"},
             {"states", 0, "", "states", 2}},
    // Tuned by chunks (the serial walk), batch x heads and state size.
    .shapeKey = {{"nc", "states", 1},
                 {"bh", "states", 0, "states", 2},
                 {"n", "states", 4}},
    .build = buildForXDtype(statePassing<bf16>, statePassing<f16>, kArgNames),
}};

} // namespace
} // namespace tessel::mamba2
