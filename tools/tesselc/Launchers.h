//===- Launchers.h - generated C++ launchers for compiled kernels -*- C++
//-*-===//
//
// `tesselc --library NAME` writes NAME.h and NAME.cpp: the cubins of every
// kernel and target embedded as byte arrays, and one typed launch function
// per kernel that checks its arguments, computes the grid from their shapes
// (when the kernel declares how) and launches through runtime/. The pair
// compiles against the runtime alone: no MLIR, no LLVM.
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
};

struct GridDim {
  int param = -1; // index into params, -1 for a constant 1
  int dim = 0;
  int64_t divisor = 1;
};

struct Kernel {
  std::string name, summary, config;
  int numWarps = 0;
  std::vector<Param> params;
  std::vector<GridDim> grid; // empty: the caller gives the grid
  std::vector<std::pair<std::string, std::vector<char>>> images; // target
};

std::string generateHeader(const std::string &library, const std::string &ns,
                           const std::vector<Kernel> &kernels);
std::string generateSource(const std::string &library, const std::string &ns,
                           const std::vector<Kernel> &kernels);

} // namespace tessel::launchers

#endif // TESSEL_TOOLS_TESSELC_LAUNCHERS_H
