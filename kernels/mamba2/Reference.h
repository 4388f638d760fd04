//===- Reference.h - float64 reference of the Mamba-2 forward ---*- C++ -*-===//
//
// Plain C++ in double precision, written from ../shared/MAMBA2.md and
// independently of the DSL kernels: the oracle the kernels are tested against.
// Inputs are already-rounded values (the values the kernels read), as doubles.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KERNELS_MAMBA2_REFERENCE_H
#define TESSEL_KERNELS_MAMBA2_REFERENCE_H

#include <cstdint>
#include <vector>

namespace tessel::mamba2::reference {

struct ChunkCumsumOutputs {
  std::vector<double> dt;  // (b, h, L)
  std::vector<double> acs; // (b, h, L), cumsum within each chunk, x log2(e)
};

/// dt: (b, L, h) row-major; A, dtBias: (h) (dtBias may be empty).
ChunkCumsumOutputs chunkCumsum(const std::vector<double> &dt,
                               const std::vector<double> &A,
                               const std::vector<double> &dtBias, int64_t b,
                               int64_t L, int64_t h, int64_t Q, bool softplus,
                               double dtMin, double dtMax);

} // namespace tessel::mamba2::reference

#endif // TESSEL_KERNELS_MAMBA2_REFERENCE_H
