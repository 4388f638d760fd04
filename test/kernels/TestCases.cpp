//===- TestCases.cpp - op test cases with plain C++ references ------------===//

#include "test/kernels/TestCases.h"

#include "interpreter/Numbers.h"
#include "kernels/mamba2/Reference.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace tessel::testcases {

namespace {

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

double roundTo(double v, DType dtype) {
  unsigned char bytes[8];
  interp::storeElement(bytes, dtype, v);
  return interp::loadElement(bytes, dtype);
}

/// A contiguous tensor (row-major, `rowPad` extra elements per innermost row
/// so strides can be checked), filled uniformly in [lo, hi).
Tensor input(std::mt19937 &rng, DType dtype, std::vector<int64_t> sizes,
             double lo = -1, double hi = 1, int64_t rowPad = 0) {
  Tensor t{dtype, sizes, std::vector<int64_t>(sizes.size(), 1), {}, false};
  int64_t stride = sizes.back() + rowPad;
  for (int64_t d = sizes.size() - 2; d >= 0; --d) {
    t.strides[d] = stride;
    stride *= sizes[d];
  }
  int64_t storage = sizes.size() == 1 ? sizes[0] : stride;
  std::uniform_real_distribution<double> dist(lo, hi);
  t.values.resize(storage);
  for (double &v : t.values)
    v = roundTo(dist(rng), dtype);
  return t;
}

Tensor output(DType dtype, std::vector<int64_t> sizes,
              std::vector<int64_t> strides, int64_t storage) {
  return {dtype, std::move(sizes), std::move(strides),
          std::vector<double>(storage, poisonValue(dtype)), true};
}

int64_t offset(const Tensor &t, std::initializer_list<int64_t> idx) {
  int64_t o = 0, d = 0;
  for (int64_t i : idx)
    o += i * t.strides[d++];
  return o;
}

std::vector<std::vector<double>> expectationsFor(const Case &c) {
  std::vector<std::vector<double>> e(c.tensors.size());
  for (size_t i = 0; i < c.tensors.size(); ++i)
    if (c.tensors[i].output)
      e[i] = c.tensors[i].values; // poison where nothing may be written
  return e;
}

Case copyCase(std::mt19937 &rng, int pad, bool transposed,
              const char *kernel = nullptr, int64_t M = 37) {
  const char *names[] = {"test_copy_zero", "test_copy_neg_inf",
                         "test_copy_nan"};
  const int64_t N = 53, BM = 16, BN = 32;
  int64_t gm = ceilDiv(M, BM), gn = ceilDiv(N, BN);
  Case c;
  c.label = "load/store ragged " + std::to_string(M) + "x" + std::to_string(N) +
            ", " + (transposed ? "transposed view" : "row-major") +
            ", padding " +
            (pad == 0   ? "zero"
             : pad == 1 ? "neg_inf"
                        : "nan");
  c.kernel = kernel ? kernel : names[pad];
  c.grid = {gm, gn, 1};
  Tensor x = input(rng, DType::f32, {M, N});
  if (transposed) {
    // The same values viewed through strides (1, M) of an N x M array.
    Tensor storage = input(rng, DType::f32, {N, M});
    x.values = storage.values;
    x.strides = {1, M};
  }
  // y covers the whole grid (padding becomes visible) plus a guard row and
  // column that no program may write.
  int64_t YN = gn * BN + 1;
  Tensor y =
      output(DType::f32, {gm * BM, gn * BN}, {YN, 1}, (gm * BM + 1) * YN);
  c.tensors = {x, y};
  c.args = {size_t(0), size_t(1)};
  c.expected = expectationsFor(c);
  double padValue = pad == 0   ? 0.0
                    : pad == 1 ? -std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::quiet_NaN();
  for (int64_t r = 0; r < gm * BM; ++r)
    for (int64_t k = 0; k < gn * BN; ++k)
      c.expected[1][r * YN + k] =
          r < M && k < N ? x.values[offset(x, {r, k})] : padValue;
  c.tolerance = 0;
  return c;
}

/// test_persistent_copy over B x M x N (ragged), on `ctas` CTAs (0: as
/// many as fit).
Case persistentCopyCase(std::mt19937 &rng, int64_t B, int64_t M, int64_t N,
                        int64_t ctas) {
  int64_t gm = ceilDiv(M, 16), gn = ceilDiv(N, 32);
  Case c;
  c.label = "persistent copy " + std::to_string(B) + "x" + std::to_string(M) +
            "x" + std::to_string(N) + " (" + std::to_string(gn * gm * B) +
            " programs on " +
            (ctas ? std::to_string(ctas) + " CTAs" : "the CTAs that fit") +
            ")";
  c.kernel = "test_persistent_copy";
  c.grid = {gn, gm, B};
  c.persistentCtas = ctas;
  Tensor x = input(rng, DType::f32, {B, M, N});
  // y has a guard column past N that no program may write.
  Tensor y = output(DType::f32, {B, M, N}, {M * (N + 1), N + 1, 1},
                    B * M * (N + 1));
  c.tensors = {x, y};
  c.args = {size_t(0), size_t(1)};
  c.expected = expectationsFor(c);
  double sizes = double(gn) * 10000 + double(gm) * 100 + double(B);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j)
        c.expected[1][offset(y, {b, i, j})] =
            roundTo(x.values[offset(x, {b, i, j})] + sizes, DType::f32);
  c.tolerance = 0;
  return c;
}

/// y[:, c] = 2 x[:, c] + 1 column by column through test_column (one
/// rounding, fused or not): 150 rows (ragged: 3 blocks of 64), rows padded
/// in both tensors (the padding and y's column 5, which no program writes,
/// must stay poisoned).
Case columnCase(std::mt19937 &rng) {
  const int64_t M = 150, N = 5, LD = 9;
  Case c;
  c.label = "a column per program: strided 1-D load and store, ragged rows";
  c.kernel = "test_column";
  c.grid = {N, ceilDiv(M, 64), 1};
  Tensor x = input(rng, DType::f32, {M, N}, -100, 100, LD - N);
  // y is one column wider than the grid covers.
  Tensor y = output(DType::f32, {M, N + 1}, {LD, 1}, M * LD);
  c.tensors = {x, y};
  c.args = {size_t(0), size_t(1)};
  c.expected = expectationsFor(c);
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < N; ++j)
      c.expected[1][offset(y, {i, j})] =
          roundTo(x.values[offset(x, {i, j})] * 2.0 + 1.0, DType::f32);
  c.tolerance = 0;
  return c;
}

Case squeezeCase(std::mt19937 &rng) {
  const int64_t B = 3, M = 19, N = 27, LD = 40;
  Case c;
  c.label = "3-D view, squeezed dim, transpose, bf16 store";
  c.kernel = "test_squeeze_bf16";
  c.grid = {B, ceilDiv(M, 8), 1};
  Tensor x = input(rng, DType::f32, {B, M, N}, -100, 100, LD - N);
  // y rows padded to 8 bf16 (16 bytes): the view is declared aligned.
  int64_t Mp = ceilDiv(M, 8) * 8;
  Tensor y = output(DType::bf16, {B, N, M}, {N * Mp, Mp, 1}, B * N * Mp);
  c.tensors = {x, y};
  c.args = {size_t(0), size_t(1)};
  c.expected = expectationsFor(c);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t n = 0; n < N; ++n)
      for (int64_t m = 0; m < M; ++m)
        c.expected[1][offset(y, {b, n, m})] =
            roundTo(x.values[offset(x, {b, m, n})], DType::bf16);
  c.tolerance = 0;
  return c;
}

/// y = 2 x through test_tma_store_*: ragged in both tile dimensions (the
/// TMA drops what lies outside the view; the last extent a whole number of
/// 16 bytes, as the runtime requires of a view stored by the TMA), y's rows
/// padded by 8 elements (which must stay poisoned).
Case tmaStoreCase(std::mt19937 &rng, DType dtype) {
  const bool f32 = dtype == DType::f32;
  const int64_t B = 2, M = 50, N = f32 ? 100 : 104, BM = f32 ? 16 : 64,
                BN = 64, LD = N + 8;
  Case c;
  c.kernel = f32 ? "test_tma_store_f32" : "test_tma_store_bf16";
  c.label = std::string("tma store ") + (f32 ? "f32" : "bf16") + " 2x50x" +
            std::to_string(N) + " (ragged, padded rows)";
  c.grid = {ceilDiv(M, BM), ceilDiv(N, BN), B};
  Tensor x = input(rng, DType::f32, {B, M, N}, -100, 100, 3);
  Tensor y = output(dtype, {B, M, N}, {M * LD, LD, 1}, B * M * LD);
  c.tensors = {x, y};
  c.args = {size_t(0), size_t(1)};
  c.expected = expectationsFor(c);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t m = 0; m < M; ++m)
      for (int64_t n = 0; n < N; ++n)
        c.expected[1][offset(y, {b, m, n})] =
            roundTo(2 * x.values[offset(x, {b, m, n})], dtype);
  c.tolerance = 0;
  return c;
}

/// (op(A) op(B))[m][n] in double over K: A stored K x M when `ta`, B stored
/// N x K when `tb`.
double productAt(const Tensor &a, const Tensor &b, int64_t m, int64_t n,
                 int64_t K, bool ta = false, bool tb = false) {
  double s = 0;
  for (int64_t k = 0; k < K; ++k)
    s += a.values[ta ? offset(a, {k, m}) : offset(a, {m, k})] *
         b.values[tb ? offset(b, {n, k}) : offset(b, {k, n})];
  return s;
}

