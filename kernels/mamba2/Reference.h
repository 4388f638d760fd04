//===- Reference.h - float64 reference of the Mamba-2 forward ---*- C++ -*-===//
//
// Plain C++ in double precision, written from ../shared/MAMBA2.md and
// independently of the DSL kernels: the oracle the kernels are tested against.
// Inputs are already-rounded values (the values the kernels read), as doubles.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_KERNELS_MAMBA2_REFERENCE_H
#define TESSEL_KERNELS_MAMBA2_REFERENCE_H

#include <cmath>
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

/// The whole forward pass (MAMBA2.md), inputs row-major as doubles. Optional
/// inputs are empty when absent. Computed token by token (the recurrence
/// h_t = exp(a_t) h_{t-1} + dt_t x_t B_tᵀ, y_t = C_t h_t + D x_t), with no
/// chunking at all, so that it shares nothing with the chunked kernels.
struct ForwardInputs {
  int64_t b = 0, L = 0, h = 0, p = 0, n = 0, g = 1;
  std::vector<double> x;        // (b, L, h, p)
  std::vector<double> dt;       // (b, L, h), raw
  std::vector<double> A;        // (h)
  std::vector<double> B, C;     // (b, L, g, n)
  std::vector<double> D;        // empty, (h) or (h, p)
  std::vector<double> z;        // empty or (b, L, h, p)
  std::vector<double> dtBias;   // empty or (h)
  std::vector<double> init;     // empty or (b, h, p, n)
  std::vector<int32_t> seqIdx;  // empty or (b, L), nondecreasing per row
  bool softplus = false;
  double dtMin = 0, dtMax = INFINITY;
};
struct ForwardOutputs {
  std::vector<double> y;           // (b, L, h, p)
  std::vector<double> finalStates; // (b, h, p, n)
};
/// Packed sequences (seqIdx): the state is reset where the value changes;
/// the token before token 0 counts as sequence 0 (so the initial state
/// reaches the tokens of a leading sequence 0 only), as in mamba_ssm.
ForwardOutputs forward(const ForwardInputs &in);

} // namespace tessel::mamba2::reference

#endif // TESSEL_KERNELS_MAMBA2_REFERENCE_H
