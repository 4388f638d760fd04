//===- TestCases.h - op test cases with plain C++ references ----*- C++ -*-===//
//
// Inputs, launch grid and expected outputs for each test kernel, independent
// of how the kernel is run: the interpreter (CI) and the GPU driver both take
// a Case, run the kernel on its tensors and call check(). Plain C++ only.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TEST_KERNELS_TESTCASES_H
#define TESSEL_TEST_KERNELS_TESTCASES_H

#include "dsl/Tessel.h"

#include <array>
#include <functional>
#include <random>
#include <string>
#include <variant>
#include <vector>

namespace tessel::testcases {

/// A strided tensor in memory of `storage` elements; `values` are what the
/// memory holds (inputs already rounded to the dtype). Outputs start poisoned
/// (NaN, or -1 for integers): an expected NaN means "must not be written".
struct Tensor {
  DType dtype;
  std::vector<int64_t> sizes, strides;
  std::vector<double> values;
  bool output = false;
  /// An output that starts from `values` (updated in place), not poison.
  bool inout = false;
};

struct Scalar {
  DType dtype;
  double value;
};

/// A kernel argument: a tensor (by index into Case::tensors) or a scalar.
using Arg = std::variant<size_t, Scalar>;

struct Case {
  std::string label;  // what the case checks
  std::string kernel; // registered kernel name, default constants
  std::array<int64_t, 3> grid;
  int numWarps = 4;
  std::vector<Tensor> tensors;
  std::vector<Arg> args;
  /// Expected memory of every output tensor (indexed like `tensors`).
  std::vector<std::vector<double>> expected;
  double tolerance; // relative L2 error allowed per output
  /// Check every element's relative error instead (values of very different
  /// magnitudes, where an L2 norm would hide small ones).
  bool perElement = false;
  /// For a persistent kernel: the CTAs to launch (LaunchConfig::
  /// persistentCtas; 0: as many as fit at once).
  int64_t persistentCtas = 0;
  /// Not empty: the launch must fail with an error that contains this (the
  /// outputs are then not checked; the interpreter skips such a case).
  std::string launchError;
};

/// The poison value of an output element before the kernel runs.
double poisonValue(DType dtype);

/// All op cases, inputs drawn from `rng` (fresh per run).
std::vector<Case> opCases(std::mt19937 &rng);
/// Larger cases the GPU tests also time (kernels compared side by side).
std::vector<Case> timedCases(std::mt19937 &rng);
/// chunk_cumsum against the float64 reference (default constants: Q=256,
/// bf16 dt, dt_bias, softplus) on the given shape, for a kernel built with
/// BLOCK_H = `blockH`.
Case chunkCumsumCase(std::mt19937 &rng, int64_t b, int64_t L, int64_t h,
                     int64_t blockH);

/// Compares `got` (memory of every tensor after the run) with the case's
/// expectations. Returns "" on success, else what is wrong; `error` receives
/// the largest relative L2 error over the outputs.
std::string check(const Case &c, const std::vector<std::vector<double>> &got,
                  double *error);

} // namespace tessel::testcases

#endif // TESSEL_TEST_KERNELS_TESTCASES_H