/// y = A B narrowed to bf16/f16 through test_mma_store_tma_*: the mma result
/// staged in shared memory with stmatrix and stored by the TMA. Small
/// integers in A and B, so that the f32 sums are exact and the narrowed
/// result is the exact product rounded once (tolerance 0: a register pair
/// placed at the wrong row or column fails); ragged in M and N, y's rows
/// padded by 8 elements (which must stay poisoned).
Case mmaStoreCase(std::mt19937 &rng, DType dtype, int64_t BM, int64_t BN) {
  const int64_t M = 150, N = 200, K = 136, LD = N + 8;
  Case c;
  c.kernel = "test_mma_store_tma_" + std::string(dtypeName(dtype));
  c.label = "mma result " + std::string(dtypeName(dtype)) +
            " 150x200x136 staged by stmatrix, TMA store (ragged)";
  c.grid = {ceilDiv(M, BM), ceilDiv(N, BN), 1};
  std::uniform_int_distribution<int> small(-4, 4);
  auto integers = [&](int64_t rows, int64_t cols) {
    Tensor t = input(rng, dtype, {rows, cols});
    for (double &v : t.values)
      v = small(rng);
    return t;
  };
  Tensor a = integers(M, K), b = integers(K, N);
  Tensor y = output(dtype, {M, N}, {LD, 1}, M * LD);
  c.tensors = {a, b, y};
  c.args = {size_t(0), size_t(1), size_t(2)};
  c.expected = expectationsFor(c);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n)
      c.expected[2][offset(y, {m, n})] =
          roundTo(productAt(a, b, m, n, K), dtype);
  c.tolerance = 0;
  return c;
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

Case mathCase(std::mt19937 &rng) {
  const int64_t N = 1000;
  const double s = 1.7;
  Case c;
  c.label = "elementwise math (exp2, exp, log, log1p, softplus, silu, ...)";
  c.kernel = "test_math";
  c.grid = {ceilDiv(N, 128), 1, 1};
  Tensor x = input(rng, DType::f32, {N}, -30, 30);
  c.tensors = {x, output(DType::f32, {N}, {1}, N)};
  c.args = {size_t(0), size_t(1), Scalar{DType::f32, s}};
  c.expected = expectationsFor(c);
  for (int64_t i = 0; i < N; ++i)
    c.expected[1][i] = refMath(x.values[i], float(s));
  c.tolerance = 2e-6;
  return c;
}

/// The name of a 16-bit float type, as test kernel names end.
std::string halfName(DType dtype) {
  return dtype == DType::bf16 ? "bf16" : "f16";
}

/// y = 16-bit(x > 0 ? 3x : 0) through test_masked_cast_*: ragged, rows
/// padded (the padding must stay unwritten), exact.
Case maskedCastCase(std::mt19937 &rng, DType dtype) {
  const int64_t M = 45, N = 150, LD = 160;
  Case c;
  c.label = "select, then converted to " + halfName(dtype) +
            " in pairs, ragged 45x150";
  c.kernel = "test_masked_cast_" + halfName(dtype);
  c.grid = {ceilDiv(M, 16), ceilDiv(N, 64), 1};
  Tensor x = input(rng, DType::f32, {M, N}, -100, 100);
  Tensor y = output(dtype, {M, N}, {LD, 1}, M * LD);
  c.tensors = {x, y};
  c.args = {size_t(0), size_t(1)};
  c.expected = expectationsFor(c);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double v = x.values[offset(x, {m, n})];
      // 3x rounded to f32 first, as the kernel computes it.
      c.expected[1][offset(y, {m, n})] =
          v > 0 ? roundTo(roundTo(3 * v, DType::f32), dtype) : 0.0;
    }
  c.tolerance = 0;
  return c;
}

/// y = x * r_i * c_j - x in 16 bits through test_packed_arith_*: each
/// operation rounded to the 16-bit type (the codegen pairs them), ragged
/// 150x100 in 64x64 blocks, rows padded (the padding must stay unwritten),
/// exact.
/// The tensors of test_packed_arith_* and test_fma_* (x, r, c, y): x M x N
/// of `dtype` in [-4, 4], a factor per row and per column (f32 in [-2, 2]),
/// y with rows padded to LD (poisoned); the grid of 64 x 64 blocks.
constexpr int64_t kRowColM = 150, kRowColN = 100, kRowColLD = 112;
Case rowColumnCase(std::mt19937 &rng, DType dtype, std::string kernel,
                   std::string label) {
  const int64_t M = kRowColM, N = kRowColN, LD = kRowColLD;
  Case c;
  c.label = std::move(label);
  c.kernel = std::move(kernel);
  c.grid = {ceilDiv(M, 64), ceilDiv(N, 64), 1};
  c.tensors = {input(rng, dtype, {M, N}, -4, 4),
               input(rng, DType::f32, {M}, -2, 2),
               input(rng, DType::f32, {N}, -2, 2),
               output(dtype, {M, N}, {LD, 1}, M * LD)};
  c.args = {size_t(0), size_t(1), size_t(2), size_t(3)};
  return c;
}

/// y's expected values in a rowColumnCase: y_mn = f(x_mn, r_m, c_n), the
/// factors rounded to `dtype` as the kernels convert them.
void expectRowColumn(Case &c, DType dtype,
                     const std::function<double(double, double, double)> &f) {
  const Tensor &x = c.tensors[0], &r = c.tensors[1], &cols = c.tensors[2],
               &y = c.tensors[3];
  c.expected = expectationsFor(c);
  for (int64_t m = 0; m < kRowColM; ++m)
    for (int64_t n = 0; n < kRowColN; ++n)
      c.expected[3][offset(y, {m, n})] =
          f(x.values[offset(x, {m, n})], roundTo(r.values[m], dtype),
            roundTo(cols.values[n], dtype));
}

Case packedArithCase(std::mt19937 &rng, DType dtype) {
  Case c = rowColumnCase(rng, dtype, "test_packed_arith_" + halfName(dtype),
                         "16-bit mul and sub in pairs (" + halfName(dtype) +
                             "), ragged 150x100");
  expectRowColumn(c, dtype, [&](double v, double rm, double cn) {
    double p = roundTo(roundTo(v * rm, dtype) * cn, dtype);
    return roundTo(p - v, dtype);
  });
  c.tolerance = 0;
  return c;
}

/// y = exp2(min(x, r_i)) * c_j in 16 bits through test_packed_exp2_*: ragged
/// 150x100 in 64x64 blocks, rows padded. Per element: the reference rounds
/// the exact exp2 and the product to the type; the GPU's ex2.approx on pairs
/// is within 2^-7 (bf16) or 2^-9.9 (f16) of the exact exp2 before the
/// product's rounding.
Case packedExp2Case(std::mt19937 &rng, DType dtype) {
  Case c = rowColumnCase(rng, dtype, "test_packed_exp2_" + halfName(dtype),
                         "16-bit min, exp2 and mul in pairs (" +
                             halfName(dtype) + "), ragged 150x100");
  // Column factors away from 0 (|c| in [0.25, 2)): no product near f16's
  // subnormals, where a per-element relative error means nothing.
  for (double &v : c.tensors[2].values)
    v = roundTo(std::copysign(0.25 + 0.875 * std::fabs(v), v), DType::f32);
  expectRowColumn(c, dtype, [&](double v, double rm, double cn) {
    return roundTo(roundTo(std::exp2(std::min(v, rm)), dtype) * cn, dtype);
  });
  // (ex2.approx's error, plus a rounding of e and of the product.)
  c.tolerance = dtype == DType::bf16 ? std::ldexp(1.0, -7) + std::ldexp(1.0, -7)
                                     : std::ldexp(1.0, -9) + std::ldexp(1.0, -10);
  c.perElement = true;
  return c;
}

/// y = a b + log2(c_n): ragged 150x100 (K = 32), the column vector moved
/// into the accumulator's layout by warp shuffles. `type` is the vector's:
/// - f32 (test_column_words): two 32-bit words per lane; c spans 2^-8 ..
///   2^8, so a wrong word or lane puts a column's log2 up to 16 away.
///   lg2.approx's error (about 2^-22) is far below the tolerance.
/// - bf16 (test_column_words_bf16, 64-column blocks: two per lane, one
///   word) and f16 (test_column_words_f16_n32, 32-column blocks: one per
///   lane, the low half of a word): log2(c_n) rounded to the type before
///   the shuffles. c_n = 2^(k/8) for random integers k in [-64, 64], so
///   log2 is k/8 (exact in both types: lg2.approx's error does not change
///   its rounding), and neighbouring columns mostly differ: a swapped half
///   or a wrong lane moves another column's value there.
Case columnWordsCase(std::mt19937 &rng, DType type) {
  const bool f32 = type == DType::f32, bf16 = type == DType::bf16;
  const int64_t M = kRowColM, N = kRowColN, K = 32, BN = bf16 || f32 ? 64 : 32;
  Case c;
  c.label = f32    ? "f32 column vector by warp shuffles (2 words per lane)"
            : bf16 ? "bf16 column vector by warp shuffles (2 per lane in a "
                     "word)"
                   : "f16 column vector by warp shuffles (1 per lane, half a "
                     "word)";
  c.label += ", ragged 150x100x32";
  c.kernel = f32    ? "test_column_words"
             : bf16 ? "test_column_words_bf16"
                    : "test_column_words_f16_n32";
  c.grid = {ceilDiv(M, 64), ceilDiv(N, BN), 1};
  // Rows padded to whole 16-byte units (8 bf16), as kDense views promise.
  c.tensors = {input(rng, DType::bf16, {M, K}, -1, 1),
               input(rng, DType::bf16, {K, N}, -1, 1, (8 - N % 8) % 8),
               input(rng, DType::f32, {N}, -8, 8),
               output(DType::f32, {M, N}, {N, 1}, M * N)};
  std::uniform_int_distribution<int> eighths(-64, 64);
  for (double &v : c.tensors[2].values)
    v = f32 ? roundTo(std::exp2(v), DType::f32)
            : std::exp2(eighths(rng) / 8.0);
  c.args = {size_t(0), size_t(1), size_t(2), size_t(3)};
  const Tensor &a = c.tensors[0], &b = c.tensors[1], &cols = c.tensors[2];
  c.expected = expectationsFor(c);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = std::log2(cols.values[n]);
      if (!f32)
        s = roundTo(s, type);
      for (int64_t k = 0; k < K; ++k)
        s += a.values[offset(a, {m, k})] * b.values[offset(b, {k, n})];
      c.expected[3][m * N + n] = s;
    }
  c.tolerance = 1e-5;
  return c;
}

