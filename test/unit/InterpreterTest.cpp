//===- InterpreterTest.cpp - tile ops run by the interpreter vs plain C++ -===//
//
// Interpreter checks beyond the shared op cases (OpCasesTest.cpp): loads and
// stores over many tile and view shapes, mma over several M/N/K, and argument
// checking. Fresh random inputs, ragged sizes, poisoned outputs.
//
//===----------------------------------------------------------------------===//

#include "TestUtil.h"
#include "test/kernels/TestKernels.h"

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

//===----------------------------------------------------------------------===//
// mma with a K loop carrying the accumulator
//===----------------------------------------------------------------------===//

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
  Traced t =
      c.type == DType::bf16
          ? trace(context(), test::matmulKernel<bf16>, {"a", "b", "c"}, cfg)
      : c.type == DType::f16
          ? trace(context(), test::matmulKernel<f16>, {"a", "b", "c"}, cfg)
          : trace(context(), test::matmulKernel<float>, {"a", "b", "c"}, cfg);
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

// Three accumulators carried through one loop as a list of tiles, then a
// branch on the program choosing which two it stores (even programs the
// first two, odd ones the last two).
void tileListKernel(const Config &, View<float, 2> x, View<float, 2> y) {
  auto i = program_id(0);
  Scalar blocks = (dim(x, 1) + 31) / 32;
  std::vector<Tile> acc = for_range(
      {0, blocks}, std::vector<Tile>(3, zeros({16, 32})),
      [&](Scalar k, const std::vector<Tile> &a) {
        Tile t = load(x, {i, k}, {16, 32});
        return std::vector<Tile>{a[0] * 0.5f + t, a[1] + t * t, a[2] + 1.0f};
      });
  std::vector<Tile> out = if_(
      i % 2 == 0,
      [&] {
        return std::vector<Tile>{acc[0], acc[1]};
      },
      [&] {
        return std::vector<Tile>{acc[1], acc[2]};
      });
  store(y, {i, 0}, expand_dims(sum(out[0], 1), 1));
  store(y, {i, 1}, expand_dims(sum(out[1], 1), 1));
}

