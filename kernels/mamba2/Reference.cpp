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

ForwardOutputs forward(const ForwardInputs &in) {
  const int64_t b = in.b, L = in.L, h = in.h, p = in.p, n = in.n, g = in.g;
  ForwardOutputs out;
  out.y.assign(b * L * h * p, 0.0);
  out.finalStates.assign(b * h * p * n, 0.0);
  std::vector<double> state(p * n);
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t hi = 0; hi < h; ++hi) {
      const int64_t gi = hi / (h / g);
      for (int64_t e = 0; e < p * n; ++e)
        state[e] = in.init.empty() ? 0.0 : in.init[(bi * h + hi) * p * n + e];
      int32_t previous = 0; // the sequence of the token before token 0
      for (int64_t t = 0; t < L; ++t) {
        double dt = in.dt[(bi * L + t) * h + hi];
        if (!in.dtBias.empty())
          dt += in.dtBias[hi];
        if (in.softplus)
          dt = dt > 20.0 ? dt : std::log1p(std::exp(dt));
        dt = std::min(std::max(dt, in.dtMin), in.dtMax);
        double decay = std::exp(dt * in.A[hi]);
        if (!in.seqIdx.empty()) {
          int32_t seq = in.seqIdx[bi * L + t];
          if (seq != previous)
            decay = 0.0; // a new sequence starts from a zero state
          previous = seq;
        }
        const double *x = &in.x[((bi * L + t) * h + hi) * p];
        const double *Bt = &in.B[((bi * L + t) * g + gi) * n];
        const double *Ct = &in.C[((bi * L + t) * g + gi) * n];
        double *y = &out.y[((bi * L + t) * h + hi) * p];
        for (int64_t i = 0; i < p; ++i) {
          double acc = 0;
          for (int64_t j = 0; j < n; ++j) {
            double &s = state[i * n + j];
            s = decay * s + dt * x[i] * Bt[j];
            acc += Ct[j] * s;
          }
          if (in.D.size() == static_cast<size_t>(h))
            acc += in.D[hi] * x[i];
          else if (!in.D.empty())
            acc += in.D[hi * p + i] * x[i];
          if (!in.z.empty()) {
            double z = in.z[((bi * L + t) * h + hi) * p + i];
            acc *= z / (1.0 + std::exp(-z));
          }
          y[i] = acc;
        }
      }
      for (int64_t e = 0; e < p * n; ++e)
        out.finalStates[(bi * h + hi) * p * n + e] = state[e];
    }
  return out;
}

} // namespace tessel::mamba2::reference