/// test_item_branch: ragged 150x100 (K = 32) in 64x64 blocks, a uniform
/// branch around the mma on s_i, the row block's one element of s (two
/// elements for three row blocks: the third reads NaN, and takes the else
/// branch). One of s_0 and s_1 below 1, the other above, in a random order.
Case itemBranchCase(std::mt19937 &rng) {
  const int64_t M = 150, N = 100, K = 32;
  Case c;
  c.label = "branch on item() of a loaded element, around an mma, ragged "
            "150x100x32";
  c.kernel = "test_item_branch";
  c.grid = {ceilDiv(M, 64), ceilDiv(N, 64), 1};
  // Rows padded to whole 16-byte units (8 bf16), as kDense views promise.
  c.tensors = {input(rng, DType::bf16, {M, K}, -1, 1),
               input(rng, DType::bf16, {K, N}, -1, 1, (8 - N % 8) % 8),
               input(rng, DType::f32, {2}),
               output(DType::f32, {M, N}, {N, 1}, M * N)};
  {
    const int low = std::uniform_int_distribution<int>(0, 1)(rng);
    c.tensors[2].values[low] = roundTo(
        std::uniform_real_distribution<double>(0.5, 0.9)(rng), DType::f32);
    c.tensors[2].values[1 - low] = roundTo(
        std::uniform_real_distribution<double>(1.1, 2)(rng), DType::f32);
  }
  c.args = {size_t(0), size_t(1), size_t(2), size_t(3)};
  const Tensor &a = c.tensors[0], &b = c.tensors[1], &sv = c.tensors[2];
  c.expected = expectationsFor(c);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double ab = 0;
      for (int64_t k = 0; k < K; ++k)
        ab += a.values[offset(a, {m, k})] * b.values[offset(b, {k, n})];
      const int64_t blk = m / 64;
      const bool scaled = blk < 2 && sv.values[blk] < 1;
      c.expected[3][m * N + n] = scaled ? ab * sv.values[blk] : ab - 1;
    }
  c.tolerance = 1e-5;
  return c;
}

/// y = saturating_cast<T>(exp2(x_mn r_m + fast_log2(c_n))) through
/// test_log_scale_*: ragged 150x100 in 64x64 blocks, rows padded. The
/// exponents reach past the type's range (bf16: past f32's too, so exp2
/// gives inf before the cast), where the result must be the largest finite
/// value, and stay above its subnormals (f16: above 2^-14), where a
/// per-element relative error means nothing; two columns have c = 0 (y =
/// 0). Per element: ex2.approx's and lg2.approx's errors and the
/// exponent's f32 roundings, far below one rounding to the type.
Case logScaleCase(std::mt19937 &rng, DType dtype) {
  const int64_t M = kRowColM, N = kRowColN, LD = kRowColLD;
  const bool bf16 = dtype == DType::bf16;
  Case c;
  c.label = "fast_log2, exp2 and saturating_cast (" + halfName(dtype) +
            "), ragged 150x100";
  c.kernel = "test_log_scale_" + halfName(dtype);
  c.grid = {ceilDiv(M, 64), ceilDiv(N, 64), 1};
  // Exponents x r + log2 c: bf16 in [-44, 164], f16 in [-12, 36].
  c.tensors = {input(rng, DType::f32, {M, N}, -1, 4),
               input(rng, DType::f32, {M}, 0, bf16 ? 40 : 8),
               input(rng, DType::f32, {N}, -4, 4),
               output(dtype, {M, N}, {LD, 1}, M * LD)};
  for (double &v : c.tensors[2].values)
    v = roundTo(std::exp2(v), DType::f32);
  c.tensors[2].values[3] = c.tensors[2].values[70] = 0;
  c.args = {size_t(0), size_t(1), size_t(2), size_t(3)};
  const double largest = bf16 ? 0x1.fep127 : 65504.0;
  const Tensor &x = c.tensors[0], &r = c.tensors[1], &cols = c.tensors[2],
               &y = c.tensors[3];
  c.expected = expectationsFor(c);
  int saturated = 0;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double e = float(float(x.values[offset(x, {m, n})] * r.values[m]) +
                       float(std::log2(cols.values[n])));
      double v = std::exp2(e);
      saturated += v > largest;
      c.expected[3][offset(y, {m, n})] =
          v > largest ? largest : roundTo(v, dtype);
    }
  // (The draw saturates a few hundred elements or more: a check that could
  // not fail without the saturation would be no test.)
  if (saturated < 50)
    throw std::runtime_error("logScaleCase: only " +
                             std::to_string(saturated) + " saturated elements");
  // (One ulp of the type, where the GPU's exponent lands across a rounding
  // boundary from the reference's.)
  c.tolerance = bf16 ? std::ldexp(1.0, -7) : std::ldexp(1.0, -9);
  c.perElement = true;
  return c;
}

/// `v` rounded to nearest even with `bits` significant bits, the quantum
/// never below `minQuantum` (the type's subnormals): one rounding, where
/// roundTo goes through a float first.
double roundOnce(double v, int bits, double minQuantum) {
  if (v == 0 || !std::isfinite(v))
    return v;
  int e;
  std::frexp(v, &e);
  double q = std::max(std::ldexp(1.0, e - bits), minQuantum);
  return std::nearbyint(v / q) * q;
}

/// y = fma(x, -0.5, fma(fma(x, r_i, c_j), w, x)), w = fma(s, 0.5, -0.5)
/// = -0.75 (s = -0.5), through test_fma_*: ragged 150x100
/// in 64x64 blocks, rows padded (the padding must stay unwritten), exact.
/// The reference rounds each exact a·b + c once: std::fmaf for f32; for
/// bf16/f16 the sums are exact in double (11-bit operands in [-4, 4]) and
/// rounded once to the type's precision. The inputs are checked to make a
/// multiply then an add differ from fma somewhere.
Case fmaCase(std::mt19937 &rng, DType dtype) {
  const int64_t M = kRowColM, N = kRowColN;
  const bool f32 = dtype == DType::f32;
  const std::string name = f32 ? "f32" : halfName(dtype);
  Case c = rowColumnCase(
      rng, dtype, "test_fma_" + name,
      "fma (" + name +
          "): broadcast rows and columns, a scalar, a number; ragged 150x100");
  c.args.push_back(Scalar{DType::f32, -0.5});
  // 16-bit: rows 0-2 of columns 0 and 1 where x r_i is exactly a tie of the
  // type and c_j = +-2^-24 tips it by half a float ulp (InterpreterTest's
  // FmaRoundsOnceNextToATie): rounded through a float first, they would go
  // to the even neighbour.
  if (!f32) {
    const bool bf = dtype == DType::bf16;
    const double a0 = 1 + std::ldexp(1.0, bf ? -4 : -5),
                 b0 = 1 + std::ldexp(1.0, bf ? -4 : -6);
    for (int64_t m = 0; m < 3; ++m) {
      c.tensors[1].values[m] = b0;
      for (int64_t n = 0; n < 2; ++n)
        c.tensors[0].values[offset(c.tensors[0], {m, n})] = a0;
    }
    c.tensors[2].values[0] = std::ldexp(1.0, -24);
    c.tensors[2].values[1] = -std::ldexp(1.0, -24);
  }
  const Tensor &x = c.tensors[0], &r = c.tensors[1], &cols = c.tensors[2],
               &y = c.tensors[3];
  c.expected = expectationsFor(c);
  const int bits = dtype == DType::bf16 ? 8 : 11;
  const double minQuantum =
      dtype == DType::bf16 ? std::ldexp(1.0, -133) : std::ldexp(1.0, -24);
  auto fused = [&](double a, double b, double d) {
    if (f32)
      return double(std::fmaf(float(a), float(b), float(d)));
    double p = a * b, s = p + d;
    if (s - p != d) // not exact in double: the inputs' range rules it out
      throw std::logic_error("fmaCase: a sum not exact in double");
    return roundOnce(s, bits, minQuantum);
  };
  auto unfused = [&](double a, double b, double d) {
    return roundTo(roundTo(a * b, dtype) + d, dtype);
  };
  int64_t differ = 0;
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double v = x.values[offset(x, {m, n})];
      double rm = roundTo(r.values[m], dtype);
      double cn = roundTo(cols.values[n], dtype);
      double u = fused(v, rm, cn);
      c.expected[3][offset(y, {m, n})] = fused(v, -0.5, fused(u, -0.75, v));
      differ += unfused(v, rm, cn) != u;
    }
  if (differ == 0)
    throw std::logic_error("fmaCase: no element where fma and mul+add differ");
  c.tolerance = 0;
  return c;
}

Case siluCase(std::mt19937 &rng) {
  const int64_t N = 1000;
  Case c;
  c.label = "silu and sigmoid per element, x in [-80, 80]";
  c.kernel = "test_silu";
  c.grid = {ceilDiv(N, 128), 1, 1};
  Tensor x = input(rng, DType::f32, {N}, -80, 80);
  // Rows padded past the last block of 128: a store past N shows.
  const int64_t LD = N + 40;
  c.tensors = {x, output(DType::f32, {2, N}, {LD, 1}, 2 * LD)};
  c.args = {size_t(0), size_t(1)};
  c.expected = expectationsFor(c);
  for (int64_t i = 0; i < N; ++i) {
    double v = x.values[i];
    c.expected[1][i] = v / (1 + std::exp(-v));
    c.expected[1][LD + i] = 1 / (1 + std::exp(-v));
  }
  // exp(-x) as exp2(x * -log2 e): the product's rounding, up to 2.6e-6
  // relative at |x| = 80 (half an ulp of 115.4, times ln 2), the f32
  // constant's (1.1e-6 there), then ex2.approx and div.approx (2 ulp each).
  // The interpreter (f32 arithmetic, exact exp2 and division) reaches
  // 3.6e-6.
  c.tolerance = 8e-6;
  c.perElement = true;
  return c;
}

