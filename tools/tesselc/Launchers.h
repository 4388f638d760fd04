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

/// A non-tunable constant: one field of the generated <kernel>_variant.
struct VariantParam {
  std::string name, doc;
  int64_t defaultValue;
  bool isDType;
};

/// One compiled configuration of a kernel.
struct Compiled {
  std::string config;        // "Q=256,DT_DTYPE=bf16,..."
  std::vector<int64_t> key;  // its values of the kernel's VariantParams
  int numWarps = 0;
  int64_t dynamicShared = 0; // bytes of dynamic shared memory per launch
  std::vector<Param> params; // the signature of this configuration
  std::vector<GridDim> grid; // empty: the caller gives the grid
  std::vector<std::pair<std::string, std::vector<char>>> images; // target
};

struct Kernel {
  std::string name, summary;
  std::vector<VariantParam> variants;
  std::vector<Compiled> compiled;
};

/// Adds `c` to `k`; returns an error when its signature differs from the
/// configurations already there in anything but view element types and
/// assumptions, or when its variant was compiled already.
std::string addCompiled(Kernel &k, Compiled c);

std::string generateHeader(const std::string &library, const std::string &ns,
                           const std::vector<Kernel> &kernels);
std::string generateSource(const std::string &library, const std::string &ns,
                           const std::vector<Kernel> &kernels);

} // namespace tessel::launchers

#endif // TESSEL_TOOLS_TESSELC_LAUNCHERS_H
