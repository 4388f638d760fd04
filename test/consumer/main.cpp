// Runs chunk_cumsum through its generated launcher and checks a few values
// against a direct computation. Without a GPU it says so and exits 0 (CI
// builds and links this program; the GPU machine runs it).
#include "mamba2_kernels.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

int main() {
  tessel::rt::Context context;
  if (tessel::rt::Status s = tessel::rt::init(0, &context); !s.ok()) {
    std::printf("no usable GPU (%s): nothing to run\n", s.message().c_str());
    return 0;
  }
  const int64_t b = 1, L = 300, h = 8, Lp = 300; // Lp: 16-byte rows
  std::vector<uint16_t> dt(b * L * h);
  std::vector<float> A(h), bias(h);
  for (int64_t i = 0; i < b * L * h; ++i) {
    float v = -4.0f + 0.001f * static_cast<float>(i % 997);
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    dt[i] = static_cast<uint16_t>(bits >> 16); // bf16 by truncation
  }
  for (int64_t i = 0; i < h; ++i) {
    A[i] = -1.0f - static_cast<float>(i);
    bias[i] = 0.1f * static_cast<float>(i);
  }
  tessel::rt::DeviceBuffer dDt, dA, dBias, dOut, dAcs;
  tessel::rt::Status s = tessel::rt::DeviceBuffer::allocate(dt.size() * 2, &dDt);
  if (s.ok()) s = tessel::rt::DeviceBuffer::allocate(h * 4, &dA);
  if (s.ok()) s = tessel::rt::DeviceBuffer::allocate(h * 4, &dBias);
  if (s.ok()) s = tessel::rt::DeviceBuffer::allocate(b * h * Lp * 4, &dOut);
  if (s.ok()) s = tessel::rt::DeviceBuffer::allocate(b * h * Lp * 4, &dAcs);
  if (s.ok()) s = dDt.copyFromHost(dt.data(), dt.size() * 2);
  if (s.ok()) s = dA.copyFromHost(A.data(), h * 4);
  if (s.ok()) s = dBias.copyFromHost(bias.data(), h * 4);
  if (s.ok())
    s = mamba2::chunk_cumsum({dDt.ptr(), {b, L, h}, {L * h, h, 1}},
                             {dA.ptr(), {h}, {1}}, {dBias.ptr(), {h}, {1}},
                             {dOut.ptr(), {b, h, L}, {h * Lp, Lp, 1}},
                             {dAcs.ptr(), {b, h, L}, {h * Lp, Lp, 1}}, 0.0f,
                             INFINITY, nullptr);
  std::vector<float> out(b * h * Lp);
  if (s.ok()) s = context.synchronize();
  if (s.ok()) s = dOut.copyToHost(out.data(), out.size() * 4);
  if (!s.ok()) {
    std::printf("error: %s\n", s.message().c_str());
    return 1;
  }
  double worst = 0;
  for (int64_t head = 0; head < h; ++head)
    for (int64_t t = 0; t < L; ++t) {
      uint32_t bits = static_cast<uint32_t>(dt[t * h + head]) << 16;
      float raw;
      std::memcpy(&raw, &bits, 4);
      double x = double(raw) + bias[head];
      double want = x > 20 ? x : std::log1p(std::exp(x));
      worst = std::max(worst, std::fabs(out[head * Lp + t] - want) / want);
    }
  std::printf("chunk_cumsum through the generated launcher: max rel error of "
              "dt %.2e\n", worst);
  return worst < 1e-5 ? 0 : 1;
}