/// test_prefetch: y = x + b (x f32, b bf16) over a ragged 150 x 100 in
/// 64 x 64 blocks, rows of y padded (the padding must stay unwritten), after
/// prefetches that reach past every border: exact.
Case prefetchCase(std::mt19937 &rng) {
  const int64_t M = kRowColM, N = kRowColN, LD = kRowColLD;
  Case c;
  c.label = "L2 prefetches past the borders change nothing, ragged 150x100";
  c.kernel = "test_prefetch";
  c.grid = {ceilDiv(M, 64), ceilDiv(N, 64), 1};
  c.tensors = {input(rng, DType::f32, {M, N}, -4, 4),
               // (Rows of b padded to 104 elements: a unit-stride view's
               // rows start 16-byte aligned.)
               input(rng, DType::bf16, {M, N}, -4, 4, /*rowPad=*/4),
               output(DType::f32, {M, N}, {LD, 1}, M * LD)};
  c.args = {size_t(0), size_t(1), size_t(2)};
  c.expected = expectationsFor(c);
  const Tensor &x = c.tensors[0], &b = c.tensors[1];
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n)
      c.expected[2][m * LD + n] = roundTo(
          x.values[offset(x, {m, n})] + b.values[offset(b, {m, n})],
          DType::f32);
  c.tolerance = 0;
  return c;
}

/// test_chain over 32768 programs: y's row r is the sum of x's rows 0..r,
/// in that order (f32 adds, as the chain makes them: exact); every flag
/// raised once; 32768 tickets taken. On an H200 about 15 waves of CTAs (16
/// per SM on 132 SMs: 2112 at once): the chain outlasts the CTAs resident
/// together, and would hang if a program waited for one that had not
/// started (what the tickets prevent).
Case chainCase(std::mt19937 &rng) {
  const int64_t G = 32768, N = 128;
  Case c;
  c.label = "a chain across 32768 programs: tickets, a wait for the program "
            "before, a signal";
  c.kernel = "test_chain";
  c.grid = {G, 1, 1};
  Tensor flags{DType::i32, {G}, {1}, std::vector<double>(G, 0.0), true, true};
  Tensor order{DType::i32, {1}, {1}, {0.0}, true, true};
  c.tensors = {input(rng, DType::f32, {G, N}),
               output(DType::f32, {G, N}, {N, 1}, G * N), flags, order};
  c.args = {size_t(0), size_t(1), size_t(2), size_t(3)};
  c.expected = expectationsFor(c);
  const Tensor &x = c.tensors[0];
  for (int64_t k = 0; k < N; ++k) {
    double sum = 0;
    for (int64_t r = 0; r < G; ++r) {
      sum = roundTo(sum + x.values[offset(x, {r, k})], DType::f32);
      c.expected[1][r * N + k] = sum;
    }
  }
  c.expected[2] = std::vector<double>(G, 1.0);
  c.expected[3] = {double(G)};
  c.tolerance = 0;
  return c;
}

Case scanCase(std::mt19937 &rng, int axis, bool reverse, int kind) {
  const int64_t M = 45, N = 29, G = ceilDiv(M, 16);
  const char *kinds[] = {"sum", "max", "min"};
  Case c;
  c.label = std::string("cumsum axis ") + std::to_string(axis) +
            (reverse ? " reverse" : "") + ", reduce " + kinds[kind] + " axis " +
            std::to_string(axis) + ", ragged 45x29";
  c.kernel = std::string("test_scan_a") + std::to_string(axis) +
             (reverse ? "_rev_" : "_fwd_") + kinds[kind];
  c.grid = {G, 1, 1};
  int64_t redLen = axis == 0 ? 32 : 16;
  Tensor x = input(rng, DType::f32, {M, N});
  // An infinity must reach every later sum and nothing earlier.
  x.values[3] = std::numeric_limits<double>::infinity();
  c.tensors = {x, output(DType::f32, {M, N}, {N, 1}, M * N),
               output(DType::f32, {G, redLen}, {redLen, 1}, G * redLen)};
  c.args = {size_t(0), size_t(1), size_t(2)};
  c.expected = expectationsFor(c);
  auto X = [&](int64_t r, int64_t k) {
    return r < M && k < N ? x.values[r * N + k] : 0.0; // zero padding
  };
  for (int64_t g = 0; g < G; ++g) {
    for (int64_t r = 0; r < 16; ++r)
      for (int64_t k = 0; k < 32; ++k) {
        int64_t R = g * 16 + r;
        if (R >= M || k >= N)
          continue;
        double s = 0;
        if (axis == 0)
          for (int64_t j = 0; j < 16; ++j)
            s += (reverse ? j >= r : j <= r) ? X(g * 16 + j, k) : 0;
        else
          for (int64_t j = 0; j < 32; ++j)
            s += (reverse ? j >= k : j <= k) ? X(R, j) : 0;
        c.expected[1][R * N + k] = s;
      }
    for (int64_t o = 0; o < redLen; ++o) {
      double acc = kind == 0   ? 0
                   : kind == 1 ? -std::numeric_limits<double>::infinity()
                               : std::numeric_limits<double>::infinity();
      int64_t len = axis == 0 ? 16 : 32;
      for (int64_t j = 0; j < len; ++j) {
        double v = axis == 0 ? X(g * 16 + j, o) : X(g * 16 + o, j);
        acc = kind == 0   ? acc + v
              : kind == 1 ? std::max(acc, v)
                          : std::min(acc, v);
      }
      c.expected[2][g * redLen + o] = acc;
    }
  }
  c.tolerance = 1e-6;
  return c;
}

Case shapeCase(std::mt19937 &rng) {
  Case c;
  c.label = "permute, broadcast, reshape, iota, if";
  c.kernel = "test_shape";
  c.grid = {1, 1, 1};
  Tensor x = input(rng, DType::f32, {4, 8});
  c.tensors = {x, output(DType::f32, {8, 4}, {4, 1}, 32),
               output(DType::i32, {8, 4}, {4, 1}, 32)};
  c.args = {size_t(0), size_t(1), size_t(2)};
  c.expected = expectationsFor(c);
  // reshape 4x8 -> 2x2x8, permute [2,0,1] -> 8x2x2, reshape -> 8x4:
  // element [c][k] is x[k][c]; plus row 0 of x broadcast over rows.
  for (int64_t r = 0; r < 8; ++r)
    for (int64_t k = 0; k < 4; ++k) {
      c.expected[1][r * 4 + k] =
          roundTo(x.values[k * 8 + r] + x.values[k], DType::f32);
      c.expected[2][r * 4 + k] = r * 10 + k;
    }
  c.tolerance = 1e-7;
  return c;
}

Case loopCase(std::mt19937 &rng, const std::string &kernel = "test_loop",
              int64_t N = 100) {
  const int64_t M = 40, G = ceilDiv(M, 16);
  Case c;
  c.label = "for_range carrying a tile (row sums over " +
            std::to_string(ceilDiv(N, 32)) + " column blocks)" +
            (kernel == "test_loop" ? ""
                                   : ", loads 3 iterations ahead in registers");
  c.kernel = kernel;
  c.grid = {G, 1, 1};
  Tensor x = input(rng, DType::f32, {M, N});
  c.tensors = {x, output(DType::f32, {M, 1}, {1, 1}, M)};
  c.args = {size_t(0), size_t(1)};
  c.expected = expectationsFor(c);
  // Column k's block b = k / 32 is halved once per later block.
  const int64_t blocks = ceilDiv(N, 32);
  for (int64_t r = 0; r < M; ++r) {
    double s = 0;
    for (int64_t k = 0; k < N; ++k)
      s += std::ldexp(x.values[r * N + k], -int(blocks - 1 - k / 32));
    c.expected[1][r] = s;
  }
  c.tolerance = 1e-6;
  return c;
}

/// C = op(A) op(B) through `kernel`: A stored K x M when `ta`, B stored N x K
/// when `tb`.
Case matmulCase(std::mt19937 &rng, const std::string &kernel,
                const std::string &what, DType dtype, int64_t M, int64_t N,
                int64_t K, int64_t BM, int64_t BN, bool ta, bool tb,
                bool aligned) {
  Case c;
  c.kernel = kernel;
  c.label = what + " " + std::string(dtypeName(dtype)) + " " +
            std::to_string(M) + "x" + std::to_string(N) + "x" +
            std::to_string(K) + (ta ? " A^T" : "") + (tb ? " B^T" : "") +
            " (K loop, ragged)";
  c.grid = {ceilDiv(M, BM), ceilDiv(N, BN), 1};
  // Aligned: rows padded to whole 16-byte units (what kDense views promise).
  auto rowPad = [&](int64_t cols) {
    int64_t unit = 16 / static_cast<int64_t>(dtypeBytes(dtype));
    return aligned ? (unit - cols % unit) % unit : 0;
  };
  Tensor a = input(rng, dtype,
                   ta ? std::vector<int64_t>{K, M} : std::vector<int64_t>{M, K},
                   -1, 1, rowPad(ta ? M : K));
  Tensor b = input(rng, dtype,
                   tb ? std::vector<int64_t>{N, K} : std::vector<int64_t>{K, N},
                   -1, 1, rowPad(tb ? K : N));
  c.tensors = {a, b, output(DType::f32, {M, N}, {N, 1}, M * N)};
  c.args = {size_t(0), size_t(1), size_t(2)};
  c.expected = expectationsFor(c);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n)
      c.expected[2][m * N + n] = productAt(a, b, m, n, K, ta, tb);
  // bf16/f16 products are exact and summed in f32; tf32 rounds the operands
  // (2^-11 relative).
  c.tolerance = dtype == DType::f32 ? 2e-3 : 1e-6;
  return c;
}

/// C = A B through test_mma_<precision>.
Case mmaCase(std::mt19937 &rng, DType dtype, int64_t M, int64_t N, int64_t K,
             int64_t BM, int64_t BN) {
  std::string kernel = std::string("test_mma_") +
                       (dtype == DType::bf16  ? "bf16"
                        : dtype == DType::f16 ? "f16"
                                              : "tf32");
  return matmulCase(rng, kernel, "mma", dtype, M, N, K, BM, BN, false, false,
                    false);
}

