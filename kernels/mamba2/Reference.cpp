//===- Reference.cpp - float64 reference of the Mamba-2 forward -----------===//

#include "kernels/mamba2/Reference.h"

#include <algorithm>
#include <cmath>

namespace tessel::mamba2::reference {

ChunkCumsumOutputs chunkCumsum(const std::vector<double> &dt,
                               const std::vector<double> &A,
                               const std::vector<double> &dtBias, int64_t b,
                               int64_t L, int64_t h, int64_t Q, bool softplus,
                               double dtMin, double dtMax) {
  ChunkCumsumOutputs out;
  out.dt.assign(b * h * L, 0.0);
  out.acs.assign(b * h * L, 0.0);
  const double log2e = 1.0 / std::log(2.0);
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t hi = 0; hi < h; ++hi) {
      double running = 0;
      for (int64_t t = 0; t < L; ++t) {
        if (t % Q == 0)
          running = 0; // a new chunk starts
        double v = dt[(bi * L + t) * h + hi];
        if (!dtBias.empty())
          v += dtBias[hi];
        if (softplus)
          v = v > 20.0 ? v : std::log1p(std::exp(v));
        v = std::min(std::max(v, dtMin), dtMax);
        running += v * A[hi];
        out.dt[(bi * h + hi) * L + t] = v;
        out.acs[(bi * h + hi) * L + t] = running * log2e;
      }
    }
  return out;
}

} // namespace tessel::mamba2::reference
