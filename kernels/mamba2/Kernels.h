//===- Kernels.h - shared definitions of the Mamba-2 kernels ----*- C++ -*-===//

#ifndef TESSEL_KERNELS_MAMBA2_KERNELS_H
#define TESSEL_KERNELS_MAMBA2_KERNELS_H

#include "dsl/Registry.h"
#include "dsl/Tessel.h"

namespace tessel::mamba2 {
/// Acs is kept times log2(e) so that exp(v) = exp2(Acs) downstream.
inline constexpr double kLog2e = 1.4426950408889634;

/// chunk_cb writes the C·Bᵀ entries of future tokens (source after target)
/// as 0 within every aligned span of cbZeroSpan(Q) tokens of a chunk (in
/// its diagonal blocks, and in the blocks above them when its blocks are
/// smaller than the span). compute_out reads its blocks up to the diagonal
/// unmasked (without seq_idx) when its row block fits in the span: it then
/// never reaches an entry chunk_cb left unwritten, whatever chunk_cb's
/// block, except in target rows past the sequence's end (a ragged last
/// chunk), whose outputs the store drops.
///
/// 128 tokens at Q = 256, where compute_out's row blocks are 128 tokens by
/// default without seq_idx (its variantDefaults), else 64. The wider span
/// costs chunk_cb two more blocks per chunk (64-token blocks): with
/// 64-token row blocks chunk_cb + compute_out were 1.4% slower with it on
/// an H100 at b=1 L=65536 h=80 n=128 (bench/results/2026-12-06-span128.md,
/// chunk_cb then without its TMA store, ChunkCb.cpp), while with 128-token
/// rows they were 2.3-5.7% faster at every bf16 Q = 256 shape measured,
/// 0.6% in fp16 (2026-12-06-block-m-128-default.md).
inline constexpr int64_t cbZeroSpan(int64_t Q) { return Q >= 256 ? 128 : 64; }

/// The `occupancy` tunable as the kernel's hint for `target`: CTAs per SM to
/// fit, -1 for `automatic` (the kernel's measured rule), 0 for none (ptxas
/// decides). (A rejected value is reported at the caller's line.)
inline void occupancyHint(const dsl::Config &cfg, int64_t automatic,
                          const char *target = "default",
                          Loc loc = Loc::current()) {
  int64_t occupancy = cfg["occupancy"] >= 0 ? cfg["occupancy"] : automatic;
  if (occupancy)
    dsl::hint(target, "occupancy", occupancy, loc);
}

/// The `X_DTYPE` variant of the kernels templated on x's 16-bit type: bf16
/// (the default) or f16; `what` names the tensors of that type.
inline dsl::Param xDtypeVariant(std::string what) {
  return dsl::dtypeVariant("X_DTYPE", {DType::bf16, DType::f16},
                           DType::bf16, std::move(what));
}

/// The `.build` of such a kernel: its instantiation for the configuration's
/// X_DTYPE, its arguments named by `names` (static storage, read at build).
template <class Bf16Kernel, class F16Kernel, size_t N>
std::function<void(const dsl::Config &)>
buildForXDtype(Bf16Kernel *bf16Kernel, F16Kernel *f16Kernel,
               const std::array<std::string, N> &names,
               Loc loc = Loc::current()) {
  return [bf16Kernel, f16Kernel, &names, loc](const dsl::Config &cfg) {
    if (cfg.dtype("X_DTYPE") == DType::f16)
      dsl::define(f16Kernel, cfg, names, loc);
    else
      dsl::define(bf16Kernel, cfg, names, loc);
  };
}

/// The `SEGMENT` variant of chunk_state, state_passing and compute_out (one
/// value for the three in a forward): chunks per segment of the state scan.
/// 1: chunk_state writes what each chunk adds, state_passing scans the
/// chunks and writes the state entering each, which compute_out reads (each
/// chunk's state crosses DRAM four times). K > 1: chunk_state walks K chunks
/// from a zero state and writes R_c, the state entering each chunk c from
/// the segment's own tokens, and the factor decay_c that the state entering
/// the segment keeps there; state_passing scans only the segments' ends (a
/// K-th of the traffic) for T_s, the state entering segment s; compute_out
/// reads both, S_c = R_c + decay_c T_s (C·Sᵀ as two products).
inline dsl::Param segmentVariant() {
  return dsl::variant("SEGMENT", {1, 8}, 1,
                      "chunks per segment of the state scan");
}

/// For a `.check`: "`block` must divide `whole`" where it does not, else "".
inline std::string mustDivide(const dsl::Config &cfg, const std::string &block,
                              const std::string &whole) {
  return cfg.get(whole) % cfg.get(block) ? block + " must divide " + whole
                                         : std::string();
}

/// The `pdl` tunable every Mamba-2 kernel has, and its hint: compiled for
/// programmatic dependent launch, each kernel's launch and setup overlap the
/// tail of the one before it in the forward (codegen waits for it before
/// touching memory; TileAttrs.td, hint `pdl`). A kernel timed alone cannot
/// show what it is worth, so it is not tuned: `measured` says how the default
/// was chosen over the whole forward.
inline dsl::Param pdlTunable(int64_t value = 1, std::string measured = "") {
  return dsl::tunable("pdl", {0, 1}, value,
                      "programmatic dependent launch (overlaps this "
                      "kernel's launch with the previous kernel's tail" +
                          (measured.empty() ? "" : "; " + measured) + ")");
}
inline void pdlHint(const dsl::Config &cfg) {
  dsl::hint("default", "pdl", cfg["pdl"]);
}

/// The `stmatrix` tunable of the kernels that stage 16-bit mma results in
/// shared memory (for a TMA store), and its hint: stmatrix.x4 instead of a
/// 32-bit store per register pair (see the hint in TileAttrs.td).
inline dsl::Param stmatrixTunable(int64_t value, std::string measured) {
  return dsl::tunable("stmatrix", {0, 1}, value,
                      "16-bit mma results staged in shared memory with "
                      "stmatrix (" + measured + ")");
}
inline void stmatrixHint(const dsl::Config &cfg) {
  dsl::hint("default", "stmatrix", cfg["stmatrix"]);
}

/// The `early_copies` tunable of the kernels whose first loop is fed by the
/// TMA, and its hint: thread 0 issues the loop's first copies right after
/// the dependency wait, before the setup's loads, prefetches and CTA
/// barrier (see the hint in TileAttrs.td).
inline dsl::Param earlyCopiesTunable(int64_t value, std::string measured) {
  return dsl::tunable("early_copies", {0, 1}, value,
                      "the first loop's first TMA copies issued right after "
                      "the dependency wait, before the setup (" + measured +
                          ")");
}
inline void earlyCopiesHint(const dsl::Config &cfg) {
  dsl::hint("default", "early_copies", cfg["early_copies"]);
}

/// The `persistent` tunable of the kernels with large grids, and its hint:
/// launched on the CTAs that fit at once, each walking the programs in turn
/// (tilegpu-persistent-grid).
inline dsl::Param persistentTunable(int64_t value, std::string measured) {
  return dsl::tunable("persistent", {0, 1}, value,
                      "one CTA per program (0), or as many CTAs as fit, "
                      "each walking programs in turn (1; " + measured + ")");
}
inline void persistentHint(const dsl::Config &cfg) {
  dsl::hint("default", "persistent", cfg["persistent"]);
}

/// The `warp_specialize` tunable and its hint (the targets with the TMA: a
/// producer warpgroup issues the loops' copies; see the hint in
/// TileAttrs.td).
inline dsl::Param warpSpecializeTunable(int64_t value, std::string measured) {
  return dsl::tunable("warp_specialize", {0, 1}, value,
                      "the loops' TMA copies issued by a producer warpgroup "
                      "(1; " + measured + ") or by the kernel's warps (0)");
}
/// Where `on` (the kernel's reading of that tunable), the hint, and `ctas`
/// CTAs per SM to fit (the occupancy tunable's -1): the rings take shared
/// memory for the whole kernel, and the producer warpgroup registers.
inline void warpSpecializeHint(const dsl::Config &cfg, bool on, int64_t ctas,
                               Loc loc = Loc::current()) {
  if (on)
    for (const char *target : {"sm_90a", "sm_100a", "sm_103a"}) {
      dsl::hint(target, "warp_specialize", 1, loc);
      occupancyHint(cfg, ctas, target, loc);
    }
}

/// The state kernels' A, (x * w)ᵀ, stays staged in shared memory on sm_100a
/// and sm_103a. The other way (x read into registers in the transposed
/// accumulator layout, tilegpu-assign-layouts, and A passed through tensor
/// memory) ptxas gave chunk_state 156 registers and 256 tensor-memory
/// columns at BLOCK_N = 128 (2 CTAs per SM instead of 4), 56 bytes spilled
/// at BLOCK_N = 64, and fwd_pass_state 218 registers (2 CTAs instead of 4).
/// Decided by those counts alone: no Blackwell GPU here
/// (bench/results/2026-11-30-transposed-register-a.md).
inline void tmemAHint(Loc loc = Loc::current()) {
  for (const char *target : {"sm_100a", "sm_103a"})
    dsl::hint(target, "tcgen05_tmem_a", 0, loc);
}

/// The `num_stages` tunable of the kernels with pipelined loops, and its
/// hint: loads into mma operands are issued num_stages - 1 iterations ahead
/// (tilegpu-assign-latencies).
inline dsl::Param stagesTunable(std::string measured) {
  return dsl::tunable("num_stages", {2, 3, 4}, 2,
                      "shared-memory buffers per load that a loop issues "
                      "ahead (" + measured + ")");
}
inline void stagesHint(const dsl::Config &cfg) {
  dsl::hint("default", "num_stages", cfg["num_stages"]);
}

// Pieces of the chunk-state recurrence shared by fwd_pass_state (all of it,
// chunk after chunk), chunk_state (what one chunk adds) and state_passing
// (the carry from chunk to chunk), so that the three stay one definition.

/// Where chunk c ends: Acs (1) and the sequence (1; 0 without seq_idx) at
/// its last real token (the last chunk may be short).
struct ChunkEnd {
  dsl::Tile acs, seq;
};
inline ChunkEnd chunkEnd(dsl::View<float, 3, dsl::kDense> acs,
                         dsl::View<int32_t, 2> seqIdx,
                         const dsl::I32 &hasSeqIdx, dsl::Scalar L,
                         dsl::Scalar bi, dsl::Scalar hi, dsl::Scalar c,
                         int64_t Q, int latency = 0) {
  using namespace dsl;
  Scalar last = minimum(L, (c + 1) * Q) - 1;
  Tile acsLast =
      load(acs, {bi, hi, last}, {drop, drop, 1}, {.latency = latency});
  Tile seqLast = if_(
      hasSeqIdx != 0, [&] { return load(seqIdx, {bi, last}, {drop, 1}); },
      [&] { return zeros({1}, DType::i32); });
  return {acsLast, seqLast};
}

/// The factor (1) the state entering a chunk keeps at its end: exp(Acs_last),
/// or 0 when the sequence changed since `seqPrev` (the one that ended the
/// chunk before; 0 before token 0, as in mamba_ssm). Without seq_idx there is
/// no compare: ptxas had materialised the constant sequence 0 per chunk into
/// a register the previous chunk's state store still read, and the walk
/// waited for the store (bench/results/2026-12-02-state-scan-seq-compare.md).
inline dsl::Tile carried(const ChunkEnd &end, const dsl::Tile &seqPrev,
                         const dsl::I32 &hasSeqIdx) {
  using namespace dsl;
  return if_(
      hasSeqIdx != 0,
      [&] { return where(end.seq == seqPrev, exp2(end.acs), 0.0f); },
      [&] { return exp2(end.acs); });
}

/// The (p-block pb, n-block nb) block of the initial state, or zeros.
inline dsl::Tile initialState(dsl::View<float, 4> initStates,
                              const dsl::I32 &hasInit, dsl::Scalar bi,
                              dsl::Scalar hi, dsl::Scalar pb, dsl::Scalar nb,
                              int64_t BP, int64_t BN) {
  using namespace dsl;
  return if_(
      hasInit != 0,
      [&] { return load(initStates, {bi, hi, pb, nb}, {drop, drop, BP, BN}); },
      [&] { return zeros({BP, BN}); });
}

/// The walk over one (batch, head)'s chunks in order that both state scans
/// share (fwd_pass_state and state_passing), for the (pb, nb) block of the
/// state: from the initial state (or 0), per chunk c it stores the state
/// entering c into `states` in x's type (what compute_out's mma reads),
/// then takes S <- next(c, S, end of c, the sequence that ended the chunk
/// before); the state after the last chunk goes to `finalStates` (f32)
/// where has_final_states. `endLatency` (0: the pipeline's default) is how
/// many chunks ahead the chunk end's Acs is loaded: on the chain from one
/// chunk's state to the next, it bounds the walk's pace when the chunk's
/// other loads are issued further ahead. `unroll` chunks go per loop
/// iteration (the rest after the loop), their loads issued together.
/// `segment` K > 1 walks only the first chunk of each segment of K (the
/// state entering it is stored there) and passes `next` no chunk end
/// (empty handles: the scan over segments reads its factors instead).
template <class X, class Next>
void walkChunks(dsl::View<X, 5, dsl::kDense> states,
                dsl::View<float, 4> initStates, dsl::View<float, 4> finalStates,
                dsl::View<float, 3, dsl::kDense> acs,
                dsl::View<int32_t, 2> seqIdx, const dsl::I32 &hasSeqIdx,
                const dsl::I32 &hasInit, const dsl::I32 &hasFinal,
                dsl::Scalar L, dsl::Scalar bi, dsl::Scalar hi, dsl::Scalar pb,
                dsl::Scalar nb, int64_t Q, int64_t BP, int64_t BN,
                int endLatency, bool tmaStore, Next next, int64_t unroll = 1,
                int64_t segment = 1) {
  using namespace dsl;
  // (Steps: chunks, or segments of `segment` chunks.)
  auto numChunks = (L + (Q * segment - 1)) / (Q * segment);
  Tile S0 = initialState(initStates, hasInit, bi, hi, pb, nb, BP, BN);
  // The sequence of the token before token 0 counts as 0 (as in mamba_ssm).
  Tile seq0 = zeros({1}, DType::i32);
  using Carried = std::tuple<Tile, Tile>;
  // One chunk: store the state entering it, then the next state and the
  // sequence that ended the chunk.
  auto step = [&](const Scalar &i, const Tile &S, const Tile &seqPrev) {
    Scalar c = segment > 1 ? i * segment : i;
    store(states, {bi, c, hi, pb, nb}, cast<X>(S),
          {.squeeze = {0, 1, 2}, .tma = tmaStore});
    if (segment > 1)
      return Carried{next(c, S, ChunkEnd{}, seqPrev), seqPrev};
    ChunkEnd end =
        chunkEnd(acs, seqIdx, hasSeqIdx, L, bi, hi, c, Q, endLatency);
    return Carried{next(c, S, end, seqPrev), end.seq};
  };
  // The loop carries the state and the sequence that ended the last chunk.
  Carried after = for_range(
      {0, numChunks / unroll}, Carried{S0, seq0},
      [&](Scalar i, Tile S, Tile seqPrev) {
        Carried at{S, seqPrev};
        for (int64_t u = 0; u < unroll; ++u)
          at = step(i * unroll + u, std::get<0>(at), std::get<1>(at));
        return at;
      });
  // The chunks the loop left (fewer than `unroll`).
  for (int64_t u = 0; u + 1 < unroll; ++u)
    after = if_(
        numChunks % unroll > u,
        [&] {
          return step(numChunks / unroll * unroll + u, std::get<0>(after),
                      std::get<1>(after));
        },
        [&] { return after; });
  Tile SEnd = std::get<0>(after);
  if_(hasFinal != 0, [&] {
    store(finalStates, {bi, hi, pb, nb}, SEnd, {.squeeze = {0, 1}});
  });
}

/// What the state kernels read of the inputs.
template <class X> struct StateInputs {
  dsl::View<X, 4, dsl::kDense> x;       // (b, L, h, p)
  dsl::View<X, 4, dsl::kDense> B;       // (b, L, g, n)
  dsl::View<float, 3, dsl::kDense> dt;  // (b, h, L)
  dsl::View<float, 3, dsl::kDense> acs; // (b, h, L), x log2 e
  dsl::View<int32_t, 2> seqIdx;         // (b, L)
  dsl::I32 hasSeqIdx;
};

/// S plus what chunk c adds to the (p-block pb, n-block nb) block of the
/// state (S's shape), BT tokens per mma:
///   S + (x * exp(Acs_last - Acs) * dt)ᵀ · B
/// over its tokens; with seq_idx only those of the chunk's last sequence.
/// packed: x scaled in its own 16-bit type, x * cast<X>(w), two elements per
/// instruction (mul.rn.bf16x2 / f16x2) instead of widened to f32, scaled and
/// narrowed again (each scaled element then rounded twice: w, and the
/// product).
template <class X>
dsl::Tile addChunk(dsl::Tile S, const StateInputs<X> &in, const ChunkEnd &end,
                   dsl::Scalar bi, dsl::Scalar hi, dsl::Scalar gi,
                   dsl::Scalar pb, dsl::Scalar nb, dsl::Scalar c, int64_t Q,
                   int64_t BT, bool packed = false) {
  using namespace dsl;
  const int64_t BP = S.shape()[0], BN = S.shape()[1];
  return for_range({0, Q / BT}, S, [&](Scalar tb, Tile S) {
    Scalar t = c * (Q / BT) + tb; // token block, in units of BT
    Tile xt = load(in.x, {bi, t, hi, pb}, {drop, BT, drop, BP});
    Tile Bt = load(in.B, {bi, t, gi, nb}, {drop, BT, drop, BN});
    Tile acsT = load(in.acs, {bi, hi, t}, {drop, drop, BT});
    Tile dtT = load(in.dt, {bi, hi, t}, {drop, drop, BT});
    // Tokens past L load as zeros (x = dt = 0): they add nothing.
    Tile w = exp2(end.acs - acsT) * dtT;
    w = if_(
        in.hasSeqIdx != 0,
        [&] {
          Tile seqT = load(in.seqIdx, {bi, t}, {drop, BT});
          return where(seqT == end.seq, w, 0.0f);
        },
        [&] { return w; });
    // The per-token weights scale x (BT x BLOCK_P), not B (BT x BLOCK_N):
    // as much work or less, and B then only feeds the mma (staged by TMA or
    // cp.async, never in registers); the mma takes x transposed in its A
    // slot, the one that takes registers.
    Tile xs = packed ? xt * reshape(cast<X>(w), {BT, 1})
                     : cast<X>(cast<float>(xt) * reshape(w, {BT, 1}));
    return mma(transpose(xs), Bt, S);
  });
}
} // namespace tessel::mamba2

#endif // TESSEL_KERNELS_MAMBA2_KERNELS_H