/// A case of `kernel` labelled by its sizes ("AxBxC") and what it computes.
Case sizedCase(const std::string &kernel, std::vector<int64_t> sizes,
               const std::string &what) {
  Case c;
  c.kernel = kernel;
  c.label = kernel.substr(5) + " ";
  for (size_t i = 0; i < sizes.size(); ++i)
    c.label += (i ? "x" : "") + std::to_string(sizes[i]);
  c.label += " (" + what + ")";
  return c;
}

/// O = sum_j round_bf16(A B_j / 2) V_j through test_mma_chain_bf16.
Case mmaChainCase(std::mt19937 &rng, int64_t M, int64_t K, int64_t N1,
                  int64_t N2, const std::string &kernel = "test_mma_chain_bf16",
                  DType dtype = DType::bf16, int64_t BM = 64,
                  int64_t BN2 = 32) {
  Case c = sizedCase(kernel, {M, K, N1, N2}, "A of the 2nd from registers");
  c.grid = {ceilDiv(M, BM), ceilDiv(N2, BN2), 1};
  Tensor a = input(rng, dtype, {M, K});
  Tensor b = input(rng, dtype, {K, N1});
  Tensor v = input(rng, dtype, {N1, N2});
  c.tensors = {a, b, v, output(DType::f32, {M, N2}, {N2, 1}, M * N2)};
  c.args = {size_t(0), size_t(1), size_t(2), size_t(3)};
  c.expected = expectationsFor(c);
  for (int64_t m = 0; m < M; ++m) {
    std::vector<double> p(N1);
    for (int64_t j = 0; j < N1; ++j) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += a.values[m * K + k] * b.values[k * N1 + j];
      p[j] = roundTo(s * 0.5, dtype);
    }
    for (int64_t n = 0; n < N2; ++n) {
      double s = 0;
      for (int64_t j = 0; j < N1; ++j)
        s += p[j] * v.values[j * N2 + n];
      c.expected[3][m * N2 + n] = s;
    }
  }
  // The f32 sums of the first product may round to the other bf16 neighbour
  // than the float64 one (2^-8 relative on a few elements of P).
  c.tolerance = 1e-2;
  return c;
}

/// Attention through `kernel` (attentionKernel: BM-query blocks, head
/// dimension 64): q, k, v of `heads` (batch x head) rows of L tokens,
/// O = softmax(s q kᵀ [causal]) v with s = 1 / sqrt(64), in float64 on the
/// rounded inputs. L need not be a multiple of the blocks. q and k are
/// drawn from [-range, range]: at 16 the scores reach some 100 (x log2 e),
/// past what exp2 holds in f32 (2^128) where a row's maximum were wrong.
Case attentionCase(std::mt19937 &rng, const std::string &kernel, int64_t heads,
                   int64_t L, bool causal, double range = 1.7,
                   int64_t BM = 64) {
  const int64_t D = 64;
  Case c;
  c.kernel = kernel;
  c.label = kernel.substr(5) + " " + std::to_string(heads) + "x" +
            std::to_string(L) + "x" + std::to_string(D) +
            (causal ? " causal" : "") +
            (range > 4 ? ", large scores" : "") + " (online softmax)";
  c.grid = {ceilDiv(L, BM), heads, 1};
  // N(0, 1)-like scores: q and k of unit variance per element over 64.
  Tensor q = input(rng, DType::bf16, {heads, L, D}, -range, range);
  Tensor k = input(rng, DType::bf16, {heads, L, D}, -range, range);
  Tensor v = input(rng, DType::bf16, {heads, L, D});
  const double scale = 1.0 / std::sqrt(double(D));
  c.tensors = {q, k, v,
               output(DType::bf16, {heads, L, D}, {L * D, D, 1}, heads * L * D)};
  c.args = {size_t(0), size_t(1), size_t(2), size_t(3),
            Scalar{DType::f32, scale * std::log2(std::exp(1.0))}};
  c.expected = expectationsFor(c);
  std::vector<double> w(L);
  for (int64_t bh = 0; bh < heads; ++bh)
    for (int64_t t = 0; t < L; ++t) {
      const int64_t last = causal ? t : L - 1;
      double top = -INFINITY;
      for (int64_t u = 0; u <= last; ++u) {
        double dot = 0;
        for (int64_t d = 0; d < D; ++d)
          dot += q.values[(bh * L + t) * D + d] * k.values[(bh * L + u) * D + d];
        w[u] = scale * dot;
        top = std::max(top, w[u]);
      }
      double total = 0;
      for (int64_t u = 0; u <= last; ++u)
        total += (w[u] = std::exp(w[u] - top));
      for (int64_t d = 0; d < D; ++d) {
        double y = 0;
        for (int64_t u = 0; u <= last; ++u)
          y += w[u] * v.values[(bh * L + u) * D + d];
        c.expected[3][(bh * L + t) * D + d] = y / total;
      }
    }
  // P rounded to bf16 before its product with v (2^-9 relative per entry),
  // and O to bf16: 1.8e-3 to 2.2e-3 on the interpreter. (A key too many at
  // L = 65, not causal, was 1.0e-2.)
  c.tolerance = 5e-3;
  return c;
}

/// Elements that pad a row of `cols` 16-bit elements to whole 16-byte
/// units (what views that promise 16-byte alignment need).
int64_t padTo16Bytes(int64_t cols) { return (8 - cols % 8) % 8; }

/// S = sum_t round((x_t * w_t) to `dtype`)ᵀ B_t through `kernel` (BP
/// head-dim rows per program): x (T x P), w (T), B (T x N), none a multiple
/// of the blocks.
Case scaledUpdateCase(std::mt19937 &rng, int64_t T, int64_t P, int64_t N,
                      const std::string &kernel = "test_scaled_t_bf16",
                      DType dtype = DType::bf16, int64_t BP = 64) {
  const int64_t BN = 64;
  Case c = sizedCase(kernel, {T, P, N}, "(x w)^T B, A read transposed");
  c.grid = {ceilDiv(P, BP), ceilDiv(N, BN), 1};
  // Rows padded to whole 16-byte units (the views promise it).
  Tensor x = input(rng, dtype, {T, P}, -1, 1, padTo16Bytes(P));
  Tensor w = input(rng, DType::f32, {T}, 0, 2);
  Tensor b = input(rng, dtype, {T, N}, -1, 1, padTo16Bytes(N));
  c.tensors = {x, w, b, output(DType::f32, {P, N}, {N, 1}, P * N)};
  c.args = {size_t(0), size_t(1), size_t(2), size_t(3)};
  c.expected = expectationsFor(c);
  for (int64_t p = 0; p < P; ++p)
    for (int64_t n = 0; n < N; ++n) {
      double s = 0;
      for (int64_t t = 0; t < T; ++t)
        s += roundTo(
                 roundTo(x.values[offset(x, {t, p})] * w.values[t], DType::f32),
                 dtype) *
             b.values[offset(b, {t, n})];
      c.expected[3][p * N + n] = s;
    }
  // The rounded products are exact and summed in f32.
  c.tolerance = 1e-5;
  return c;
}

/// C = A round(E + s R)ᵀ through `kernel` (BM x 64 tiles, K blocks of 64):
/// A (M x K), E and R (N x K), s (1), none a multiple of the blocks; E + s R
/// one f32 fma, rounded to `dtype`.
Case correctedOperandCase(std::mt19937 &rng, int64_t M, int64_t K, int64_t N,
                          const std::string &kernel, DType dtype,
                          int64_t BM) {
  const int64_t BN = 64;
  Case c = sizedCase(kernel, {M, K, N},
                     "A (E + s R)^T, B computed in registers");
  c.grid = {ceilDiv(M, BM), ceilDiv(N, BN), 1};
  Tensor a = input(rng, dtype, {M, K}, -1, 1, padTo16Bytes(K));
  Tensor e = input(rng, dtype, {N, K}, -1, 1, padTo16Bytes(K));
  Tensor r = input(rng, dtype, {N, K}, -1, 1, padTo16Bytes(K));
  Tensor s = input(rng, DType::f32, {1}, 0.25, 2);
  c.tensors = {a, e, r, s, output(DType::f32, {M, N}, {N, 1}, M * N)};
  c.args = {size_t(0), size_t(1), size_t(2), size_t(3), size_t(4)};
  c.expected = expectationsFor(c);
  const float scale = float(s.values[0]);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double sum = 0;
      for (int64_t k = 0; k < K; ++k) {
        float v = std::fma(float(r.values[offset(r, {n, k})]), scale,
                           float(e.values[offset(e, {n, k})]));
        sum += a.values[offset(a, {m, k})] * roundTo(v, dtype);
      }
      c.expected[4][m * N + n] = sum;
    }
  // Products of 16-bit values are exact in f32; the sums are f32.
  c.tolerance = 1e-5;
  return c;
}

/// S = sum_k round((x_k * w rows) to bf16) B_k through `kernel` (64 x 64
/// tiles): x (M x K), w (M), B (K x N), none a multiple of the blocks.
Case rowScaledCase(std::mt19937 &rng, int64_t M, int64_t K, int64_t N,
                   const std::string &kernel) {
  const int64_t BM = 64, BN = 64;
  Case c = sizedCase(kernel, {M, K, N}, "(x w rows) B, A as it stands");
  c.grid = {ceilDiv(M, BM), ceilDiv(N, BN), 1};
  Tensor x = input(rng, DType::bf16, {M, K}, -1, 1, padTo16Bytes(K));
  Tensor w = input(rng, DType::f32, {M}, 0, 2);
  Tensor b = input(rng, DType::bf16, {K, N}, -1, 1, padTo16Bytes(N));
  c.tensors = {x, w, b, output(DType::f32, {M, N}, {N, 1}, M * N)};
  c.args = {size_t(0), size_t(1), size_t(2), size_t(3)};
  c.expected = expectationsFor(c);
  for (int64_t m = 0; m < M; ++m)
    for (int64_t n = 0; n < N; ++n) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += roundTo(roundTo(x.values[offset(x, {m, k})] * w.values[m],
                             DType::f32),
                     DType::bf16) *
             b.values[offset(b, {k, n})];
      c.expected[3][m * N + n] = s;
    }
  // The rounded products are exact and summed in f32.
  c.tolerance = 1e-5;
  return c;
}

