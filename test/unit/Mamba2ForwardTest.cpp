//===- Mamba2ForwardTest.cpp - the whole Mamba-2 forward on the interpreter ===//
//
// Runs chunk_cumsum, the chunk states (fwd_pass_state, or chunk_state then
// state_passing: both of the library's paths) and compute_out (forming C·Bᵀ
// itself, or reading the blocks chunk_cb stored: both ways) (the DSL
// kernels, traced and interpreted) one after the other, wired the way
// libtessel_mamba2 wires them, and compares y and the final states with the
// float64 token-by-token recurrence of kernels/mamba2/Reference.h, for every
// option of MAMBA2.md on small ragged shapes. Fresh random inputs each run;
// outputs poisoned.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "kernels/mamba2/Kernels.h"
#include "kernels/mamba2/Reference.h"
#include "kernels/mamba2/Validate.h"

#include <gtest/gtest.h>

#include <limits>

using namespace tessel;
using namespace tessel::dsl;
using namespace tessel::test;
using tessel::mamba2::cbZeroSpan;

namespace {

enum class DKind { none, perHead, perHeadDim };

struct Case {
  int64_t b, L, h, p, n, g, Q;
  DType x = DType::bf16, dt = DType::bf16;
  DKind d = DKind::none;
  bool z = false, bias = false, softplus = false, init = false, seq = false;
  // Steps of 0.5-2 (decays that overflow exp2 across a 64-token block: the
  // exponents of future tokens' masked entries pass 128), a quarter of them
  // drawn negative and clamped to dt = 0 (padding tokens): masked entries
  // whose factor is inf * 0 unless the decay is clamped before the product.
  bool padding = false;
  // Steps scaled up (a mean dt of 0.09): a 64-token block's decay then
  // spans 2^8 to 2^130 by the head's A, so that some of compute_out's
  // blocks take split_diagonal's factored path and others the exact one.
  double stepScale = 1;
  // A per head (cycled) instead of -U(1, 16): with stepScale 4 a 64-token
  // block spans about 8 |A| in log2 units (mean dt 0.086), so |A| = 1 and 4
  // fall well inside split_diagonal's span of 64 and 12 and 16 well past it.
  std::vector<double> aHeads;
  int64_t splitDiagonal = -1; // compute_out's split_diagonal
  double dtMin = 0, dtMax = std::numeric_limits<double>::infinity();
  // Tunables, to exercise blocks that do not divide the shape.
  int64_t blockP = 64, blockN = 64, blockT = 64, blockM = 64, blockK = 64;
  int64_t blockS = 0; // compute_out's source block (0: BLOCK_M, at most 64)
  // chunk_cb's block: smaller or larger than compute_out's boxes, whose
  // reads then span blocks it wrote and blocks it left poisoned.
  int64_t blockCb = 64;
  // Chunks per segment of the split path's state scan (SEGMENT; the serial
  // path ignores it), and compute_out's segment_steps.
  int64_t segment = 1, segmentSteps = 0;
  // compute_out's segment_scale (the segment's factor applied once, in a
  // branch, instead of by a select in every step).
  int64_t segmentScale = 0;
  // chunk_state's CHAIN (segment > 1): the scan over segments in
  // chunk_state, no state_passing, compute_out at SEGMENT 1.
  bool chain = false;
};

std::ostream &operator<<(std::ostream &os, const Case &c) {
  os << "b=" << c.b << " L=" << c.L << " h=" << c.h << " p=" << c.p
     << " n=" << c.n << " g=" << c.g << " Q=" << c.Q << " x=" << dtypeName(c.x)
     << " dt=" << dtypeName(c.dt) << " D=" << static_cast<int>(c.d)
     << " z=" << c.z << " bias=" << c.bias << " softplus=" << c.softplus
     << " init=" << c.init << " seq=" << c.seq << " padding=" << c.padding
     << " steps x" << c.stepScale << " split_diagonal " << c.splitDiagonal
     << " limit=(" << c.dtMin << "," << c.dtMax << ") blocks P" << c.blockP
     << " N" << c.blockN << " T" << c.blockT << " M" << c.blockM << " K"
     << c.blockK << " S" << c.blockS << " CB" << c.blockCb << " segment "
     << c.segment << (c.segmentSteps ? " (steps)" : "")
     << (c.segmentScale ? " (scaled once)" : "")
     << (c.chain ? " (chained)" : "");
  return os;
}

mlir::func::FuncOp traceOne(mlir::MLIRContext &ctx, const std::string &name,
                            const std::map<std::string, int64_t> &values,
                            std::vector<mlir::OwningOpRef<mlir::ModuleOp>> &keep) {
  const KernelDef *def = findKernel(name);
  EXPECT_NE(def, nullptr) << name;
  Config cfg = defaultConfig(*def);
  for (auto &[k, v] : values)
    cfg.set(k, v);
  if (def->check)
    EXPECT_EQ(def->check(cfg), "") << name;
  TraceResult traced = traceKernel(ctx, *def, cfg);
  for (auto &d : traced.diagnostics)
    ADD_FAILURE() << d;
  if (!traced.module)
    return {};
  keep.push_back(std::move(traced.module));
  return *keep.back()->getOps<mlir::func::FuncOp>().begin();
}

/// A view of nothing, for an absent optional input (unit last stride, as
/// views declared dense require).
interp::ViewArg absent(DType dtype, int rank) {
  std::vector<int64_t> strides(rank, 0);
  strides.back() = 1;
  return {nullptr, dtype, std::vector<int64_t>(rank, 0), strides};
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// A case, whether the states go the split way (chunk_state +
/// state_passing) instead of fwd_pass_state, and whether compute_out reads
/// chunk_cb's C·Bᵀ blocks.
class Mamba2Forward
    : public ::testing::TestWithParam<std::tuple<Case, bool, bool>> {};

TEST_P(Mamba2Forward, MatchesFloat64Recurrence) {
  const Case c = std::get<0>(GetParam());
  const bool split = std::get<1>(GetParam());
  const bool stored = std::get<2>(GetParam());
  const unsigned seed = freshSeed();
  std::mt19937 rng(seed);
  static mlir::MLIRContext ctx;
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> keep;
  auto cumsumK = traceOne(ctx, "chunk_cumsum",
                          {{"Q", c.Q},
                           {"DT_DTYPE", static_cast<int64_t>(c.dt)},
                           {"HAS_DT_BIAS", c.bias},
                           {"DT_SOFTPLUS", c.softplus},
                           {"BLOCK_H", 4}},
                          keep);
  auto stateK = traceOne(ctx, "fwd_pass_state",
                         {{"Q", c.Q},
                          {"X_DTYPE", static_cast<int64_t>(c.x)},
                          {"BLOCK_P", c.blockP},
                          {"BLOCK_N", c.blockN},
                          {"BLOCK_T", c.blockT}},
                         keep);
  // chunk_state's state columns per program as the library picks them;
  // state_passing at its default blocks (16 x 64: p = 40 leaves a partial
  // block in p).
  const int64_t chunkN = mamba2::detail::chunkStateBlockN(c.n);
  auto chunkK = traceOne(ctx, "chunk_state",
                         {{"Q", c.Q},
                          {"SEGMENT", c.segment},
                          {"CHAIN", c.chain},
                          {"X_DTYPE", static_cast<int64_t>(c.x)},
                          {"BLOCK_P", c.blockP},
                          {"BLOCK_N", chunkN},
                          {"BLOCK_T", c.blockT},
                          // x scaled in 16-bit pairs (the H200's tuned
                          // choice at most shapes; fwd_pass_state keeps the
                          // f32 scaling, so both are checked).
                          {"packed_scale", 1}},
                         keep);
  auto passK = traceOne(ctx, "state_passing",
                        {{"Q", c.Q},
                         {"SEGMENT", c.segment},
                         {"X_DTYPE", static_cast<int64_t>(c.x)}},
                        keep);
  const int64_t passP = 16, passN = 64;
  // compute_out with C resident and the state dimension unrolled where n
  // allows, as the library picks it (when BLOCK_K divides 64).
  // (Chained, chunk_state writes the states entering the chunks: compute_out
  // reads them as the unsegmented scan's.)
  const int64_t segment = split && !c.chain ? c.segment : 1;
  const int64_t nMax = c.n <= 64 && 64 % c.blockK == 0 ? 64 : 0;
  auto outK =
      traceOne(ctx, "compute_out",
               {{"Q", c.Q},
                {"SEGMENT", segment},
                {"segment_steps", c.segmentSteps},
                {"segment_scale", c.segmentScale},
                {"X_DTYPE", static_cast<int64_t>(c.x)},
                {"BLOCK_M", c.blockM},
                {"BLOCK_S", c.blockS},
                {"BLOCK_P", c.blockP},
                {"BLOCK_K", c.blockK},
                {"N_MAX", nMax},
                {"CB_STORED", stored},
                // As the library picks it: the seq_idx code is
                // compiled only where seq_idx is given.
                {"SEQ_IDX", c.seq ? 1 : 0},
                {"split_diagonal", c.splitDiagonal},
                // With the split state path the library's
                // choices: the blocks before the diagonal with the
                // decay factored at Q = 256 with the state
                // dimension in loops (else in the loop up to the
                // diagonal, unmasked without seq_idx), scaled
                // in 16-bit pairs. With the serial one, factored
                // at every Q and scaled in f32: both ways checked.
                {"split_decay", split && (c.Q < 256 || nMax != 0) ? 0 : 1},
                {"packed_decay", split ? 1 : 0},
                // D of a head on the diagonal block's diagonal (the
                // library's choice) with the split path, D x_t from
                // registers with the serial one.
                {"fold_d", split ? 1 : 0}},
               keep);
  // chunk_cb's block need not match compute_out's.
  const int64_t cbBlock = c.blockCb;
  auto cbK = traceOne(ctx, "chunk_cb",
                      {{"Q", c.Q},
                       {"X_DTYPE", static_cast<int64_t>(c.x)},
                       {"BLOCK_M", cbBlock},
                       {"BLOCK_K", c.blockK}},
                      keep);
  ASSERT_TRUE(cumsumK && stateK && chunkK && passK && outK && cbK);

  // Inputs drawn like a real model (MAMBA2.md), kept as the rounded values
  // the kernels read.
  namespace reference = tessel::mamba2::reference;
  reference::ForwardInputs ref;
  ref.b = c.b, ref.L = c.L, ref.h = c.h, ref.p = c.p, ref.n = c.n, ref.g = c.g;
  ref.softplus = c.softplus, ref.dtMin = c.dtMin, ref.dtMax = c.dtMax;
  std::normal_distribution<double> normal(0, 1);
  std::uniform_real_distribution<double> logU(std::log(1e-3), std::log(1e-1)),
      aU(1, 16), bU(-0.5, 0.5);
  auto fill = [&](HostTensor &t, std::vector<double> &out, auto draw) {
    out.resize(t.numel());
    for (int64_t i = 0; i < t.numel(); ++i)
      out[i] = t.set(i, draw());
  };
  HostTensor x(c.x, {c.b, c.L, c.h, c.p}), B(c.x, {c.b, c.L, c.g, c.n}),
      C(c.x, {c.b, c.L, c.g, c.n}), dt(c.dt, {c.b, c.L, c.h}),
      A(DType::f32, {c.h}), bias(DType::f32, {c.h}),
      D(DType::f32, {c.d == DKind::perHeadDim ? c.h * c.p : c.h}),
      z(c.x, {c.b, c.L, c.h, c.p}), init(DType::f32, {c.b, c.h, c.p, c.n}),
      seq(DType::i32, {c.b, c.L});
  fill(x, ref.x, [&] { return normal(rng); });
  fill(B, ref.B, [&] { return normal(rng); });
  fill(C, ref.C, [&] { return normal(rng); });
  int64_t head = 0;
  fill(A, ref.A, [&] {
    return c.aHeads.empty() ? -aU(rng)
                            : c.aHeads[head++ % c.aHeads.size()];
  });
  std::vector<double> biasV;
  fill(bias, biasV, [&] { return bU(rng); });
  if (c.bias)
    ref.dtBias = biasV;
  std::uniform_real_distribution<double> bigU(0.5, 2.0), unit(0, 1);
  fill(dt, ref.dt, [&] {
    if (c.padding)
      return unit(rng) < 0.25 ? -1.0 : bigU(rng);
    double step = c.stepScale * std::exp(logU(rng));
    return c.softplus ? std::log(std::expm1(step)) - (c.bias ? 0.1 : 0.0)
                      : step;
  });
  std::vector<double> dV, zV, initV;
  fill(D, dV, [&] { return normal(rng); });
  fill(z, zV, [&] { return normal(rng); });
  fill(init, initV, [&] { return 0.1 * normal(rng); });
  if (c.d != DKind::none)
    ref.D = dV;
  if (c.z)
    ref.z = zV;
  if (c.init)
    ref.init = initV;
  if (c.seq) {
    // Packed sequences: nondecreasing ids with a few boundaries; odd rows
    // start past sequence 0 (so the initial state reaches nothing there).
    ref.seqIdx.resize(c.b * c.L);
    std::uniform_int_distribution<int64_t> at(0, c.L - 1);
    for (int64_t bi = 0; bi < c.b; ++bi) {
      std::vector<int64_t> cuts = {at(rng), at(rng), at(rng)};
      int32_t id = bi % 2;
      for (int64_t t = 0; t < c.L; ++t) {
        for (int64_t cut : cuts)
          id += (t == cut && t > 0);
        ref.seqIdx[bi * c.L + t] = id;
        seq.set(bi * c.L + t, id);
      }
    }
  }

  // The intermediates, laid out as the library lays out its workspace: rows
  // of dt and Acs padded to 4 floats (16-byte aligned).
  // Each chunk's state and chunk_state's output for it side by side, (b,
  // nc, 2, h, p, n), as on the library's split path: compute_out's `slots`
  // sees them as 2 nc chunks. The segmented scan's factors (b, h, nc) with
  // padded rows.
  const int64_t nc = ceilDiv(c.L, c.Q), Lp = ceilDiv(c.L, 4) * 4;
  const int64_t chunkElems = c.h * c.p * c.n;
  HostTensor dtOut(DType::f32, {c.b, c.h, Lp}), acs(DType::f32, {c.b, c.h, Lp}),
      stateSlots(c.x, {c.b, nc, 2, c.h, c.p, c.n}),
      decay(DType::f32, {c.b, c.h, ceilDiv(nc, 4) * 4}),
      finalStates(DType::f32, {c.b, c.h, c.p, c.n}),
      y(c.x, {c.b, c.L, c.h, c.p}), cbt(c.x, {c.b, nc, c.g, c.Q, c.Q});
  // (cbt poisoned too: compute_out reads its diagonal blocks unmasked
  // without seq_idx, so chunk_cb must write every entry it reads there,
  // the future tokens' as 0, whatever the two kernels' block sizes; the
  // entries it leaves unwritten must be dropped.)
  for (HostTensor *t :
       {&dtOut, &acs, &stateSlots, &decay, &finalStates, &y, &cbt})
    t->poison();
  interp::ViewArg dtOutV = dtOut.view(), acsV = acs.view();
  dtOutV.sizes[2] = acsV.sizes[2] = c.L;
  interp::ViewArg decayV = decay.view();
  decayV.sizes[2] = nc;
  const std::vector<int64_t> chunkStrides = {nc * 2 * chunkElems,
                                             2 * chunkElems, c.p * c.n, c.n, 1};
  interp::ViewArg statesV{
      stateSlots.data(), c.x, {c.b, nc, c.h, c.p, c.n}, chunkStrides};
  interp::ViewArg localV = statesV;
  localV.data = stateSlots.data() + chunkElems * dtypeBytes(c.x);
  interp::ViewArg slotsV{stateSlots.data(),
                         c.x,
                         {c.b, 2 * nc, c.h, c.p, c.n},
                         {nc * 2 * chunkElems, chunkElems, c.p * c.n, c.n, 1}};

  std::string err = interp::run(
      cumsumK, {c.b, nc, ceilDiv(c.h, 4)},
      {dt.view(), A.view(), bias.view(), dtOutV, acsV, c.dtMin, c.dtMax});
  ASSERT_EQ(err, "") << "chunk_cumsum";

  interp::ViewArg seqV = c.seq ? seq.view() : absent(DType::i32, 2);
  interp::ViewArg initV2 = c.init ? init.view() : absent(DType::f32, 4);
  // CHAIN: the states entering the segments (f32, poisoned) and their
  // counters (zero, as the library sets them before each forward).
  const int64_t numSegments = ceilDiv(nc, c.segment),
                numP = ceilDiv(c.p, c.blockP), numN = ceilDiv(c.n, chunkN);
  HostTensor carry(DType::f32, {c.b, numSegments, c.h, c.p, c.n}),
      counters(DType::i32, {c.b, numSegments, c.h, numP, numN}),
      order(DType::i32, {1});
  carry.poison();
  for (int64_t i = 0; i < counters.numel(); ++i)
    counters.set(i, 0);
  order.set(0, 0);
  if (split) {
    err = interp::run(
        chunkK,
        {ceilDiv(nc, c.segment) * c.h, numP, numN * c.b},
        {x.view(), B.view(), dtOutV, acsV, seqV, localV, decayV,
         int64_t(c.seq), c.chain ? localV : absent(c.x, 5),
         c.chain ? localV : absent(c.x, 5),
         c.chain ? carry.view() : absent(DType::f32, 5),
         c.chain ? counters.view() : absent(DType::i32, 5),
         c.chain ? order.view() : absent(DType::i32, 1), initV2,
         c.chain ? finalStates.view() : absent(DType::f32, 4), int64_t(c.init),
         int64_t(c.chain)});
    ASSERT_EQ(err, "") << "chunk_state";
  }
  if (split && c.chain) {
    // compute_out reads the states where chunk_state wrote them.
    statesV = localV;
  } else if (split) {
    err = interp::run(
        passK, {ceilDiv(c.p, passP), ceilDiv(c.n, passN), c.b * c.h},
        {localV, decayV, acsV, seqV, initV2, statesV, finalStates.view(),
         int64_t(c.seq), int64_t(c.init), int64_t(1)});
    ASSERT_EQ(err, "") << "state_passing";
  } else {
    err = interp::run(
        stateK, {ceilDiv(c.p, c.blockP), ceilDiv(c.n, c.blockN), c.b * c.h},
        {x.view(), B.view(), dtOutV, acsV, seqV, initV2, statesV,
         finalStates.view(), int64_t(c.seq), int64_t(c.init), int64_t(1)});
    ASSERT_EQ(err, "") << "fwd_pass_state";
  }

  interp::ViewArg dView = absent(DType::f32, 2);
  if (c.d != DKind::none) {
    dView = D.view();
    dView.sizes = {c.h, c.p};
    dView.strides = c.d == DKind::perHead ? std::vector<int64_t>{1, 0}
                                          : std::vector<int64_t>{c.p, 1};
  }
  interp::ViewArg zView = c.z ? z.view() : absent(c.x, 4);
  interp::ViewArg cbView = absent(c.x, 5);
  if (stored) {
    cbView = cbt.view();
    err = interp::run(cbK, {ceilDiv(c.L, cbBlock) * c.g, c.Q / cbBlock, c.b},
                      {B.view(), C.view(), cbView});
    ASSERT_EQ(err, "") << "chunk_cb";
  }
  err = interp::run(
      outK, {ceilDiv(c.L, c.blockM) * c.h, ceilDiv(c.p, c.blockP), c.b},
      {x.view(), B.view(), C.view(), dtOutV, acsV, seqV, statesV, slotsV,
       decayV, dView, zView, y.view(), cbView, int64_t(c.seq),
       int64_t(c.d == DKind::none      ? 0
               : c.d == DKind::perHead ? 1
                                       : 2),
       int64_t(c.z)});
  ASSERT_EQ(err, "") << "compute_out";

  reference::ForwardOutputs want = reference::forward(ref);
  std::vector<double> gotY(y.numel()), gotS(finalStates.numel());
  for (int64_t i = 0; i < y.numel(); ++i) {
    gotY[i] = y.get(i);
    ASSERT_FALSE(std::isnan(gotY[i])) << "y[" << i << "] not written; " << c;
  }
  for (int64_t i = 0; i < finalStates.numel(); ++i) {
    gotS[i] = finalStates.get(i);
    ASSERT_FALSE(std::isnan(gotS[i])) << "final[" << i << "] not written";
  }
  double eY = relativeL2(gotY, want.y), eS = relativeL2(gotS, want.finalStates);
  // MAMBA2.md's contract: y 1e-2 (bf16) / 5e-3 (f16), final states 5e-3.
  EXPECT_LE(eY, c.x == DType::bf16 ? 1e-2 : 5e-3)
      << c << " split=" << split << " stored=" << stored << "; seed " << seed;
  EXPECT_LE(eS, 5e-3) << c << " split=" << split << "; seed " << seed;
  std::printf("  [%s%s%s] rel L2: y %.2e  final %.2e\n",
              ::testing::PrintToString(c).c_str(), split ? " split" : "",
              stored ? " stored" : "", eY, eS);
}

/// Runs chunk_cb (one chunk of Q = 128 tokens, one group, n = 16) with
/// blocks of `blk` tokens on B and C (1 x 128 x 1 x 16) into cbt
/// (1 x 1 x 1 x 128 x 128), poisoned first. False after a failure.
bool runChunkCb(int64_t blk, HostTensor &B, HostTensor &C, HostTensor &cbt) {
  static mlir::MLIRContext ctx;
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> keep;
  // (b = 1, one chunk: cbt is 1 x 1 x 1 x Q x Q.)
  const int64_t L = B.sizes[1], Q = cbt.sizes[3];
  auto cbK = traceOne(ctx, "chunk_cb",
                      {{"Q", Q},
                       {"X_DTYPE", static_cast<int64_t>(B.dtype)},
                       {"BLOCK_M", blk},
                       {"BLOCK_K", 16}},
                      keep);
  EXPECT_TRUE(cbK);
  if (!cbK)
    return false;
  cbt.poison();
  std::string err = interp::run(cbK, {ceilDiv(L, blk), Q / blk, 1},
                                {B.view(), C.view(), cbt.view()});
  EXPECT_EQ(err, "");
  return err.empty();
}

// chunk_cb with f16 sums past f16's range stores them clamped to +-65504
// (not inf, which a decay of 0 would turn into NaN in compute_out), 0 for
// a source token after its target in a diagonal block (compute_out reads
// those blocks unmasked), and for the block above the diagonal 0 where it
// lies in the same span of cbZeroSpan(Q) tokens (64 at Q = 128), else
// leaves it as it was.
TEST(Mamba2ChunkCb, ClampsF16SumsAndZeroesFutureTokens) {
  const int64_t L = 128, n = 16, Q = 128;
  HostTensor B(DType::f16, {1, L, 1, n}), C(DType::f16, {1, L, 1, n}),
      cbt(DType::f16, {1, 1, 1, Q, Q});
  // Rows 0-63 of B and C hold 100 (sums of 16 x 10^4 = 160000), the rest
  // 0.5 (sums of 4).
  for (int64_t t = 0; t < L; ++t)
    for (int64_t k = 0; k < n; ++k) {
      B.set(t * n + k, t < 64 ? 100.0 : 0.5);
      C.set(t * n + k, t < 64 ? -100.0 : 0.5);
    }
  ASSERT_TRUE(runChunkCb(64, B, C, cbt));
  // cbt[s, t] = B_s · C_t.
  EXPECT_EQ(cbt.get(0 * Q + 0), -65504.0);   // s, t < 64: -160000
  EXPECT_EQ(cbt.get(5 * Q + 20), -65504.0);
  EXPECT_EQ(cbt.get(10 * Q + 100), 800.0);   // s < 64 <= t: 16 x 100 x 0.5
  EXPECT_EQ(cbt.get(100 * Q + 120), 4.0);    // both >= 64
  // Above the diagonal (64-token blocks: zeroed where one span of
  // cbZeroSpan(Q) tokens holds both).
  if (100 / cbZeroSpan(Q) == 10 / cbZeroSpan(Q))
    EXPECT_EQ(cbt.get(100 * Q + 10), 0.0);
  else
    EXPECT_TRUE(std::isnan(cbt.get(100 * Q + 10)));
  EXPECT_EQ(cbt.get(20 * Q + 5), 0.0);       // s > t in a diagonal block
  EXPECT_EQ(cbt.get(127 * Q + 64), 0.0);
  EXPECT_EQ(cbt.get(127 * Q + 127), 4.0);
}

// With 32-token blocks, chunk_cb also zeroes the blocks above the diagonal
// inside each aligned span of cbZeroSpan(Q) tokens (compute_out's row
// blocks of at most that many tokens read them unmasked): 64 at Q = 128,
// 128 at Q = 256. It leaves the others as they were. Small integers: every
// sum is exact in bf16.
TEST(Mamba2ChunkCb, ZeroesFutureTokensWithinTheSpan) {
  for (const int64_t Q : {128, 256}) {
    const int64_t L = Q, n = 16, span = cbZeroSpan(Q);
    EXPECT_EQ(span, Q == 256 ? 128 : 64);
    HostTensor B(DType::bf16, {1, L, 1, n}), C(DType::bf16, {1, L, 1, n}),
        cbt(DType::bf16, {1, 1, 1, Q, Q});
    const unsigned seed = freshSeed();
    std::mt19937 rng(seed);
    std::uniform_int_distribution<int> small(-2, 2);
    for (int64_t i = 0; i < L * n; ++i) {
      B.set(i, small(rng));
      C.set(i, small(rng));
    }
    ASSERT_TRUE(runChunkCb(32, B, C, cbt));
    int64_t zeroed = 0, left = 0;
    for (int64_t s = 0; s < Q; ++s)
      for (int64_t t = 0; t < Q; ++t) {
        double got = cbt.get(s * Q + t);
        if (s <= t) {
          double want = 0;
          for (int64_t k = 0; k < n; ++k)
            want += B.get(s * n + k) * C.get(t * n + k);
          ASSERT_EQ(got, want)
              << "Q " << Q << " s " << s << " t " << t << " seed " << seed;
        } else if (s / span == t / span) {
          ASSERT_EQ(got, 0.0)
              << "Q " << Q << " s " << s << " t " << t << " seed " << seed;
          ++zeroed;
        } else {
          ASSERT_TRUE(std::isnan(got)) << "Q " << Q << " s " << s << " t "
                                       << t;
          ++left;
        }
      }
    // Both kinds of entries above the diagonal exist at each Q.
    EXPECT_GT(zeroed, 0);
    EXPECT_GT(left, 0);
  }
}

Case base(int64_t b, int64_t L, int64_t h, int64_t p, int64_t n, int64_t g,
          int64_t Q) {
  return Case{b, L, h, p, n, g, Q};
}
template <class F> Case with(Case c, F f) {
  f(c);
  return c;
}

/// `c` with slowly decaying heads (A = -0.05 and -2 in turn instead of
/// -U(1, 16)): with MAMBA2.md's draw a chunk's state has decayed by about
/// e^-12 after 64 tokens, so that a state term dropped or misplaced moves y
/// by less than the tolerance; here the state entering a segment still
/// carries most of head 0's output 2048 tokens later.
Case slow(Case c) {
  c.aHeads = {-0.05, -2};
  return c;
}

INSTANTIATE_TEST_SUITE_P(
    Mamba2, Mamba2Forward,
    ::testing::Combine(::testing::Values(
        // Plain, ragged L (the last chunk short), one and two chunks.
        base(1, 100, 2, 32, 16, 1, 64),
        base(2, 200, 3, 64, 32, 1, 128),
        // Chunks past state_passing's unrolled loop (10 chunks: two
        // iterations of 4 and 2 after), with sequences and an initial state
        // (8 chunks: the loop alone).
        with(base(1, 586, 2, 32, 32, 1, 64),
             [](Case &c) { c.seq = c.init = true; }),
        base(1, 512, 2, 32, 16, 1, 64),
        // Each option alone.
        with(base(1, 150, 2, 32, 32, 1, 64), [](Case &c) { c.d = DKind::perHead; }),
        with(base(1, 150, 2, 32, 32, 1, 64), [](Case &c) { c.d = DKind::perHeadDim; }),
        // D of a head folded into the diagonal (fold_d): with source blocks
        // half the row blocks (the diagonal split over two of them), at
        // Q = 256 with the state dimension unrolled (every block in the
        // loop up to the diagonal), and at Q = 256 with it in loops (the
        // blocks before the diagonal factored: the library's headline path).
        with(base(1, 150, 2, 32, 32, 1, 64), [](Case &c) {
          c.d = DKind::perHead, c.blockS = 32, c.blockCb = 32;
        }),
        with(base(1, 600, 2, 32, 64, 1, 256), [](Case &c) { c.d = DKind::perHead; }),
        with(base(1, 600, 2, 32, 96, 1, 256), [](Case &c) { c.d = DKind::perHead; }),
        // Blocks on both sides of split_diagonal's span (64 in log2), by
        // head and by block: on the headline's path (Q = 256, the chunk's
        // blocks in one factored loop, 2), with the factored diagonal
        // alone (1), and at Q = 128 (off by default; where the loop up to
        // the diagonal holds the blocks before it too).
        with(base(1, 600, 4, 32, 96, 1, 256), [](Case &c) {
          c.d = DKind::perHead, c.stepScale = 4, c.aHeads = {-1, -12, -4, -16};
        }),
        with(base(1, 600, 4, 32, 96, 1, 256), [](Case &c) {
          c.d = DKind::perHead, c.stepScale = 4, c.splitDiagonal = 1;
          c.aHeads = {-1, -12, -4, -16};
        }),
        with(base(2, 300, 4, 32, 32, 1, 128), [](Case &c) {
          c.stepScale = 4, c.z = true, c.splitDiagonal = 2;
          c.aHeads = {-16, -4, -12, -1};
        }),
        // ... in f16 (the factors in f32 there: 2^64 is past f16's range).
        with(base(1, 600, 4, 32, 96, 1, 256), [](Case &c) {
          c.x = DType::f16, c.d = DKind::perHead, c.stepScale = 4;
          c.aHeads = {-1, -12, -4, -16};
        }),
        // Padding tokens (dt = 0) among large steps, on the headline's path
        // (Q = 256, n in loops, D folded into the diagonal).
        with(base(1, 600, 2, 32, 96, 1, 256), [](Case &c) {
          c.d = DKind::perHead, c.padding = true;
        }),
        with(base(1, 130, 2, 32, 16, 1, 64), [](Case &c) { c.z = true; }),
        with(base(1, 130, 2, 32, 16, 1, 64),
             [](Case &c) { c.bias = c.softplus = true; }),
        with(base(1, 130, 2, 32, 16, 1, 64),
             [](Case &c) { c.dtMin = 5e-3, c.dtMax = 4e-2; }),
        with(base(2, 190, 2, 32, 32, 1, 64), [](Case &c) { c.init = true; }),
        with(base(2, 250, 2, 32, 32, 1, 64), [](Case &c) { c.seq = true; }),
        // ... with compute_out's source blocks half its row blocks.
        with(base(2, 250, 2, 32, 32, 1, 64), [](Case &c) {
          c.seq = c.init = true, c.blockS = 32, c.blockCb = 32;
          c.d = DKind::perHead;
        }),
        // ... and chunk_cb's blocks half compute_out's (its 64-token box
        // then spans a written block and an unwritten one).
        with(base(1, 200, 2, 32, 32, 1, 128), [](Case &c) { c.blockCb = 32; }),
        // ... and twice them: compute_out's 128-token row blocks. At
        // Q = 256 (the library's default there) within chunk_cb's zero
        // span, unmasked: with 128-token source blocks and 64-token ones
        // (A by head: decays both within and past split_diagonal's span,
        // factored on one side and exact on the other), with the factored
        // diagonal alone (split_diagonal 1), and with seq_idx (masked).
        // At Q = 128, past the span (64 there), they keep their causal
        // mask: a block chunk_cb leaves unwritten lies in their diagonal.
        with(base(1, 300, 2, 32, 32, 1, 256), [](Case &c) {
          c.blockM = 128, c.blockS = 128;
        }),
        with(base(1, 600, 4, 32, 96, 1, 256), [](Case &c) {
          c.blockM = 128, c.blockS = 64, c.d = DKind::perHead;
          c.stepScale = 4, c.aHeads = {-1, -6, -2, -16}, c.splitDiagonal = 1;
        }),
        with(base(1, 300, 2, 32, 32, 1, 128), [](Case &c) {
          c.blockM = 128, c.d = DKind::perHead;
        }),
        with(base(2, 400, 2, 32, 96, 1, 128), [](Case &c) {
          c.blockM = 128, c.blockS = 128, c.z = true;
        }),
        with(base(1, 600, 4, 32, 96, 1, 256), [](Case &c) {
          c.blockM = 128, c.blockS = 64, c.d = DKind::perHead;
          c.stepScale = 4, c.aHeads = {-1, -6, -2, -16};
        }),
        with(base(1, 600, 2, 32, 96, 1, 256), [](Case &c) {
          c.blockM = 128, c.blockS = 64, c.z = true;
        }),
        with(base(1, 300, 2, 32, 32, 1, 256), [](Case &c) {
          c.blockM = 128, c.seq = true, c.d = DKind::perHead;
        }),
        with(base(1, 600, 4, 32, 96, 1, 256), [](Case &c) {
          c.x = DType::f16, c.blockM = 128, c.blockS = 64, c.stepScale = 4;
          c.aHeads = {-1, -12, -4, -16};
        }),
        // Groups, f16, dt dtypes, Q = 256, blocks that do not divide.
        base(1, 140, 4, 32, 16, 2, 64),
        with(base(1, 140, 4, 32, 16, 4, 64),
             [](Case &c) { c.x = DType::f16, c.d = DKind::perHead; }),
        with(base(1, 300, 2, 32, 16, 1, 256), [](Case &c) { c.dt = DType::f32; }),
        // Q = 256 with n in loops: three blocks before the diagonal.
        base(1, 600, 2, 32, 96, 1, 256),
        with(base(1, 77, 3, 48, 40, 1, 64), [](Case &c) {
          c.dt = DType::f16, c.blockP = 32, c.blockN = 32, c.blockT = 32,
          c.blockM = 32, c.blockK = 16, c.blockS = 16;
        }),
        // More than 64 state columns: chunk_state's 128-column block and
        // its 256-column one, each ragged, with two batch rows; p not a
        // multiple of 16.
        with(base(2, 150, 2, 40, 96, 1, 64), [](Case &c) { c.init = true; }),
        with(base(2, 150, 2, 40, 200, 1, 64), [](Case &c) { c.init = true; }),
        // Everything at once.
        with(base(2, 230, 4, 64, 64, 2, 128), [](Case &c) {
          c.d = DKind::perHeadDim, c.z = c.bias = c.softplus = c.init =
                                       c.seq = true;
          c.x = DType::f16, c.dt = DType::f32, c.blockM = 32;
        })),
        ::testing::Bool(), ::testing::Bool()));

// The segmented state scan (SEGMENT > 1; the split path only): segments cut
// short by the last chunk, a ragged last chunk, sequences whose boundaries
// fall inside and between segments, an initial state, and the headline's
// compute_out (Q = 256, 128-token rows, n in loops).
INSTANTIATE_TEST_SUITE_P(
    Mamba2Segmented, Mamba2Forward,
    ::testing::Combine(
        ::testing::Values(
            slow(with(base(1, 600, 2, 32, 96, 1, 64),
                      [](Case &c) {
                        c.segment = 3, c.init = true, c.d = DKind::perHead;
                      })),
            slow(with(base(2, 900, 2, 32, 96, 1, 64),
                      [](Case &c) { c.segment = 4, c.seq = c.init = true; })),
            slow(with(base(1, 520, 2, 32, 32, 1, 64),
                      [](Case &c) { c.segment = 8, c.z = true; })),
            slow(with(base(2, 700, 2, 32, 40, 1, 128),
                      [](Case &c) {
                        c.segment = 2, c.x = DType::f16, c.blockM = 128,
                        c.z = true;
                        c.init = true;
                      })),
            slow(with(base(1, 2100, 2, 32, 96, 1, 256),
                      [](Case &c) {
                        c.segment = 8, c.blockM = 128, c.d = DKind::perHead;
                        c.init = true;
                      })),
            // compute_out's two products per step (segment_steps 1), and
            // S_c's block formed in place (2), with packed sequences, and
            // at Q = 256 with a second segment of three and a half chunks.
            slow(with(base(2, 900, 2, 32, 96, 1, 64),
                      [](Case &c) {
                        c.segment = 4, c.seq = c.init = true,
                        c.segmentSteps = 1;
                      })),
            slow(with(base(1, 2900, 2, 32, 96, 1, 256),
                      [](Case &c) {
                        c.segment = 8, c.blockM = 128, c.blockK = 32,
                        c.z = true;
                        c.segmentSteps = 1;
                      })),
            slow(with(base(2, 900, 2, 32, 96, 1, 64),
                      [](Case &c) {
                        c.segment = 4, c.seq = c.init = true,
                        c.segmentSteps = 2;
                      })),
            // The segment's factor applied once (segment_scale 1), at
            // Q = 64 with packed sequences and at Q = 256 over a second
            // segment.
            slow(with(base(2, 900, 2, 32, 96, 1, 64),
                      [](Case &c) {
                        c.segment = 4, c.seq = c.init = true,
                        c.segmentScale = 1;
                      })),
            slow(with(base(1, 2900, 2, 32, 96, 1, 256),
                      [](Case &c) {
                        c.segment = 8, c.blockM = 128, c.z = true;
                        c.segmentScale = 1;
                      })),
            slow(with(base(1, 2900, 2, 32, 96, 1, 256),
                      [](Case &c) {
                        c.segment = 8, c.blockM = 128, c.x = DType::f16,
                        c.z = true;
                        c.segmentSteps = 2;
                      }))),
        ::testing::Values(true), ::testing::Bool()));

// The scan over segments in chunk_state (CHAIN): each program waits for the
// state entering its segment from the one before (here the programs run in
// turn, so the count is always there: what the interpreter checks is the
// scan's arithmetic, the counters' indices and the states' placement), with
// packed sequences across segment boundaries and an initial state, two
// blocks of p, segments cut short by the last chunk, 64- and 128-column
// blocks of the state (its halves ragged at n = 96), f16, and the
// headline's compute_out.
INSTANTIATE_TEST_SUITE_P(
    Mamba2Chained, Mamba2Forward,
    ::testing::Combine(
        ::testing::Values(
            slow(with(base(2, 900, 2, 40, 96, 1, 64),
                      [](Case &c) {
                        c.segment = 4, c.seq = c.init = true, c.chain = true;
                        c.blockP = 32;
                      })),
            slow(with(base(1, 520, 3, 32, 32, 1, 64),
                      [](Case &c) {
                        c.segment = 8, c.z = true, c.chain = true;
                      })),
            slow(with(base(2, 700, 2, 32, 40, 1, 128),
                      [](Case &c) {
                        c.segment = 2, c.x = DType::f16, c.blockM = 128,
                        c.z = c.init = c.chain = true;
                      })),
            slow(with(base(1, 2100, 2, 32, 96, 1, 256),
                      [](Case &c) {
                        c.segment = 8, c.blockM = 128, c.d = DKind::perHead;
                        c.init = c.chain = true;
                      }))),
        ::testing::Values(true), ::testing::Bool()));

} // namespace
