//===- InterpreterTest.cpp - tile ops run by the interpreter vs plain C++ -===//
//
// DSL kernels exercising each op, run on fresh random inputs with ragged
// sizes and poisoned outputs, compared with references written in plain C++.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace tessel;
using namespace tessel::dsl;
using namespace tessel::test;

namespace {

mlir::MLIRContext &context() {
  static mlir::MLIRContext ctx;
  return ctx;
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

//===----------------------------------------------------------------------===//
// Loads and stores: strides, transposed views, padding, dropped stores
//===----------------------------------------------------------------------===//

void copyKernel(const Config &cfg, View<float, 2> x, View<float, 2> y) {
  auto i = program_id(0), j = program_id(1);
  Padding pad = static_cast<Padding>(cfg["PAD"]);
  Tile t = load(x, {i, j}, {cfg["BM"], cfg["BN"]}, {.padding = pad});
  store(y, {i, j}, t);
}

struct CopyCase {
  int64_t M, N, BM, BN;
  bool transposed;
  int pad;
};

class Copy : public ::testing::TestWithParam<CopyCase> {};

TEST_P(Copy, MatchesReference) {
  CopyCase c = GetParam();
  unsigned seed = freshSeed();
  std::mt19937 rng(seed);
  auto t = trace(context(), copyKernel, {"x", "y"},
                 Config({{"BM", c.BM}, {"BN", c.BN}, {"PAD", c.pad}}));
  ASSERT_TRUE(t.module) << t.allDiagnostics();
  int64_t gm = ceilDiv(c.M, c.BM), gn = ceilDiv(c.N, c.BN);
  // x is M x N, stored row-major or as the transpose of an N x M array.
  HostTensor x(DType::f32, {c.M, c.N});
  x.randomize(rng);
  interp::ViewArg xv = x.view();
  std::vector<double> want(c.M * c.N);
  if (c.transposed) {
    xv.strides = {1, c.M};
    for (int64_t r = 0; r < c.M; ++r)
      for (int64_t k = 0; k < c.N; ++k)
        want[r * c.N + k] = x.get(k * c.M + r);
  } else {
    for (int64_t i = 0; i < c.M * c.N; ++i)
      want[i] = x.get(i);
  }
  // y covers the whole grid, so padded elements become visible, plus one
  // extra row and column that no program may touch.
  int64_t YM = gm * c.BM + 1, YN = gn * c.BN + 1;
  HostTensor y(DType::f32, {YM, YN});
  y.poison();
  interp::ViewArg yv = y.view();
  yv.sizes = {gm * c.BM, gn * c.BN};
  std::string err = interp::run(t.kernel(), {gm, gn, 1}, {xv, yv});
  ASSERT_EQ(err, "");
  double pad = c.pad == 0   ? 0.0
               : c.pad == 1 ? -std::numeric_limits<double>::infinity()
                            : std::nan("");
  for (int64_t r = 0; r < YM; ++r)
    for (int64_t k = 0; k < YN; ++k) {
      double got = y.get(r * YN + k);
      if (r == YM - 1 || k == YN - 1) {
        ASSERT_TRUE(std::isnan(got))
            << "store outside the view at " << r << "," << k;
        continue;
      }
      double expect = r < c.M && k < c.N ? want[r * c.N + k] : pad;
      if (std::isnan(expect))
        ASSERT_TRUE(std::isnan(got)) << r << "," << k << " seed " << seed;
      else
        ASSERT_EQ(got, expect) << r << "," << k << " seed " << seed;
    }
}

INSTANTIATE_TEST_SUITE_P(Interpreter, Copy,
                         ::testing::Values(CopyCase{37, 53, 16, 32, false, 0},
                                           CopyCase{37, 53, 16, 32, true, 0},
                                           CopyCase{64, 64, 64, 64, false, 0},
                                           CopyCase{5, 70, 8, 16, true, 1},
                                           CopyCase{33, 17, 32, 8, false, 2},
                                           CopyCase{1, 1, 4, 4, false, 1}));

/// A strided view whose rows are padded (leading dimension > N), with a
/// squeezed batch dimension and bf16 rounding on store.
void squeezeKernel(const Config &, View<float, 3> x, View<bf16, 3> y) {
  auto b = program_id(0), i = program_id(1);
  Tile t = load(x, {b, i, 0}, {drop, 8, 32});
  store(y, {b, 0, i}, cast<bf16>(transpose(t)), {.squeeze = {0}});
}

TEST(Interpreter, SqueezeTransposeAndBf16Store) {
  unsigned seed = freshSeed();
  std::mt19937 rng(seed);
  auto t = trace(context(), squeezeKernel, {"x", "y"});
  ASSERT_TRUE(t.module) << t.allDiagnostics();
  const int64_t B = 3, M = 19, N = 27, LD = 40;
  HostTensor x(DType::f32, {B, M, LD});
  x.randomize(rng, -100, 100);
  interp::ViewArg xv = x.view();
  xv.sizes = {B, M, N};
  HostTensor y(DType::bf16, {B, N, M});
  y.poison();
  std::string err =
      interp::run(t.kernel(), {B, ceilDiv(M, 8), 1}, {xv, y.view()});
  ASSERT_EQ(err, "");
  for (int64_t b = 0; b < B; ++b)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t m = 0; m < M; ++m)
        ASSERT_EQ(
            y.get((b * N + n) * M + m),
            double(interp::roundToBF16(float(x.get((b * M + m) * LD + n)))))
            << b << "," << n << "," << m << " seed " << seed;
}

//===----------------------------------------------------------------------===//
// Elementwise math
//===----------------------------------------------------------------------===//

void mathKernel(const Config &, View<float, 1> x, View<float, 1> y, F32 s) {
  auto i = program_id(0);
  Tile v = load(x, {i}, {64});
  Tile r = exp2(v) * 0.5f + silu(v) - softplus(v * s) / (1.0f + abs(v)) +
           sigmoid(-v) + maximum(v, 0.25f) - minimum(v, s) + sqrt(abs(v)) +
           log1p(abs(v)) + exp(v) - log(abs(v) + 1);
  r = where(v > 0.0f, r, r * 2.0f);
  store(y, {i}, r);
}

double refMath(double v, double s) {
  auto silu = [](double x) { return x / (1 + std::exp(-x)); };
  auto softplus = [](double x) { return x > 20 ? x : std::log1p(std::exp(x)); };
  double r = std::exp2(v) * 0.5 + silu(v) -
             softplus(v * s) / (1 + std::fabs(v)) + 1 / (1 + std::exp(v)) +
             std::max(v, 0.25) - std::min(v, s) + std::sqrt(std::fabs(v)) +
             std::log1p(std::fabs(v)) + std::exp(v) -
             std::log(std::fabs(v) + 1);
  return v > 0 ? r : r * 2;
}

TEST(Interpreter, ElementwiseMath) {
  unsigned seed = freshSeed();
  std::mt19937 rng(seed);
  auto t = trace(context(), mathKernel, {"x", "y", "s"});
  ASSERT_TRUE(t.module) << t.allDiagnostics();
  const int64_t N = 1000;
  HostTensor x(DType::f32, {N});
  x.randomize(rng, -30, 30);
  HostTensor y(DType::f32, {N});
  y.poison();
  double s = 1.7;
  ASSERT_EQ(
      interp::run(t.kernel(), {ceilDiv(N, 64), 1, 1}, {x.view(), y.view(), s}),
      "");
  std::vector<double> got(N), want(N);
  for (int64_t i = 0; i < N; ++i) {
    got[i] = y.get(i);
    want[i] = refMath(x.get(i), float(s));
  }
  EXPECT_LT(relativeL2(got, want), 1e-6) << "seed " << seed;
}

//===----------------------------------------------------------------------===//
// Scans and reductions
//===----------------------------------------------------------------------===//

void scanKernel(const Config &cfg, View<float, 2> x, View<float, 2> y,
                View<float, 2> red) {
  auto i = program_id(0);
  int64_t axis = cfg["AXIS"];
  Tile t = load(x, {i, 0}, {16, 32});
  store(y, {i, 0}, cumsum(t, axis, cfg["REVERSE"] != 0));
  Tile r = reduce(t, axis, static_cast<Reduce>(cfg["KIND"]));
  store(red, {i, 0}, expand_dims(r, 0));
}

struct ScanCase {
  int axis;
  bool reverse;
  int kind;
};
class Scan : public ::testing::TestWithParam<ScanCase> {};

TEST_P(Scan, MatchesReference) {
  ScanCase c = GetParam();
  unsigned seed = freshSeed();
  std::mt19937 rng(seed);
  auto t = trace(
      context(), scanKernel, {"x", "y", "red"},
      Config({{"AXIS", c.axis}, {"REVERSE", c.reverse}, {"KIND", c.kind}}));
  ASSERT_TRUE(t.module) << t.allDiagnostics();
  const int64_t M = 45, N = 29, G = ceilDiv(M, 16);
  HostTensor x(DType::f32, {M, N});
  x.randomize(rng);
  HostTensor y(DType::f32, {M, N});
  y.poison();
  int64_t redLen = c.axis == 0 ? 32 : 16;
  HostTensor red(DType::f32, {G, redLen});
  red.poison();
  ASSERT_EQ(
      interp::run(t.kernel(), {G, 1, 1}, {x.view(), y.view(), red.view()}), "");
  auto X = [&](int64_t r, int64_t k) {
    return r < M && k < N ? x.get(r * N + k) : 0.0; // zero padding
  };
  std::vector<double> got, want;
  for (int64_t g = 0; g < G; ++g) {
    for (int64_t r = 0; r < 16; ++r)
      for (int64_t k = 0; k < 32; ++k) {
        int64_t R = g * 16 + r;
        double s = 0;
        if (c.axis == 0)
          for (int64_t j = 0; j < 16; ++j)
            s += (c.reverse ? j >= r : j <= r) ? X(g * 16 + j, k) : 0;
        else
          for (int64_t j = 0; j < 32; ++j)
            s += (c.reverse ? j >= k : j <= k) ? X(R, j) : 0;
        if (R < M && k < N) {
          got.push_back(y.get(R * N + k));
          want.push_back(s);
        }
      }
    for (int64_t o = 0; o < redLen; ++o) {
      double acc = c.kind == 0 ? 0 : c.kind == 1 ? -INFINITY : INFINITY;
      int64_t len = c.axis == 0 ? 16 : 32;
      for (int64_t j = 0; j < len; ++j) {
        double v = c.axis == 0 ? X(g * 16 + j, o) : X(g * 16 + o, j);
        acc = c.kind == 0   ? acc + v
              : c.kind == 1 ? std::max(acc, v)
                            : std::min(acc, v);
      }
      got.push_back(red.get(g * redLen + o));
      want.push_back(acc);
    }
  }
  EXPECT_LT(relativeL2(got, want), 1e-6) << "seed " << seed;
  for (double g : got)
    ASSERT_FALSE(std::isnan(g)) << "an output was not written";
}

INSTANTIATE_TEST_SUITE_P(
    Interpreter, Scan,
    ::testing::Values(ScanCase{0, false, 0}, ScanCase{0, true, 1},
                      ScanCase{1, false, 2}, ScanCase{1, true, 0},
                      ScanCase{0, false, 2}, ScanCase{1, false, 1}));

//===----------------------------------------------------------------------===//
// Shape changes, iota, if_
//===----------------------------------------------------------------------===//

void shapeKernel(const Config &, View<float, 2> x, View<float, 2> y,
                 View<int32_t, 2> z) {
  Tile t = load(x, {0, 0}, {4, 8});                   // 4x8
  Tile p = permute(reshape(t, {2, 2, 8}), {2, 0, 1}); // 8x2x2
  Tile q = reshape(p, {8, 4});                        // 8x4
  Tile row = reshape(load(x, {0, 0}, {1, 4}), {4});   // first row, 4
  Tile sum = q + broadcast(row, {8, 4});              // rows + x[0, :4]
  Scalar first = program_id(0) == 0;
  Tile out = if_(
      first, [&] { return sum; }, [&] { return -sum; });
  store(y, {0, 0}, out);
  store(z, {0, 0}, iota({8, 4}, 0) * 10 + iota({8, 4}, 1));
}

TEST(Interpreter, PermuteBroadcastReshapeIotaIf) {
  unsigned seed = freshSeed();
  std::mt19937 rng(seed);
  auto t = trace(context(), shapeKernel, {"x", "y", "z"});
  ASSERT_TRUE(t.module) << t.allDiagnostics();
  HostTensor x(DType::f32, {4, 8});
  x.randomize(rng);
  HostTensor y(DType::f32, {8, 4});
  y.poison();
  HostTensor z(DType::i32, {8, 4});
  z.poison();
  ASSERT_EQ(interp::run(t.kernel(), {1, 1, 1}, {x.view(), y.view(), z.view()}),
            "");
  // reshape(4x8 -> 2x2x8): element [a][b][c] = flat (a*2+b)*8+c.
  // permute [2,0,1]: out[c][a][b] = in[a][b][c]; reshape to 8x4: [c][a*2+b].
  for (int64_t c = 0; c < 8; ++c)
    for (int64_t k = 0; k < 4; ++k) {
      double want = x.get(k * 8 + c) + x.get(k);
      EXPECT_FLOAT_EQ(y.get(c * 4 + k), want) << c << "," << k;
      EXPECT_EQ(z.get(c * 4 + k), c * 10 + k);
    }
}

//===----------------------------------------------------------------------===//
// mma with a K loop carrying the accumulator
//===----------------------------------------------------------------------===//

template <class T>
void matmulKernel(const Config &cfg, View<T, 2> a, View<T, 2> b,
                  View<float, 2> c) {
  int64_t BM = cfg["BM"], BN = cfg["BN"], BK = cfg["BK"];
  auto i = program_id(0), j = program_id(1);
  Scalar kTiles = (dim(a, 1) + int(BK - 1)) / int(BK);
  Tile acc = for_range({0, kTiles}, zeros({BM, BN}), [&](Scalar k, Tile acc) {
    return mma(load(a, {i, k}, {BM, BK}), load(b, {k, j}, {BK, BN}), acc);
  });
  store(c, {i, j}, acc);
}

struct MmaCase {
  DType type;
  int64_t M, N, K, BM, BN, BK;
};
class Mma : public ::testing::TestWithParam<MmaCase> {};

TEST_P(Mma, MatchesReference) {
  MmaCase c = GetParam();
  unsigned seed = freshSeed();
  std::mt19937 rng(seed);
  Config cfg({{"BM", c.BM}, {"BN", c.BN}, {"BK", c.BK}});
  Traced t = c.type == DType::bf16
                 ? trace(context(), matmulKernel<bf16>, {"a", "b", "c"}, cfg)
             : c.type == DType::f16
                 ? trace(context(), matmulKernel<f16>, {"a", "b", "c"}, cfg)
                 : trace(context(), matmulKernel<float>, {"a", "b", "c"}, cfg);
  ASSERT_TRUE(t.module) << t.allDiagnostics();
  HostTensor a(c.type, {c.M, c.K}), b(c.type, {c.K, c.N});
  a.randomize(rng);
  b.randomize(rng);
  HostTensor out(DType::f32, {c.M, c.N});
  out.poison();
  ASSERT_EQ(interp::run(t.kernel(), {ceilDiv(c.M, c.BM), ceilDiv(c.N, c.BN), 1},
                        {a.view(), b.view(), out.view()}),
            "");
  std::vector<double> got, want;
  for (int64_t m = 0; m < c.M; ++m)
    for (int64_t n = 0; n < c.N; ++n) {
      double s = 0;
      for (int64_t k = 0; k < c.K; ++k) {
        double av = a.get(m * c.K + k), bv = b.get(k * c.N + n);
        s += av * bv;
      }
      got.push_back(out.get(m * c.N + n));
      want.push_back(s);
    }
  // bf16/f16 operands are exact; tf32 rounds them (2^-11 relative).
  double tol = c.type == DType::f32 ? 2e-3 : 1e-6;
  EXPECT_LT(relativeL2(got, want), tol) << "seed " << seed;
}

INSTANTIATE_TEST_SUITE_P(
    Interpreter, Mma,
    ::testing::Values(MmaCase{DType::bf16, 50, 70, 90, 32, 32, 16},
                      MmaCase{DType::f16, 64, 64, 64, 64, 64, 32},
                      MmaCase{DType::f32, 33, 17, 40, 16, 16, 8},
                      MmaCase{DType::bf16, 16, 8, 16, 16, 8, 16},
                      MmaCase{DType::f16, 100, 30, 7, 64, 16, 16}));

//===----------------------------------------------------------------------===//
// Argument checking
//===----------------------------------------------------------------------===//

void denseKernel(const Config &, View<float, 2, kDense> x) {
  store(x, {0, 0}, zeros({4, 4}));
}

TEST(Interpreter, RejectsBadArguments) {
  auto t = trace(context(), denseKernel, {"x"});
  ASSERT_TRUE(t.module) << t.allDiagnostics();
  HostTensor x(DType::f32, {4, 8});
  interp::ViewArg good = x.view();
  EXPECT_EQ(interp::run(t.kernel(), {1, 1, 1}, {good}), "");
  interp::ViewArg v = good;
  v.strides = {8, 2};
  EXPECT_NE(interp::run(t.kernel(), {1, 1, 1}, {v}).find("unit stride"),
            std::string::npos);
  v = good;
  v.strides = {5, 1};
  EXPECT_NE(interp::run(t.kernel(), {1, 1, 1}, {v}).find("multiple of 16"),
            std::string::npos);
  v = good;
  v.data = static_cast<char *>(v.data) + 4;
  EXPECT_NE(interp::run(t.kernel(), {1, 1, 1}, {v}).find("aligned"),
            std::string::npos);
  v = good;
  v.data = nullptr;
  EXPECT_NE(interp::run(t.kernel(), {1, 1, 1}, {v}).find("null pointer"),
            std::string::npos);
  v = good;
  v.dtype = DType::bf16;
  EXPECT_NE(interp::run(t.kernel(), {1, 1, 1}, {v}).find("element type"),
            std::string::npos);
  EXPECT_NE(interp::run(t.kernel(), {1, 1, 1}, {}).find("takes 1 arguments"),
            std::string::npos);
  EXPECT_NE(
      interp::run(t.kernel(), {1, 1, 1}, {int64_t(3)}).find("must be a view"),
      std::string::npos);
}

} // namespace