/// rowReduce16Kernel through `kernel`: h = round(A B) to `dtype` (M x 64,
/// K = 32, M ragged), y = (h - rowmax h) rowsum h. The reference rounds the
/// float64 product to f32 (the accumulator) and then to `dtype`, and sums
/// the rounded values in float64; the kernel sums 64 of them in `dtype`
/// (unit roundoff 2^-8 for bf16, 2^-11 for f16, per step). `negative`: B
/// drawn from [-1, 0], so that every h is at most 0 (sign bits set in the
/// packed shuffles, the maximum the value nearest 0).
Case rowReduce16Case(std::mt19937 &rng, const std::string &kernel,
                     DType dtype, int64_t M, bool negative = false) {
  const int64_t K = 32, N = 64, BM = 64;
  Case c = sizedCase(kernel, {M, N}, "row max and sum of a 16-bit tile");
  c.grid = {ceilDiv(M, BM), 1, 1};
  // Positive products (sums without cancellation, whose rounding relative
  // to a small sum would swamp the check).
  Tensor a = input(rng, dtype, {M, K}, 0, 1);
  Tensor b = negative ? input(rng, dtype, {K, N}, -1, 0)
                      : input(rng, dtype, {K, N}, 0, 1);
  c.tensors = {a, b, output(DType::f32, {M, N}, {N, 1}, M * N)};
  c.args = {size_t(0), size_t(1), size_t(2)};
  c.expected = expectationsFor(c);
  std::vector<double> h(N);
  for (int64_t m = 0; m < M; ++m) {
    double top = -INFINITY, total = 0;
    for (int64_t n = 0; n < N; ++n) {
      double s = 0;
      for (int64_t k = 0; k < K; ++k)
        s += a.values[offset(a, {m, k})] * b.values[offset(b, {k, n})];
      h[n] = roundTo(roundTo(s, DType::f32), dtype);
      top = std::max(top, h[n]);
      total += h[n];
    }
    for (int64_t n = 0; n < N; ++n)
      c.expected[2][m * N + n] = (h[n] - top) * total;
  }
  // (The interpreter, summing in order: about 7e-3 in bf16, 9e-4 in f16.)
  c.tolerance = dtype == DType::f16 ? 4e-3 : 2e-2;
  return c;
}

Case inplaceCase(std::mt19937 &rng) {
  const int64_t N = 300;
  Case c;
  c.label = "in-place +1 on a 64-element tile (elements held by 8 threads)";
  c.kernel = "test_inplace";
  c.grid = {ceilDiv(N, 64), 1, 1};
  Tensor x = input(rng, DType::f32, {N});
  x.output = x.inout = true;
  c.tensors = {x};
  c.args = {size_t(0)};
  c.expected = {std::vector<double>(N)};
  for (int64_t i = 0; i < N; ++i)
    c.expected[0][i] = roundTo(x.values[i] + 1.0, DType::f32);
  c.tolerance = 0;
  return c;
}

Case specialCase(std::mt19937 &rng) {
  const int64_t N = 256;
  const double inf = std::numeric_limits<double>::infinity();
  Case c;
  c.label = "exp, tanh, log1p, softplus at +-inf, overflow, tiny values";
  c.kernel = "test_special";
  c.grid = {ceilDiv(N, 128), 1, 1};
  Tensor x = input(rng, DType::f32, {N}, -30, 30);
  const double specials[] = {inf,   -inf,  1000, -1000, 88.8,  -88.0,
                             1e-8,  -1e-6, 0.3,  -0.29, 20.0,  1e38,
                             -1e38, 44.4,  0.0,  1e-30, -0.55, 3e-4};
  for (size_t k = 0; k < std::size(specials); ++k)
    x.values[k * 13 % N] = roundTo(specials[k], DType::f32);
  c.tensors = {x, output(DType::f32, {4, N}, {N, 1}, 4 * N)};
  c.args = {size_t(0), size_t(1)};
  c.expected = expectationsFor(c);
  for (int64_t i = 0; i < N; ++i) {
    double v = x.values[i];
    double sp = std::max(v, 0.0) + std::log1p(std::exp(-std::fabs(v)));
    c.expected[1][0 * N + i] = roundTo(std::exp(v), DType::f32);
    c.expected[1][1 * N + i] = std::tanh(v);
    c.expected[1][2 * N + i] = std::log1p(std::fabs(v));
    c.expected[1][3 * N + i] = std::isinf(v) ? std::max(v, 0.0) : sp;
  }
  c.tolerance = 4e-6;
  c.perElement = true;
  return c;
}

/// nestedPipeKernel with TRIANGULAR through `kernel`: C = A Bᵀ, 150x200x300
/// bf16, one program per 64 rows walking the 64-column blocks, block j
/// summing the first min(5, j) K tiles of 64 (0, 1, 2, 3).
Case nestedTriCase(std::mt19937 &rng, const std::string &kernel,
                   const std::string &label) {
  Case c = matmulCase(rng, kernel, "tma", DType::bf16, 150, 200, 300, 64, 64,
                      false, true, true);
  c.grid[1] = 1;
  c.label = label;
  const Tensor &a = c.tensors[0], &b = c.tensors[1];
  for (int64_t m = 0; m < 150; ++m)
    for (int64_t n = 0; n < 200; ++n) {
      double s = 0;
      for (int64_t k = 0; k < std::min<int64_t>(300, n / 64 * 64); ++k)
        s += a.values[offset(a, {m, k})] * b.values[offset(b, {n, k})];
      c.expected[2][m * 200 + n] = s;
    }
  return c;
}

} // namespace

double poisonValue(DType dtype) {
  return isFloat(dtype) ? std::numeric_limits<double>::quiet_NaN() : -1.0;
}

