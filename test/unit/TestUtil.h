//===- TestUtil.h - helpers for tracing and running kernels in tests ------===//

#ifndef TESSEL_TEST_UNIT_TESTUTIL_H
#define TESSEL_TEST_UNIT_TESTUTIL_H

#include "dsl/Registry.h"
#include "dsl/Tracer.h"
#include "interpreter/Interpreter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace tessel::test {

/// Traces a kernel function with `names` for its parameters.
struct Traced {
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::vector<std::string> diagnostics;
  mlir::func::FuncOp kernel() {
    return module ? *module->getOps<mlir::func::FuncOp>().begin()
                  : mlir::func::FuncOp();
  }
  std::string allDiagnostics() const {
    std::string s;
    for (const std::string &d : diagnostics)
      s += d + "\n";
    return s;
  }
};

template <class... Ps>
Traced trace(mlir::MLIRContext &ctx, void (*fn)(const dsl::Config &, Ps...),
             std::array<std::string, sizeof...(Ps)> names,
             dsl::Config config = {}) {
  dsl::KernelDef def;
  def.name = "test_kernel";
  def.build = [&](const dsl::Config &cfg) { dsl::define(fn, cfg, names); };
  dsl::TraceResult r = dsl::traceKernel(ctx, def, config);
  return {std::move(r.module), std::move(r.diagnostics)};
}

/// A host tensor of doubles holding values representable in `dtype`, stored
/// in `dtype`'s bytes for the kernel.
struct HostTensor {
  DType dtype;
  std::vector<int64_t> sizes;
  std::vector<unsigned char> bytes;

  HostTensor(DType dtype, std::vector<int64_t> sizes)
      : dtype(dtype), sizes(std::move(sizes)) {
    bytes.assign(numel() * dtypeBytes(dtype) + 64, 0);
  }
  int64_t numel() const {
    int64_t n = 1;
    for (int64_t s : sizes)
      n *= s;
    return n;
  }
  /// 16-byte aligned start inside the buffer.
  unsigned char *data() {
    auto p = reinterpret_cast<uintptr_t>(bytes.data());
    return bytes.data() + ((16 - p % 16) % 16);
  }
  double get(int64_t i) {
    return interp::loadElement(data() + i * dtypeBytes(dtype), dtype);
  }
  /// Stores `v` rounded to the dtype; returns the stored value.
  double set(int64_t i, double v) {
    interp::storeElement(data() + i * dtypeBytes(dtype), dtype, v);
    return get(i);
  }
  /// Fills every element with a NaN (floats) or a sentinel (integers), so a
  /// kernel that skips an element is caught.
  void poison() {
    for (int64_t i = 0; i < numel(); ++i)
      set(i, isFloat(dtype) ? std::nan("") : -12345);
  }
  void randomize(std::mt19937 &rng, double lo = -1, double hi = 1) {
    std::uniform_real_distribution<double> dist(lo, hi);
    for (int64_t i = 0; i < numel(); ++i)
      set(i, isFloat(dtype) ? dist(rng) : std::floor(dist(rng)));
  }
  interp::ViewArg view() {
    return interp::contiguousView(data(), dtype, sizes);
  }
};

/// Relative L2 error of `got` against `want`.
inline double relativeL2(const std::vector<double> &got,
                         const std::vector<double> &want) {
  double num = 0, den = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    double d = got[i] - want[i];
    num += d * d;
    den += want[i] * want[i];
  }
  return den == 0 ? std::sqrt(num) : std::sqrt(num / den);
}

/// A seed that differs between runs (fresh inputs) but is printed on failure.
inline unsigned freshSeed() { return std::random_device{}(); }

} // namespace tessel::test

#endif // TESSEL_TEST_UNIT_TESTUTIL_H