TEST(Interpreter, TileListsCarryAndYieldEachTheirValue) {
  unsigned seed = freshSeed();
  std::mt19937 rng(seed);
  auto t = trace(context(), tileListKernel, {"x", "y"});
  ASSERT_TRUE(t.module) << t.allDiagnostics();
  const int64_t M = 40, N = 100, blocks = ceilDiv(N, 32);
  HostTensor x(DType::f32, {M, N}), y(DType::f32, {M, 2});
  x.randomize(rng);
  y.poison();
  ASSERT_EQ(
      interp::run(t.kernel(), {ceilDiv(M, 16), 1, 1}, {x.view(), y.view()}),
      "");
  for (int64_t r = 0; r < M; ++r) {
    // Column k's block k / 32 is halved once per later block (the first
    // accumulator); squares; one per column and block (32 per block).
    double s[3] = {0, 0, double(32 * blocks)};
    for (int64_t k = 0; k < N; ++k) {
      double v = x.get(r * N + k);
      s[0] += std::ldexp(v, -int(blocks - 1 - k / 32));
      s[1] += v * v;
    }
    const int first = (r / 16) % 2 == 0 ? 0 : 1;
    for (int c = 0; c < 2; ++c)
      EXPECT_NEAR(y.get(r * 2 + c), s[first + c],
                  1e-5 * (1 + std::abs(s[first + c])))
          << "row " << r << " column " << c << " seed " << seed;
  }
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

//===----------------------------------------------------------------------===//
// Counters: tile.signal and tile.wait
//===----------------------------------------------------------------------===//

// Program i waits for counts[0] >= need, then adds i + 1 to counts[1 + i]
// (the last program's index falls outside: nothing is added).
void counterKernel(const Config &, View<int32_t, 1> counts, I32 need) {
  auto i = program_id(0);
  wait_until(counts, {0}, need);
  signal(counts, {i + 1}, i + 1);
}

TEST(Interpreter, SignalAddsAndWaitChecksTheCount) {
  auto t = trace(context(), counterKernel, {"counts", "need"},
                 Config(std::map<std::string, int64_t>{}));
  ASSERT_TRUE(t.module) << t.allDiagnostics();
  std::mt19937 rng(freshSeed());
  const int64_t programs = 5, size = programs; // counts[1..4] + one outside
  std::vector<int32_t> counts(size), before(size);
  for (int32_t &c : counts)
    c = static_cast<int32_t>(rng() % 1000);
  counts[0] = 7;
  before = counts;
  interp::ViewArg v =
      interp::contiguousView(counts.data(), DType::i32, {size});
  // Reached (7 >= 7), and no count (<= 0): both run every program.
  for (int64_t need : {int64_t(7), int64_t(0), int64_t(-3)}) {
    ASSERT_EQ(interp::run(t.kernel(), {programs, 1, 1}, {v, need}), "")
        << "need " << need;
  }
  for (int64_t i = 0; i + 1 < size; ++i)
    EXPECT_EQ(counts[i + 1], before[i + 1] + 3 * (i + 1)) << "counter " << i;
  EXPECT_EQ(counts[0], 7);
  // Not reached: nothing later could raise it.
  std::string err = interp::run(t.kernel(), {1, 1, 1}, {v, int64_t(8)});
  EXPECT_NE(err.find("waits for a count of 8 that is 7"), std::string::npos)
      << err;
}

//===----------------------------------------------------------------------===//
// fma: one rounding, also where the exact value lies just off a tie
//===----------------------------------------------------------------------===//

template <class T>
void fmaKernel16(const Config &, View<T, 1> a, View<T, 1> b, View<T, 1> c,
                 View<T, 1> y) {
  store(y, {0},
        fma(load(a, {0}, {16}), load(b, {0}, {16}), load(c, {0}, {16})));
}

// a·b sits exactly halfway between two neighbours of the 16-bit type, and c
// (2^-24) tips it by half an ulp of a float: the once-rounded result is the
// neighbour on c's side. Rounding the exact sum to a float first lands on
// the tie, which then goes to the even neighbour instead (wrong for +c).
// bf16: (1 + 2^-4)^2 = 1.125 + 2^-8, between 1.125 (even) and 1.125 + 2^-7;
// f16: (1 + 2^-5)(1 + 2^-6) = 1.046875 + 2^-11, between 1.046875 (even) and
// 1.046875 + 2^-10.
TEST(Interpreter, FmaRoundsOnceNextToATie) {
  for (DType dtype : {DType::bf16, DType::f16}) {
    const bool bf = dtype == DType::bf16;
    auto t = bf ? trace(context(), fmaKernel16<bf16>, {"a", "b", "c", "y"},
                        Config(std::map<std::string, int64_t>{}))
                : trace(context(), fmaKernel16<f16>, {"a", "b", "c", "y"},
                        Config(std::map<std::string, int64_t>{}));
    ASSERT_TRUE(t.module) << t.allDiagnostics();
    const double a0 = bf ? 1 + std::ldexp(1.0, -4) : 1 + std::ldexp(1.0, -5);
    const double b0 = bf ? a0 : 1 + std::ldexp(1.0, -6);
    const double low = bf ? 1.125 : 1.046875,
                 ulp = std::ldexp(1.0, bf ? -7 : -10),
                 tip = std::ldexp(1.0, -24);
    ASSERT_EQ(a0 * b0, low + ulp / 2); // the tie itself
    struct Row {
      double a, b, c, want;
    };
    const Row rows[] = {
        {a0, b0, tip, low + ulp},     // just above the tie: up
        {a0, b0, -tip, low},          // just below: down
        {a0, b0, 0, low},             // on it: to even
        {-a0, b0, -tip, -(low + ulp)}, // negative, just beyond: away
        {-a0, b0, tip, -low},         // negative, just inside
        {2, 3, 1, 7},                 // exact
        {0.5, -0.25, 0.125, 0},       // exact cancellation
    };
    HostTensor av(dtype, {16}), bv(dtype, {16}), cv(dtype, {16}),
        yv(dtype, {16});
    yv.poison();
    for (int64_t i = 0; i < 16; ++i) {
      const Row &r = rows[i % std::size(rows)];
      ASSERT_EQ(av.set(i, r.a), r.a);
      ASSERT_EQ(bv.set(i, r.b), r.b);
      ASSERT_EQ(cv.set(i, r.c), r.c);
    }
    ASSERT_EQ(interp::run(t.kernel(), {1, 1, 1},
                          {av.view(), bv.view(), cv.view(), yv.view()}),
              "");
    for (int64_t i = 0; i < 16; ++i)
      EXPECT_EQ(yv.get(i), rows[i % std::size(rows)].want)
          << dtypeName(dtype) << " element " << i;
  }
}

// cast to a boolean is C++'s conversion, x != 0 (NaN and -0.5 true, -0
// false), not the low bit of an integer (2 was false) nor a float converted
// to a signed 1-bit integer (1.0 out of range); then back to f32 for the
// store.
void boolKernel(const Config &, View<float, 1> a, View<int32_t, 1> b,
                View<float, 1> y, View<float, 1> z) {
  store(y, {0}, cast<float>(cast<bool>(load(a, {0}, {16}))));
  store(z, {0}, cast<float>(cast<bool>(load(b, {0}, {16}))));
}

TEST(Interpreter, CastToBoolIsNotZero) {
  auto t = trace(context(), boolKernel, {"a", "b", "y", "z"},
                 Config(std::map<std::string, int64_t>{}));
  ASSERT_TRUE(t.module) << t.allDiagnostics();
  const double nan = std::nan("");
  const double floats[] = {0, -0.0, 0.5, -0.5, 1, 2, 1e30, nan};
  const int64_t ints[] = {0, 1, 2, -1, 4, 256, -2147483648LL, 3};
  HostTensor av(DType::f32, {16}), bv(DType::i32, {16}), yv(DType::f32, {16}),
      zv(DType::f32, {16});
  yv.poison();
  zv.poison();
  for (int64_t i = 0; i < 16; ++i) {
    av.set(i, floats[i % 8]);
    bv.set(i, static_cast<double>(ints[i % 8]));
  }
  ASSERT_EQ(interp::run(t.kernel(), {1, 1, 1},
                        {av.view(), bv.view(), yv.view(), zv.view()}),
            "");
  for (int64_t i = 0; i < 16; ++i) {
    EXPECT_EQ(yv.get(i),
              floats[i % 8] != 0 || std::isnan(floats[i % 8]) ? 1.0 : 0.0)
        << "float element " << i;
    EXPECT_EQ(zv.get(i), ints[i % 8] != 0 ? 1.0 : 0.0) << "int element " << i;
  }
}
