//===- Kernels.h - shared definitions of the Mamba-2 kernels ----*- C++ -*-===//

#ifndef TESSEL_KERNELS_MAMBA2_KERNELS_H
#define TESSEL_KERNELS_MAMBA2_KERNELS_H

#include "dsl/Registry.h"
#include "dsl/Tessel.h"

namespace tessel::mamba2 {
/// Acs is kept times log2(e) so that exp(v) = exp2(Acs) downstream.
inline constexpr double kLog2e = 1.4426950408889634;
} // namespace tessel::mamba2

#endif // TESSEL_KERNELS_MAMBA2_KERNELS_H
