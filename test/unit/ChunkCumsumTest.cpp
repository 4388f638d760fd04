//===- ChunkCumsumTest.cpp - Mamba-2 chunk_cumsum vs the float64 reference ===//

#include "TestUtil.h"
#include "kernels/mamba2/Reference.h"

#include <gtest/gtest.h>

#include <limits>

using namespace tessel;
using namespace tessel::dsl;
using namespace tessel::test;

namespace {

struct Case {
  int64_t b, L, h, Q, blockH;
  DType dtDtype;
  bool bias, softplus;
  double dtMin, dtMax;
};

std::ostream &operator<<(std::ostream &os, const Case &c) {
  return os << "b=" << c.b << " L=" << c.L << " h=" << c.h << " Q=" << c.Q
            << " BLOCK_H=" << c.blockH << " dt=" << dtypeName(c.dtDtype)
            << " bias=" << c.bias << " softplus=" << c.softplus << " limit=("
            << c.dtMin << ", " << c.dtMax << ")";
}

class ChunkCumsum : public ::testing::TestWithParam<Case> {};

TEST_P(ChunkCumsum, MatchesFloat64Reference) {
  const Case c = GetParam();
  unsigned seed = freshSeed();
  std::mt19937 rng(seed);
  static mlir::MLIRContext ctx;
  const KernelDef *def = findKernel("chunk_cumsum");
  ASSERT_NE(def, nullptr);
  Config cfg = defaultConfig(*def);
  cfg.set("Q", c.Q);
  cfg.set("BLOCK_H", c.blockH);
  cfg.set("DT_DTYPE", static_cast<int64_t>(c.dtDtype));
  cfg.set("HAS_DT_BIAS", c.bias);
  cfg.set("DT_SOFTPLUS", c.softplus);
  TraceResult traced = traceKernel(ctx, *def, cfg);
  ASSERT_TRUE(traced.module) << traced.diagnostics.size();
  auto kernel = *traced.module->getOps<mlir::func::FuncOp>().begin();

  // Inputs drawn like a real model: raw dt around softplus^-1 of
  // log-uniform [1e-3, 1e-1] when softplus is on, else the step itself.
  HostTensor dt(c.dtDtype, {c.b, c.L, c.h});
  HostTensor A(DType::f32, {c.h}), bias(DType::f32, {c.h});
  std::uniform_real_distribution<double> logU(std::log(1e-3), std::log(1e-1));
  std::uniform_real_distribution<double> aU(1, 16), bU(-1, 1);
  std::vector<double> dtV(dt.numel()), AV(c.h), biasV;
  for (int64_t i = 0; i < dt.numel(); ++i) {
    double step = std::exp(logU(rng));
    dtV[i] = dt.set(i, c.softplus ? std::log(std::expm1(step)) : step);
  }
  for (int64_t i = 0; i < c.h; ++i) {
    AV[i] = A.set(i, -aU(rng));
    double bv = bias.set(i, 0.5 * bU(rng));
    if (c.bias)
      biasV.push_back(bv);
  }
  // The outputs are declared 16-byte aligned: rows padded to 4 floats, as the
  // library allocates them; the padding must stay untouched.
  const int64_t Lp = (c.L + 3) / 4 * 4;
  HostTensor dtOut(DType::f32, {c.b, c.h, Lp}), acs(DType::f32, {c.b, c.h, Lp});
  dtOut.poison();
  acs.poison();
  interp::ViewArg dtOutView = dtOut.view(), acsView = acs.view();
  dtOutView.sizes[2] = acsView.sizes[2] = c.L;
  int64_t nc = (c.L + c.Q - 1) / c.Q, hb = (c.h + c.blockH - 1) / c.blockH;
  std::string err = interp::run(
      kernel, {c.b, nc, hb},
      {dt.view(), A.view(), bias.view(), dtOutView, acsView, c.dtMin, c.dtMax});
  ASSERT_EQ(err, "");

  auto ref = mamba2::reference::chunkCumsum(dtV, AV, biasV, c.b, c.L, c.h, c.Q,
                                            c.softplus, c.dtMin, c.dtMax);
  std::vector<double> gotDt, gotAcs;
  for (int64_t row = 0; row < c.b * c.h; ++row)
    for (int64_t t = 0; t < Lp; ++t) {
      double d = dtOut.get(row * Lp + t), a = acs.get(row * Lp + t);
      if (t >= c.L) {
        ASSERT_TRUE(std::isnan(d) && std::isnan(a))
            << "padding written at row " << row << "; " << c;
        continue;
      }
      ASSERT_FALSE(std::isnan(d) || std::isnan(a))
          << "row " << row << " token " << t << " not written; " << c;
      gotDt.push_back(d);
      gotAcs.push_back(a);
    }
  double eDt = relativeL2(gotDt, ref.dt), eAcs = relativeL2(gotAcs, ref.acs);
  EXPECT_LE(eDt, 1e-6) << c << " seed " << seed;
  EXPECT_LE(eAcs, 1e-6) << c << " seed " << seed;
  std::printf("  [%s] rel L2: dt %.2e  Acs %.2e\n",
              ::testing::PrintToString(c).c_str(), eDt, eAcs);
}

constexpr double kInf = std::numeric_limits<double>::infinity();

INSTANTIATE_TEST_SUITE_P(
    Mamba2, ChunkCumsum,
    ::testing::Values(
        // L not a multiple of Q, h not a multiple of BLOCK_H.
        Case{1, 1000, 24, 256, 16, DType::bf16, true, true, 0.0, kInf},
        Case{2, 300, 7, 64, 4, DType::f16, true, true, 0.0, kInf},
        Case{1, 129, 80, 128, 32, DType::f32, false, true, 0.0, kInf},
        Case{3, 64, 5, 64, 8, DType::bf16, false, false, 0.0, kInf},
        Case{2, 517, 13, 256, 16, DType::f32, true, false, 1e-3, 5e-2},
        Case{1, 1, 3, 64, 2, DType::bf16, true, true, 0.0, 0.05},
        Case{1, 2048, 80, 256, 64, DType::bf16, true, true, 0.0, kInf}));

} // namespace