std::vector<Case> opCases(std::mt19937 &rng) {
  std::vector<Case> cases;
  for (int pad = 0; pad < 3; ++pad)
    cases.push_back(copyCase(rng, pad, /*transposed=*/pad == 1));
  cases.push_back(copyCase(rng, 0, /*transposed=*/true));
  // Clusters of 2 CTAs along x: 50 rows are 4 row blocks (ragged); 37 rows
  // are 3, which the runtime must refuse to launch.
  Case cluster = copyCase(rng, 0, false, "test_cluster_copy", 50);
  cluster.label = "clusters of 2 CTAs (compiled in), ragged 50x53";
  cases.push_back(cluster);
  Case odd = copyCase(rng, 0, false, "test_cluster_copy", 37);
  odd.label = "clusters of 2 CTAs: a grid of 3 x 2 is refused";
  odd.launchError = "is not a multiple of the cluster";
  cases.push_back(odd);
  cases.push_back(squeezeCase(rng));
  cases.push_back(columnCase(rng));
  cases.push_back(tmaStoreCase(rng, DType::f32));
  cases.push_back(tmaStoreCase(rng, DType::bf16));
  cases.push_back(mmaStoreCase(rng, DType::bf16, 64, 128));
  cases.push_back(mmaStoreCase(rng, DType::f16, 64, 64));
  cases.push_back(mathCase(rng));
  cases.push_back(siluCase(rng));
  cases.push_back(prefetchCase(rng));
  cases.push_back(chainCase(rng));
  cases.push_back(maskedCastCase(rng, DType::bf16));
  cases.push_back(maskedCastCase(rng, DType::f16));
  cases.push_back(packedArithCase(rng, DType::bf16));
  cases.push_back(packedArithCase(rng, DType::f16));
  cases.push_back(packedExp2Case(rng, DType::bf16));
  cases.push_back(packedExp2Case(rng, DType::f16));
  for (DType type : {DType::f32, DType::bf16, DType::f16})
    cases.push_back(columnWordsCase(rng, type));
  cases.push_back(itemBranchCase(rng));
  cases.push_back(logScaleCase(rng, DType::bf16));
  cases.push_back(logScaleCase(rng, DType::f16));
  for (DType dtype : {DType::f32, DType::bf16, DType::f16})
    cases.push_back(fmaCase(rng, dtype));
  cases.push_back(scanCase(rng, 0, false, 0));
  cases.push_back(scanCase(rng, 0, true, 1));
  cases.push_back(scanCase(rng, 1, false, 2));
  cases.push_back(scanCase(rng, 1, true, 0));
  cases.push_back(shapeCase(rng));
  cases.push_back(loopCase(rng));
  // The loads issued 3 iterations ahead into registers the loop carries:
  // more blocks than the distance, as many, and fewer (the prologue's
  // guards).
  for (int64_t N : {100, 96, 40, 20}) // 4, 3 (the distance), 2 and 1 blocks
    cases.push_back(loopCase(rng, "test_loop_ahead3", N));
  cases.push_back(inplaceCase(rng));
  cases.push_back(specialCase(rng));
  cases.push_back(mmaCase(rng, DType::bf16, 50, 70, 90, 32, 32));
  cases.push_back(mmaCase(rng, DType::f16, 100, 64, 72, 64, 64));
  cases.push_back(mmaCase(rng, DType::f32, 33, 17, 40, 16, 16));
  cases.push_back(mmaChainCase(rng, 150, 40, 70, 45));
  cases.push_back(mmaChainCase(rng, 150, 70, 150, 100, "test_wgmma_chain_bf16",
                               DType::bf16, 64, 64));
  cases.push_back(mmaChainCase(rng, 130, 50, 140, 90, "test_wgmma_chain_t_bf16",
                               DType::bf16, 64, 64));
  cases.push_back(mmaChainCase(rng, 150, 70, 150, 100,
                               "test_wgmma_chain_il_bf16", DType::bf16, 64, 64));
  // Ragged token counts: 3 blocks with a partial last one, 2 heads; one
  // block shorter than the block size.
  cases.push_back(attentionCase(rng, "test_attention_bf16", 2, 150, true));
  cases.push_back(attentionCase(rng, "test_attention_wgmma_bf16", 3, 200, true));
  cases.push_back(attentionCase(rng, "test_attention_wgmma_bf16", 2, 40, true));
  cases.push_back(
      attentionCase(rng, "test_attention_full_wgmma_bf16", 2, 170, false));
  // One key past a block boundary (a key too many, or too few, moves every
  // row by about 1/65), and scores large enough that exp2 of them overflows
  // unless each row's running maximum is right.
  cases.push_back(
      attentionCase(rng, "test_attention_full_wgmma_bf16", 2, 65, false));
  cases.push_back(
      attentionCase(rng, "test_attention_wgmma_bf16", 2, 150, true, 16));
  cases.push_back(attentionCase(rng, "test_attention_bf16", 2, 150, true, 16));
  // Two warpgroups of 64 query rows (BM = 128, 8 warps): a last block of
  // 102 rows (the second warpgroup's partly past L), causal; and one of 42
  // (the second warpgroup's all past L), not causal.
  cases.push_back(attentionCase(rng, "test_attention_m128_wgmma_bf16", 2, 230,
                                true, 1.7, 128));
  cases.push_back(attentionCase(rng, "test_attention_full_m128_wgmma_bf16", 3,
                                170, false, 1.7, 128));
  cases.push_back(
      rowReduce16Case(rng, "test_row_reduce_bf16", DType::bf16, 150));
  cases.push_back(
      rowReduce16Case(rng, "test_row_reduce_wgmma_f16", DType::f16, 150,
                      /*negative=*/true));
  cases.push_back(rowScaledCase(rng, 150, 200, 70, "test_row_frag_bf16"));
  cases.push_back(rowScaledCase(rng, 150, 200, 70, "test_row_shared_bf16"));
  cases.push_back(rowScaledCase(rng, 150, 200, 70, "test_row_frag_il_bf16"));
  cases.push_back(
      rowScaledCase(rng, 150, 200, 70, "test_row_frag_il_dw_bf16"));
  // (K = 300: 5 blocks, the last partial, the 3- and 4-buffer rings'
  // phases flipping.)
  cases.push_back(
      correctedOperandCase(rng, 150, 300, 100, "test_operand_in_place_bf16",
                           DType::bf16, 64));
  cases.push_back(
      correctedOperandCase(rng, 200, 300, 70, "test_operand_in_place3_f16",
                           DType::f16, 128));
  cases.push_back(
      correctedOperandCase(rng, 150, 300, 100, "test_operand_scratch_bf16",
                           DType::bf16, 64));
  cases.push_back(scaledUpdateCase(rng, 200, 100, 90));
  cases.push_back(scaledUpdateCase(rng, 200, 100, 90, "test_scaled_t_il_bf16"));
  // (600 tokens: 10 groups, the 3-buffer rings' phases flipping several
  // times.)
  cases.push_back(scaledUpdateCase(rng, 600, 100, 90, "test_scaled_t_dw_bf16"));
  // (600 tokens: 10 steps, each ring's phases flip several times.)
  cases.push_back(scaledUpdateCase(rng, 600, 200, 70, "test_ws_scaled_t_bf16"));
  cases.push_back(
      scaledUpdateCase(rng, 600, 200, 70, "test_ws_ring_scaled_t_bf16"));
  cases.push_back(scaledUpdateCase(rng, 150, 200, 70, "test_scaled_t8_f16",
                                   DType::f16, 128));
  cases.push_back(mmaChainCase(rng, 200, 40, 70, 130, "test_wgmma_chain_f16",
                               DType::f16, 128, 128));
  cases.push_back(matmulCase(rng, "test_wgmma_bf16", "wgmma", DType::bf16, 150,
                             200, 88, 64, 128, false, false, false));
  cases.push_back(matmulCase(rng, "test_wgmma_f16_t", "wgmma", DType::f16, 300,
                             100, 72, 128, 64, true, true, false));
  // Ragged in every dimension: the TMA fills what lies outside with zeros.
  cases.push_back(matmulCase(rng, "test_tma_bf16", "tma", DType::bf16, 150,
                             100, 200, 64, 64, false, true, true));
  cases.push_back(matmulCase(rng, "test_tma_tf32", "tma", DType::f32, 70, 45,
                             90, 32, 32, true, false, true));
  cases.push_back(matmulCase(rng, "test_wgmma_tf32", "wgmma", DType::f32, 150,
                             100, 70, 64, 64, false, true, false));
  cases.push_back(matmulCase(rng, "test_tma_wgmma_tf32", "tma wgmma",
                             DType::f32, 130, 200, 150, 64, 128, false, true,
                             true));
  // Rings deeper than two: K tiles 7, 2 and 1 (fewer iterations than the
  // distance: the prologue's guards), then 5 and 2 by the TMA.
  for (int64_t K : {200, 40, 20})
    cases.push_back(matmulCase(rng, "test_pipe_bf16", "pipelined 3/2",
                               DType::bf16, 150, 100, K, 64, 64, false, false,
                               false));
  for (int64_t K : {300, 100})
    cases.push_back(matmulCase(rng, "test_tma_wgmma_pipe_bf16",
                               "tma wgmma pipelined 2/3", DType::bf16, 150,
                               200, K, 64, 128, false, true, true));
  // Deferred wgmma waits: 11, 2 and 1 K steps of 64.
  for (int64_t K : {700, 100, 40})
    cases.push_back(matmulCase(rng, "test_tma_wgmma_pipe_dw_bf16",
                               "tma wgmma pipelined 2/3, deferred waits",
                               DType::bf16, 150, 200, K, 64, 128, false, true,
                               true));
  // Early copies: 5 K steps of 64, and 1 (ragged).
  for (int64_t K : {300, 40})
    cases.push_back(matmulCase(rng, "test_tma_wgmma_pipe_ec_bf16",
                               "tma wgmma pipelined 2/3, early copies",
                               DType::bf16, 150, 200, K, 64, 128, false, true,
                               true));
  for (const char *kernel :
       {"test_tma_nested_pipe_bf16", "test_tma_nested_ahead_bf16"})
    for (int64_t K : {100, 300}) {
      // One program per 64 rows walks every 64-column block (grid y = 1).
      Case c = matmulCase(rng, kernel, "tma", DType::bf16, 150, 200, K, 64,
                          64, false, true, true);
      c.grid[1] = 1;
      c.label = "tma bf16 150x200x" + std::to_string(K) +
                " B^T, K loops 3/2 ahead in a loop over column blocks" +
                (std::string(kernel).find("ahead") != std::string::npos
                     ? ", prologues ahead"
                     : "");
      cases.push_back(std::move(c));
    }
  // Persistent: more programs than CTAs (each CTA walks several, rings
  // restarting per program), and the occupancy-sized launch.
  cases.push_back(persistentCopyCase(rng, 3, 37, 200, 5));
  cases.push_back(persistentCopyCase(rng, 20, 1000, 100, 0));
  // The persistent K loop plain, with prologues ahead, and warp-specialised
  // (the producer's copies run across programs).
  const std::pair<const char *, const char *> persistent[] = {
      {"test_persistent_tma_wgmma_bf16", "persistent tma wgmma pipelined 2/3"},
      {"test_persistent_ahead_bf16",
       "persistent tma wgmma 2/3, prologues ahead,"},
      {"test_persistent_ws_bf16", "warp-specialised persistent tma wgmma 2/3"},
      {"test_persistent_ws_ring_bf16",
       "warp-specialised persistent tma wgmma 2/3, one ring of 4"}};
  for (auto [kernel, what] : persistent)
    for (int64_t ctas : {4, 0}) {
      Case c = matmulCase(rng, kernel, what, DType::bf16, 300, 520, 200, 64,
                          128, false, true, true);
      c.persistentCtas = ctas;
      c.label += ctas ? ", 25 programs on 4 CTAs" : ", on the CTAs that fit";
      cases.push_back(std::move(c));
    }
  // K in two loops, the first issuing the next program's copies ahead while
  // the second runs above them: K blocks 2 + 2, and 0 + 1 (the first loop
  // runs none).
  const std::pair<const char *, const char *> split[] = {
      {"test_persistent_ahead_split_bf16",
       "persistent tma wgmma 2/2 in two K loops, the first's prologue ahead,"},
      {"test_persistent_ahead_split23_bf16",
       "persistent tma wgmma 2/3 in two K loops, the first's prologue ahead,"}};
  for (auto [kernel, what] : split)
    for (auto [K, ctas] : {std::pair<int64_t, int64_t>{200, 4}, {200, 0},
                           {40, 4}}) {
      Case c = matmulCase(rng, kernel, what, DType::bf16, 300, 520, K, 64,
                          128, false, true, true);
      c.persistentCtas = ctas;
      c.label += ctas ? ", 25 programs on 4 CTAs" : ", on the CTAs that fit";
      cases.push_back(std::move(c));
    }
  // A second K loop whose prologue goes out where the first starts: K
  // blocks 2 + 3, 2 + 2, and 0 + 1 (the first loop runs none); split by
  // row block (row blocks 0 and 2 take one loop, 1 and 3 the other).
  for (const char *kernel : {"test_early_split_bf16", "test_early_branch_bf16"})
    for (int64_t K : {300, 200, 40})
      cases.push_back(matmulCase(
          rng, kernel,
          std::string(kernel).find("branch") != std::string::npos
              ? "tma wgmma 2/2 in two K loops, the second in one of two "
                "(2/2 or 1/1) by row block, their prologues early"
              : "tma wgmma 2/2 in two K loops, the second's prologue early",
          DType::bf16, 200, 200, K, 64, 128, false, true, true));
  cases.push_back(nestedTriCase(
      rng, "test_tma_nested_tri_bf16",
      "tma bf16 150x200x300 B^T, K loops of 0-3 tiles by column block, "
      "prologues ahead"));
  // Warp-specialised: K tiles 5, 2 and 1 (fewer than the rings' depths);
  // nested K loops of 0-3 tiles.
  for (int64_t K : {300, 100, 20})
    cases.push_back(matmulCase(rng, "test_ws_tma_wgmma_bf16",
                               "warp-specialised tma wgmma 2/3", DType::bf16,
                               150, 200, K, 64, 128, false, true, true));
  for (int64_t K : {300, 100, 20})
    cases.push_back(matmulCase(rng, "test_ws_ring_bf16",
                               "warp-specialised tma wgmma 2/3, one ring of 3",
                               DType::bf16, 150, 200, K, 64, 128, false, true,
                               true));
  cases.push_back(nestedTriCase(
      rng, "test_ws_nested_tri_bf16",
      "warp-specialised tma bf16 150x200x300 B^T, K loops of 0-3 tiles by "
      "column block"));
  cases.push_back(nestedTriCase(
      rng, "test_ws_ring_nested_tri_bf16",
      "warp-specialised tma bf16 150x200x300 B^T, K loops of 0-3 tiles by "
      "column block, one ring of 3"));
  cases.push_back(matmulCase(rng, "test_tma_f16_once", "tma", DType::f16, 130,
                             70, 100, 64, 64, false, false, true));
  cases.push_back(matmulCase(rng, "test_tma_wgmma_bf16", "tma wgmma",
                             DType::bf16, 150, 200, 300, 64, 128, false, true,
                             true));
  cases.push_back(matmulCase(rng, "test_tma_wgmma_dw_bf16",
                             "tma wgmma, deferred waits", DType::bf16, 150, 200,
                             700, 64, 128, false, true, true));
  cases.push_back(matmulCase(rng, "test_tma_wgmma_f16_t", "tma wgmma",
                             DType::f16, 300, 140, 72, 128, 128, true, false,
                             true));
  // B's tiles multicast to clusters of 2 CTAs (4 row blocks: 2 clusters
  // per column block, the last rows ragged), A's per CTA.
  cases.push_back(matmulCase(rng, "test_tma_multicast_bf16",
                             "tma wgmma, B multicast to 2 CTAs", DType::bf16,
                             250, 200, 300, 64, 128, false, true, true));
  {
    // Two programs per 64 rows (grid x = 2 x 3), sharing A's multicast
    // resident tile, each walking every other 64-column block.
    Case c = matmulCase(rng, "test_tma_resident_multicast_bf16", "tma",
                        DType::bf16, 150, 100, 120, 64, 64, false, true, true);
    c.grid = {6, 1, 1};
    c.label = "tma bf16 150x100x120 B^T, A resident and multicast to 2 "
              "CTAs (ragged)";
    cases.push_back(std::move(c));
  }
  {
    // One program per 64 rows walks every 64-column block (grid y = 1).
    Case c = matmulCase(rng, "test_tma_resident_bf16", "tma", DType::bf16,
                        150, 100, 120, 64, 64, false, true, true);
    c.grid[1] = 1;
    c.label = "tma bf16 150x100x120 B^T, A loaded once for a loop (ragged)";
    cases.push_back(std::move(c));
  }
  return cases;
}

