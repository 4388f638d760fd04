//===- Launchers.h - generated C++ launchers for compiled kernels -*- C++ -*-===//
//
// `tesselc --library NAME` writes NAME.h and NAME.cpp: the cubins of every
// kernel, variant and target embedded as byte arrays, and typed launch
// functions per kernel that pick the compiled variant the caller asks for
// (a dtype, a chunk length: the kernel's non-tunable constants), check the
// arguments, compute the grid from their shapes (when the kernel declares
// how) and launch through runtime/. The pair compiles against the runtime
// alone: no MLIR, no LLVM.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_TOOLS_TESSELC_LAUNCHERS_H
#define TESSEL_TOOLS_TESSELC_LAUNCHERS_H

#include "dsl/Tessel.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessel::launchers {

struct Param {
  std::string name;
  bool isView;
  DType dtype;
  int rank;
  bool aligned16, unitStride;
  bool operator==(const Param &) const = default;
};

struct GridDim {
  int param = -1; // index into params, -1 for a constant 1
  int dim = 0;
  int64_t divisor = 1;
  int timesParam = -1; // a second factor: size of params[timesParam]
  int timesDim = 0;    // along timesDim
};

/// A shape rule (dsl::ShapeRule) of one compiled configuration: the size of
/// params[param] along dim is a multiple of `multiple` times the size of
/// params[timesParam] along timesDim (when timesParam >= 0).
struct ShapeRule {
  int param = -1, dim = 0;
  int64_t multiple = 1;
  int timesParam = -1, timesDim = 0;
  std::string multipleOf; // the constant's name ("" for none), for the error
};

/// A non-tunable constant: one field of the generated <kernel>_variant.
struct VariantParam {
  std::string name, doc;
  int64_t defaultValue;
  bool isDType;
};

/// A tunable constant: one field of the generated <kernel>_tunables.
struct TunableParam {
  std::string name, doc;
  int64_t defaultValue;
};

/// One size of the kernel's shape key (dsl::KeyDim with parameter indices).
struct KeyDim {
  std::string name;
  int param = -1, dim = 0;
  int timesParam = -1, timesDim = 0;
};

/// One row of a tuned table: on `target`, for the variant `key` and shapes
/// near `shape`, launch compiled configuration `entry`.
struct TunedRow {
  std::string target;
  std::vector<int64_t> key, shape;
  int entry = -1;
  std::string note; // "1.812 ms (default 1.850)", for the generated comment
};

/// One compiled configuration of a kernel.
struct Compiled {
  std::string config;        // "Q=256,DT_DTYPE=bf16,..."
  std::vector<int64_t> key;  // its values of the kernel's VariantParams
  std::vector<int64_t> tunables; // its values of the kernel's TunableParams
  /// The variant's default configuration (what launches without a tuned
  /// row or explicit tunables).
  bool isDefault = true;
  int numWarps = 0;
  int64_t dynamicShared = 0; // bytes of dynamic shared memory per launch
  bool programmaticLaunch = false; // compiled for it (hint `pdl`)
  std::vector<Param> params; // the signature of this configuration
  std::vector<GridDim> grid; // empty: the caller gives the grid
  std::vector<ShapeRule> rules; // the same rules, this configuration's values
  std::vector<std::pair<std::string, std::vector<char>>> images; // target
};

struct Kernel {
  std::string name, summary;
  std::vector<VariantParam> variants;
  std::vector<TunableParam> tunables;
  std::vector<KeyDim> shapeKey;
  std::vector<Compiled> compiled;
  std::vector<TunedRow> rows;
};

/// Adds `c` to `k`; returns an error when its signature differs from the
/// configurations already there in anything but view element types and
/// assumptions, when its configuration (variant and tunables) was compiled
/// already, or when it is a second default of its variant.
std::string addCompiled(Kernel &k, Compiled c);

/// The index of the compiled configuration of `key` and `tunables`, or -1.
int findCompiled(const Kernel &k, const std::vector<int64_t> &key,
                 const std::vector<int64_t> &tunables);

std::string generateHeader(const std::string &library, const std::string &ns,
                           const std::vector<Kernel> &kernels);
std::string generateSource(const std::string &library, const std::string &ns,
                           const std::vector<Kernel> &kernels);

} // namespace tessel::launchers

#endif // TESSEL_TOOLS_TESSELC_LAUNCHERS_H
