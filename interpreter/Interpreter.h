//===- Interpreter.h - run tile-dialect kernels on the CPU ------*- C++ -*-===//
//
// The reference semantics of the tile dialect: every program of the grid runs
// one after the other on host buffers, with the exact addressing of views
// (sizes, strides in elements), padding of out-of-bounds loads, dropping of
// out-of-bounds stores, and rounding to each value's element type after every
// operation (f32 math is f32; bf16/f16 round to nearest even on store and
// cast; tf32 mma operands round to nearest, ties away). It is the oracle that
// CI runs kernels against, and later the oracle for generated GPU code.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_INTERPRETER_INTERPRETER_H
#define TESSEL_INTERPRETER_INTERPRETER_H

#include "dsl/Tessel.h"
#include "interpreter/Numbers.h"

#include <array>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace mlir::func {
class FuncOp;
}

namespace tessel::interp {

/// A view argument: host memory described like a strided tensor.
struct ViewArg {
  void *data = nullptr;
  DType dtype = DType::f32;
  std::vector<int64_t> sizes;
  /// In elements; may be any value, including 0 and negative.
  std::vector<int64_t> strides;
};

/// A kernel argument: a view, an integer scalar or a float scalar.
using Arg = std::variant<ViewArg, int64_t, double>;

/// A contiguous row-major view over `data`.
ViewArg contiguousView(void *data, DType dtype, std::vector<int64_t> sizes);

/// Runs `kernel` for every program of `grid`. Returns an empty string on
/// success, else a message (bad arguments, an out-of-range view access through
/// a violated assumption, an unsupported op, an integer division by zero).
std::string run(mlir::func::FuncOp kernel, std::array<int64_t, 3> grid,
                const std::vector<Arg> &args);

} // namespace tessel::interp

#endif // TESSEL_INTERPRETER_INTERPRETER_H