Case chunkCumsumCase(std::mt19937 &rng, int64_t b, int64_t L, int64_t h,
                     int64_t blockH) {
  const int64_t Q = 256, BH = blockH;
  Case c;
  c.label = "chunk_cumsum b=" + std::to_string(b) + " L=" + std::to_string(L) +
            " h=" + std::to_string(h) + " vs float64";
  c.kernel = "chunk_cumsum";
  c.grid = {b, ceilDiv(L, Q), ceilDiv(h, BH)};
  // Raw dt such that softplus(dt + bias) is log-uniform in [1e-3, 1e-1].
  Tensor dt{DType::bf16, {b, L, h}, {L * h, h, 1}, {}, false};
  std::uniform_real_distribution<double> logU(std::log(1e-3), std::log(1e-1));
  std::uniform_real_distribution<double> aU(1, 16), bU(-0.5, 0.5);
  dt.values.resize(b * L * h);
  for (double &v : dt.values)
    v = roundTo(std::log(std::expm1(std::exp(logU(rng)))), DType::bf16);
  Tensor A{DType::f32, {h}, {1}, std::vector<double>(h), false};
  Tensor bias{DType::f32, {h}, {1}, std::vector<double>(h), false};
  for (int64_t i = 0; i < h; ++i) {
    A.values[i] = roundTo(-aU(rng), DType::f32);
    bias.values[i] = roundTo(bU(rng), DType::f32);
  }
  int64_t Lp = ceilDiv(L, 4) * 4; // rows padded to 16 bytes (aligned view)
  Tensor dtOut = output(DType::f32, {b, h, L}, {h * Lp, Lp, 1}, b * h * Lp);
  Tensor acs = dtOut;
  c.tensors = {dt, A, bias, dtOut, acs};
  double inf = std::numeric_limits<double>::infinity();
  c.args = {size_t(0),
            size_t(1),
            size_t(2),
            size_t(3),
            size_t(4),
            Scalar{DType::f32, 0.0},
            Scalar{DType::f32, inf}};
  c.expected = expectationsFor(c);
  auto ref =
      mamba2::reference::chunkCumsum(dt.values, A.values, bias.values, b, L, h,
                                     Q, /*softplus=*/true, 0.0, inf);
  for (int64_t row = 0; row < b * h; ++row)
    for (int64_t t = 0; t < L; ++t) {
      c.expected[3][row * Lp + t] = ref.dt[row * L + t];
      c.expected[4][row * Lp + t] = ref.acs[row * L + t];
    }
  c.tolerance = 1e-6;
  return c;
}

std::string check(const Case &c, const std::vector<std::vector<double>> &got,
                  double *error) {
  *error = 0;
  for (size_t t = 0; t < c.tensors.size(); ++t) {
    if (!c.tensors[t].output)
      continue;
    const std::vector<double> &want = c.expected[t], &have = got[t];
    double num = 0, den = 0;
    for (size_t i = 0; i < want.size(); ++i) {
      bool wantNaN = std::isnan(want[i]), haveNaN = std::isnan(have[i]);
      if (wantNaN != haveNaN || (std::isinf(want[i]) && want[i] != have[i])) {
        std::ostringstream os;
        os << "output #" << t << " element " << i << ": expected " << want[i]
           << ", got " << have[i] << (wantNaN ? " (must stay unwritten)" : "");
        return os.str();
      }
      if (wantNaN || std::isinf(want[i]))
        continue;
      if (c.perElement) {
        double rel =
            std::fabs(have[i] - want[i]) / std::max(std::fabs(want[i]), 1e-37);
        *error = std::max(*error, rel);
        if (rel > c.tolerance) {
          std::ostringstream os;
          os << "output #" << t << " element " << i << ": expected " << want[i]
             << ", got " << have[i] << " (relative error " << rel << ")";
          return os.str();
        }
        continue;
      }
      num += (have[i] - want[i]) * (have[i] - want[i]);
      den += want[i] * want[i];
    }
    if (c.perElement)
      continue;
    double e = den == 0 ? std::sqrt(num) : std::sqrt(num / den);
    *error = std::max(*error, e);
    if (e > c.tolerance) {
      std::ostringstream os;
      os << "output #" << t << " relative L2 error " << e << " > "
         << c.tolerance;
      return os.str();
    }
  }
  return "";
}

std::vector<Case> timedCases(std::mt19937 &rng) {
  // The pipelined TMA + wgmma GEMM (A 2, B 3 iterations ahead), its copies
  // issued by the consumer warps or by a producer warpgroup: 128 CTAs of
  // 64x128, 32 K steps each; then 512 tiles of 16 K steps, one CTA per tile
  // or persistent (each CTA walking tiles; warp-specialised, the producer
  // runs into the next tile while the consumers finish this one), the
  // warp-specialised ones also with one shared ring.
  std::vector<Case> cases;
  for (const char *kernel :
       {"test_tma_wgmma_pipe_bf16", "test_tma_wgmma_pipe_dw_bf16",
        "test_ws_tma_wgmma_bf16", "test_ws_ring_bf16"})
    cases.push_back(matmulCase(rng, kernel,
                               std::string(kernel) + ", timed:",
                               DType::bf16, 1024, 1024, 2048, 64, 128, false,
                               true, true));
  for (const char *kernel :
       {"test_tma_wgmma_pipe_bf16", "test_ws_tma_wgmma_bf16",
        "test_persistent_tma_wgmma_bf16", "test_persistent_ws_bf16",
        "test_persistent_ws_ring_bf16"})
    cases.push_back(matmulCase(rng, kernel,
                               std::string(kernel) + ", timed:",
                               DType::bf16, 2048, 2048, 1024, 64, 128, false,
                               true, true));
  // f32 sums of 1024-2048 products: rounding grows as sqrt(K) 2^-24 (~3e-6).
  for (Case &c : cases)
    c.tolerance = 1e-5;
  // Attention (bf16 P and O: the op cases' tolerance, 5e-3): 16 heads of 2048
  // tokens causal, 8.6 GFLOP (4 L^2 D heads / 2); of 1024 tokens not causal,
  // 4.3 GFLOP.
  cases.push_back(
      attentionCase(rng, "test_attention_wgmma_bf16", 16, 2048, true));
  cases.back().label = "attention_wgmma_bf16 16x2048x64 causal, timed:";
  cases.push_back(
      attentionCase(rng, "test_attention_full_wgmma_bf16", 16, 1024, false));
  cases.back().label = "attention_full_wgmma_bf16 16x1024x64, timed:";
  cases.push_back(attentionCase(rng, "test_attention_m128_wgmma_bf16", 16,
                                2048, true, 1.7, 128));
  cases.back().label = "attention_m128_wgmma_bf16 16x2048x64 causal, timed:";
  cases.push_back(attentionCase(rng, "test_attention_full_m128_wgmma_bf16", 16,
                                1024, false, 1.7, 128));
  cases.back().label = "attention_full_m128_wgmma_bf16 16x1024x64, timed:";
  return cases;
}

} // namespace tessel::testcases
