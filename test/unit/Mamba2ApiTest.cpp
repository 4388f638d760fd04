//===- Mamba2ApiTest.cpp - argument checks of libtessel_mamba2 on the CPU -===//
//
// tessel_mamba2_forward validates every argument before it launches
// anything (kernels/mamba2/Validate.cpp, which needs no GPU). Here: a valid
// call is accepted, and each kind of bad argument is rejected with a message
// naming it. The GPU side (nothing written to a poisoned output on bad
// input, through the Python wrapper) is test/gpu/test_mamba2.py.
//
//===----------------------------------------------------------------------===//

#include "kernels/mamba2/Validate.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>

using namespace tessel::mamba2::detail;

namespace {

/// A contiguous tensor at a fake (never dereferenced), aligned address.
tessel_mamba2_tensor tensor(uintptr_t address, int32_t dtype,
                            std::vector<int64_t> sizes) {
  tessel_mamba2_tensor t{};
  t.data = reinterpret_cast<void *>(address);
  t.dtype = dtype;
  t.rank = static_cast<int32_t>(sizes.size());
  int64_t stride = 1;
  for (int i = t.rank - 1; i >= 0; --i) {
    t.sizes[i] = sizes[i];
    t.strides[i] = stride;
    stride *= sizes[i];
  }
  return t;
}

constexpr int64_t b = 2, L = 1000, h = 8, p = 64, n = 128, g = 2;
// The fake tensors lie 16 MB apart (each under 2 MB), the workspace at 4 GB.
constexpr uintptr_t kWorkspace = uintptr_t(1) << 32;

tessel_mamba2_forward_args valid() {
  tessel_mamba2_forward_args a;
  tessel_mamba2_args_init(&a);
  const int32_t X = TESSEL_MAMBA2_BF16, F = TESSEL_MAMBA2_F32;
  a.x = tensor(0x1000000, X, {b, L, h, p});
  a.dt = tensor(0x2000000, X, {b, L, h});
  a.A = tensor(0x3000000, F, {h});
  a.B = tensor(0x4000000, X, {b, L, g, n});
  a.C = tensor(0x5000000, X, {b, L, g, n});
  a.D = tensor(0x6000000, F, {h});
  a.z = tensor(0x7000000, X, {b, L, h, p});
  a.dt_bias = tensor(0x8000000, F, {h});
  a.initial_states = tensor(0x9000000, F, {b, h, p, n});
  a.seq_idx = tensor(0xa000000, TESSEL_MAMBA2_I32, {b, L});
  a.y = tensor(0xb000000, X, {b, L, h, p});
  a.final_states = tensor(0xc000000, F, {b, h, p, n});
  a.chunk_size = 256;
  return a;
}

std::string check(const tessel_mamba2_forward_args &a) {
  Dims d;
  tessel::rt::Status s = validate(&a, &d);
  if (s.ok())
    s = checkWorkspace(&a, d, /*perChunkStates=*/false);
  if (s.ok())
    s = checkAliasing(&a, layout(d, /*perChunkStates=*/false).bytes);
  return s.ok() ? "" : s.message();
}

TEST(Mamba2Api, AcceptsAValidCallAndSizesTheWorkspace) {
  tessel_mamba2_forward_args a = valid();
  Dims d;
  ASSERT_TRUE(validate(&a, &d).ok()) << validate(&a, &d).message();
  EXPECT_EQ(d.nc, 4);
  Workspace w = layout(d, /*perChunkStates=*/false);
  // dt and Acs rows of 1000 floats, 16 rows each; then 2*4*8*64*128
  // 16-bit states; for the split path each chunk's 8*64*128 followed by as
  // many 16-bit per-chunk states, then the segmented scan's factors, 2*8
  // rows of 4 floats, and the chained scan's states entering its one
  // segment (2*8*64*128 floats) and counters (2*8 heads x 2 blocks of p x 2
  // of n, and the tickets'), each 256-aligned.
  EXPECT_EQ(w.acsOffset, 64000u);
  EXPECT_EQ(w.statesOffset, 128000u);
  EXPECT_EQ(w.bytes, 128000u + 2u * 4 * 8 * 64 * 128 * 2);
  Workspace split = layout(d, true);
  EXPECT_EQ(split.localOffset, 128000u + 8u * 64 * 128 * 2);
  EXPECT_EQ(split.decayOffset, 128000u + 2u * 4 * 8 * 64 * 128 * (2 + 2));
  EXPECT_EQ(split.carryOffset, split.decayOffset + 2u * 8 * 4 * 4);
  EXPECT_EQ(split.countersOffset, split.carryOffset + 2u * 8 * 64 * 128 * 4);
  EXPECT_EQ(split.bytes, split.countersOffset + 512u);
  a.workspace = reinterpret_cast<void *>(kWorkspace);
  a.workspace_bytes = w.bytes;
  EXPECT_EQ(check(a), "");
  // The split path needs room for the per-chunk states too; a workspace
  // with room for the walk in order only runs that way, one too small for
  // both keeps the split (and its size in the error).
  EXPECT_FALSE(checkWorkspace(&a, d, /*perChunkStates=*/true).ok());
  EXPECT_EQ(fitWorkspace(d, StatePath::split, w.bytes), StatePath::serial);
  EXPECT_EQ(fitWorkspace(d, StatePath::split, layout(d, true).bytes),
            StatePath::split);
  EXPECT_EQ(fitWorkspace(d, StatePath::split, w.bytes - 1), StatePath::split);
  EXPECT_EQ(fitWorkspace(d, StatePath::serial, w.bytes), StatePath::serial);
  // chunk_cb's C·Bᵀ blocks (b nc g Q Q 16-bit: 2 4 2 256 256 here) go last,
  // after the per-chunk states when there are any.
  Workspace s = layout(d, true, true);
  EXPECT_EQ(s.cbOffset, layout(d, true).bytes);
  EXPECT_EQ(s.bytes, s.cbOffset + 2u * 4 * 2 * 256 * 256 * 2);
  EXPECT_EQ(layout(d, false, true).cbOffset, w.bytes);
  EXPECT_FALSE(checkWorkspace(&a, d, false, /*storedCb=*/true).ok());
  // Without room for them compute_out forms C·Bᵀ itself; never stored when
  // the rule says no.
  EXPECT_TRUE(fitStoredCb(d, true, true, s.bytes));
  EXPECT_FALSE(fitStoredCb(d, true, true, s.bytes - 1));
  EXPECT_FALSE(fitStoredCb(d, true, false, s.bytes));
  EXPECT_TRUE(fitStoredCb(d, false, true, layout(d, false, true).bytes));
  // Optional inputs may be absent; D may be (h, p); a strided, 16-byte
  // aligned slice of x is fine.
  a.D = tensor(0x6000000, TESSEL_MAMBA2_F32, {h, p});
  a.z.data = a.dt_bias.data = a.initial_states.data = a.seq_idx.data =
      a.final_states.data = nullptr;
  a.x.strides[2] = 2 * p; // every other head of a wider tensor
  a.x.strides[1] = 2 * p * h;
  a.x.strides[0] = 2 * p * h * L;
  EXPECT_EQ(check(a), "");
}

TEST(Mamba2Api, ChoosesTheStatePathAsMeasured) {
  // Dims {b, L, h, p, n, g, Q, nc, Lp, np}.
  auto dims = [](int64_t b, int64_t L, int64_t h, int64_t n, int64_t Q) {
    return Dims{b, L, h, 64, n, 1, Q, (L + Q - 1) / Q, L, n};
  };
  // Q >= 128: chunk-parallel, however many fwd_pass_state CTAs there
  // would be (b h ceil(p / 64) ceil(n / 64) = 160, 160, 48, 320, 640 here).
  EXPECT_EQ(statePath(dims(1, 65536, 80, 128, 256), nullptr),
            StatePath::split);
  EXPECT_EQ(statePath(dims(1, 65536, 80, 128, 128), nullptr),
            StatePath::split);
  EXPECT_EQ(statePath(dims(1, 1024, 24, 128, 256), nullptr), StatePath::split);
  EXPECT_EQ(statePath(dims(1, 65536, 80, 256, 256), nullptr),
            StatePath::split);
  EXPECT_EQ(statePath(dims(4, 16384, 80, 128, 256), nullptr),
            StatePath::split);
  // Q = 64: the walk in order.
  EXPECT_EQ(statePath(dims(1, 65536, 80, 128, 64), nullptr),
            StatePath::serial);
  // Forced either way; anything else is the rule.
  EXPECT_EQ(statePath(dims(1, 65536, 80, 128, 256), "serial"),
            StatePath::serial);
  EXPECT_EQ(statePath(dims(1, 65536, 80, 128, 64), "split"),
            StatePath::split);
  EXPECT_EQ(statePath(dims(1, 65536, 80, 128, 256), "fast"),
            StatePath::split);
  // chunk_state's grid z (b x n / 64) over 65535: never split, even forced.
  EXPECT_EQ(statePath(dims(20000, 128, 1, 256, 128), "split"),
            StatePath::serial);
}

TEST(Mamba2Api, ScansInSegmentsWhereMeasuredFaster) {
  // Dims {b, L, h, p, n, g, Q, nc, Lp, np}.
  auto dims = [](int64_t b, int64_t L, int64_t h, int64_t n, int64_t Q) {
    return Dims{b, L, h, 64, n, 1, Q, (L + Q - 1) / Q, L, n};
  };
  // Peak memory bandwidths (GB/s) as the driver gives them: an H100 SXM
  // (2619 MHz, 5120 bits), an H200 (3201 MHz, 6144 bits), unknown.
  const double h100 = 3352.3, h200 = 4917.2, unknown = 0;
  // The H100's rule: 64 to 128 state columns, or 256 at Q = 128, and at
  // least 512 chunk_state programs of 8 chunks (b h ceil(nc / 8): 2560,
  // 5120, 640, 2048 and 768 here).
  EXPECT_EQ(scanSegment(dims(1, 65536, 80, 128, 256), nullptr, h100), 8);
  EXPECT_EQ(scanSegment(dims(1, 65536, 80, 128, 128), nullptr, h100), 8);
  EXPECT_EQ(scanSegment(dims(1, 65536, 80, 96, 256), nullptr, h100), 8);
  EXPECT_EQ(scanSegment(dims(1, 65536, 80, 64, 256), nullptr, h100), 8);
  EXPECT_EQ(scanSegment(dims(4, 16384, 80, 128, 256), nullptr, h100), 8);
  EXPECT_EQ(scanSegment(dims(1, 16384, 80, 128, 256), nullptr, h100), 8);
  EXPECT_EQ(scanSegment(dims(4, 65536, 8, 256, 128), nullptr, h100), 8);
  EXPECT_EQ(scanSegment(dims(1, 65536, 24, 128, 256), nullptr, h100), 8);
  EXPECT_EQ(scanSegment(dims(1, 65536, 80, 256, 256), nullptr, h100), 1);
  // The H200's (and an unknown GPU's): 64 columns, or up to 128 at
  // Q <= 128.
  for (double gbs : {h200, unknown}) {
    EXPECT_EQ(scanSegment(dims(1, 65536, 80, 64, 256), nullptr, gbs), 8);
    EXPECT_EQ(scanSegment(dims(1, 65536, 80, 128, 128), nullptr, gbs), 8);
    EXPECT_EQ(scanSegment(dims(1, 65536, 80, 96, 128), nullptr, gbs), 8);
    EXPECT_EQ(scanSegment(dims(1, 65536, 80, 128, 64), nullptr, gbs), 8);
    EXPECT_EQ(scanSegment(dims(1, 65536, 80, 128, 256), nullptr, gbs), 1);
    EXPECT_EQ(scanSegment(dims(1, 65536, 80, 96, 256), nullptr, gbs), 1);
    EXPECT_EQ(scanSegment(dims(4, 16384, 80, 128, 256), nullptr, gbs), 1);
    EXPECT_EQ(scanSegment(dims(1, 16384, 80, 128, 256), nullptr, gbs), 1);
    EXPECT_EQ(scanSegment(dims(4, 65536, 8, 256, 128), nullptr, gbs), 1);
    EXPECT_EQ(scanSegment(dims(1, 65536, 80, 256, 256), nullptr, gbs), 1);
  }
  // Either way: fewer than 64 columns, or too few programs (160, 480).
  for (double gbs : {h100, h200, unknown}) {
    EXPECT_EQ(scanSegment(dims(1, 65536, 80, 32, 256), nullptr, gbs), 1);
    EXPECT_EQ(scanSegment(dims(1, 4096, 80, 64, 256), nullptr, gbs), 1);
    EXPECT_EQ(scanSegment(dims(1, 12288, 80, 64, 256), nullptr, gbs), 1);
    EXPECT_EQ(scanSegment(dims(1, 16384, 24, 128, 128), nullptr, gbs), 1);
  }
  // Forced to a compiled value; anything else is the rule.
  EXPECT_EQ(scanSegment(dims(1, 4096, 80, 128, 256), "8", h200), 8);
  EXPECT_EQ(scanSegment(dims(1, 65536, 80, 128, 256), "1", h100), 1);
  EXPECT_EQ(scanSegment(dims(1, 65536, 80, 128, 256), "4", h100), 8);
  EXPECT_EQ(scanSegment(dims(1, 65536, 80, 128, 256), "4", h200), 1);
  EXPECT_EQ(scanSegment(dims(1, 4096, 80, 128, 256), "x", h100), 1);
  // The chained scan (chunk_state CHAIN) runs only where forced, until it
  // is measured.
  EXPECT_FALSE(chainScan(dims(1, 65536, 80, 128, 256), nullptr));
  EXPECT_FALSE(chainScan(dims(1, 65536, 80, 128, 256), "passing"));
  EXPECT_TRUE(chainScan(dims(1, 65536, 80, 128, 256), "chain"));
}

TEST(Mamba2Api, StoresCbWhereMeasuredFaster) {
  // Dims {b, L, h, p, n, g, Q, nc, Lp, np}.
  auto dims = [](int64_t b, int64_t L, int64_t h, int64_t n, int64_t g) {
    return Dims{b, L, h, 64, n, g, 256, (L + 255) / 256, L, n};
  };
  EXPECT_TRUE(storedCb(dims(1, 65536, 80, 128, 1), nullptr));
  EXPECT_TRUE(storedCb(dims(1, 65536, 80, 256, 1), nullptr));
  EXPECT_TRUE(storedCb(dims(1, 65536, 80, 128, 8), nullptr));
  EXPECT_TRUE(storedCb(dims(1, 4096, 80, 128, 1), nullptr));
  EXPECT_TRUE(storedCb(dims(4, 65536, 8, 256, 1), nullptr));
  EXPECT_TRUE(storedCb(dims(1, 65536, 80, 64, 1), nullptr));
  // A group per head, a small problem.
  EXPECT_FALSE(storedCb(dims(1, 65536, 8, 128, 8), nullptr));
  EXPECT_FALSE(storedCb(dims(1, 1024, 24, 128, 1), nullptr));
  // Forced either way; anything else is the rule.
  EXPECT_TRUE(storedCb(dims(1, 1024, 24, 128, 1), "stored"));
  EXPECT_FALSE(storedCb(dims(1, 65536, 80, 128, 1), "fused"));
  EXPECT_TRUE(storedCb(dims(1, 65536, 80, 128, 1), "fast"));
}

struct Bad {
  const char *what;
  std::function<void(tessel_mamba2_forward_args &)> mutate;
  const char *message; // a substring the message must contain
};

class Mamba2ApiBad : public ::testing::TestWithParam<Bad> {};

TEST_P(Mamba2ApiBad, IsRejectedWithAMessageNamingTheArgument) {
  const Bad &bad = GetParam();
  tessel_mamba2_forward_args a = valid();
  a.workspace = reinterpret_cast<void *>(kWorkspace);
  a.workspace_bytes = size_t(1) << 30;
  ASSERT_EQ(check(a), "");
  bad.mutate(a);
  std::string message = check(a);
  if (!*bad.message) { // accepted
    EXPECT_EQ(message, "") << bad.what;
    return;
  }
  EXPECT_NE(message.find(bad.message), std::string::npos)
      << bad.what << ": got \"" << message << "\"";
}

INSTANTIATE_TEST_SUITE_P(
    Mamba2, Mamba2ApiBad,
    ::testing::Values(
        Bad{"null x", [](auto &a) { a.x.data = nullptr; },
            "x: null data pointer"},
        Bad{"x fp32", [](auto &a) { a.x.dtype = TESSEL_MAMBA2_F32; },
            "x must be bfloat16 or float16, got float32"},
        Bad{"x rank 3", [](auto &a) { a.x.rank = 3; },
            "x must have 4 dimensions"},
        Bad{"B with another L", [](auto &a) { a.B.sizes[1] = L + 1; },
            "B has shape (2, 1001, 2, 128), expected (2, 1000, *, *)"},
        Bad{"C with another n", [](auto &a) { a.C.sizes[3] = 64; },
            "C has shape"},
        Bad{"B fp16 with bf16 x", [](auto &a) { a.B.dtype = TESSEL_MAMBA2_F16; },
            "B must be bfloat16, got float16"},
        Bad{"groups not dividing heads", [](auto &a) {
              a.B.sizes[2] = a.C.sizes[2] = 3;
            },
            "B: the number of groups (3) must divide the number of heads (8)"},
        Bad{"dt int32", [](auto &a) { a.dt.dtype = TESSEL_MAMBA2_I32; },
            "dt must be bfloat16 or float16 or float32, got int32"},
        Bad{"A bf16", [](auto &a) { a.A.dtype = TESSEL_MAMBA2_BF16; },
            "A must be float32"},
        Bad{"A of h+1", [](auto &a) { a.A.sizes[0] = h + 1; },
            "A has shape (9,), expected (8)"},
        Bad{"D of h+1", [](auto &a) { a.D.sizes[0] = h + 1; }, "D has shape"},
        Bad{"D (h, p+1)", [](auto &a) {
              a.D = tensor(0x6000000, TESSEL_MAMBA2_F32, {h, p + 1});
            },
            "D has shape (8, 65), expected (8, 64)"},
        Bad{"z with another p", [](auto &a) { a.z.sizes[3] = p / 2; },
            "z has shape"},
        Bad{"initial_states wrong shape",
            [](auto &a) { a.initial_states.sizes[2] = p + 1; },
            "initial_states has shape"},
        Bad{"seq_idx float", [](auto &a) { a.seq_idx.dtype = TESSEL_MAMBA2_F32; },
            "seq_idx must be int32, got float32"},
        Bad{"chunk_size 100", [](auto &a) { a.chunk_size = 100; },
            "chunk_size must be 64, 128 or 256, got 100"},
        Bad{"dt_limit lo > hi", [](auto &a) {
              a.dt_limit_lo = 0.5;
              a.dt_limit_hi = 0.1;
            },
            "dt_limit must be (lo, hi) with 0 <= lo <= hi"},
        Bad{"dt_limit NaN", [](auto &a) { a.dt_limit_hi = std::nan(""); },
            "dt_limit must be"},
        Bad{"x not contiguous in p", [](auto &a) { a.x.strides[3] = 2; },
            "x must be contiguous in its last dimension (stride 1), got "
            "stride 2"},
        Bad{"x misaligned", [](auto &a) { a.x.data = (char *)a.x.data + 2; },
            "x: data pointer must be 16-byte aligned"},
        Bad{"C row stride not 16-byte", [](auto &a) { a.C.strides[2] = 129; },
            "C: stride of dimension 2 (129 elements) must be a multiple of 16 "
            "bytes"},
        Bad{"y overlapping itself", [](auto &a) { a.y.strides[1] = 0; },
            "y (out): stride of dimension 1 (0) must be positive"},
        Bad{"y rows backwards", [](auto &a) { a.y.strides[1] = -h * p; },
            "y (out): stride of dimension 1 (-512) must be positive"},
        Bad{"final_states backwards",
            [](auto &a) { a.final_states.strides[0] = -h * p * n; },
            "final_states (out): stride of dimension 0 (-65536) must be "
            "positive"},
        Bad{"C broadcast over the batch", [](auto &a) { a.C.strides[0] = 0; },
            "C: stride of dimension 0 (0) must be positive (the kernels copy "
            "it by the TMA)"},
        Bad{"x with L = 0", [](auto &a) { a.x.sizes[1] = 0; },
            "x has shape (2, 0, 8, 64): every size must be at least 1"},
        Bad{"empty D (PyTorch's null pointer)", [](auto &a) {
              a.D.sizes[0] = 0;
              a.D.data = nullptr;
            },
            ""}, // absent: accepted (the wrapper refuses it)
        Bad{"one group, any stride there", [](auto &a) {
              for (auto *t : {&a.B, &a.C}) {
                *t = tensor(reinterpret_cast<uintptr_t>(t->data),
                            TESSEL_MAMBA2_BF16, {b, L, 1, n});
                t->strides[2] = (int64_t(1) << 62) + 3;
              }
            },
            ""}, // a dimension of size 1 moves no address: accepted
        Bad{"z reaching past 2^48 bytes",
            [](auto &a) { a.z.strides[0] = (int64_t(1) << 62) + 8; },
            "z: its strides reach beyond any allocation"},
        Bad{"dt reaching below address 0",
            [](auto &a) { a.dt.strides[1] = -int64_t(1) << 40; },
            "dt: its strides reach beyond any allocation"},
        Bad{"p not a multiple of 8", [](auto &a) {
              for (auto *t : {&a.x, &a.z, &a.y})
                *t = tensor(reinterpret_cast<uintptr_t>(t->data),
                            TESSEL_MAMBA2_BF16, {b, L, h, 36});
              a.D.data = a.initial_states.data = a.final_states.data =
                  nullptr;
            },
            "x: the head dimension p = 36 must be a multiple of 8"},
        Bad{"n not a multiple of 8", [](auto &a) {
              a.B = tensor(reinterpret_cast<uintptr_t>(a.B.data),
                           TESSEL_MAMBA2_BF16, {b, L, g, 36});
              a.C = tensor(reinterpret_cast<uintptr_t>(a.C.data),
                           TESSEL_MAMBA2_BF16, {b, L, g, 36});
              a.initial_states.data = a.final_states.data = nullptr;
            },
            "B: the state dimension n = 36 must be a multiple of 8"},
        Bad{"over 65535 chunks", [](auto &a) {
              const int64_t longL = 65535 * 64 + 1;
              for (auto *t : {&a.x, &a.z, &a.y})
                *t = tensor(reinterpret_cast<uintptr_t>(t->data),
                            TESSEL_MAMBA2_BF16, {1, longL, h, p});
              for (auto *t : {&a.B, &a.C})
                *t = tensor(reinterpret_cast<uintptr_t>(t->data),
                            TESSEL_MAMBA2_BF16, {1, longL, g, n});
              a.dt = tensor(reinterpret_cast<uintptr_t>(a.dt.data),
                            TESSEL_MAMBA2_BF16, {1, longL, h});
              a.seq_idx.data = a.initial_states.data = a.final_states.data =
                  nullptr;
              a.chunk_size = 64;
            },
            "x: L = 4194241 makes 65536 chunks of chunk_size 64, over the "
            "supported 65535"},
        Bad{"dt_limit (0, 0), a zeroed struct's", [](auto &a) {
              a.dt_limit_lo = a.dt_limit_hi = 0;
            },
            "dt_limit must be (lo, hi) with 0 <= lo <= hi, hi > 0"},
        Bad{"dt_limit lo negative", [](auto &a) { a.dt_limit_lo = -1; },
            "dt_limit must be"},
        Bad{"dt_limit lo infinite", [](auto &a) {
              a.dt_limit_lo = std::numeric_limits<double>::infinity();
            },
            "dt_limit must be"},
        Bad{"dt_limit hi past float", [](auto &a) { a.dt_limit_hi = 1e39; },
            "dt_limit must be"},
        Bad{"y is x", [](auto &a) { a.y.data = a.x.data; },
            "y (out) shares memory with x: the kernels read the inputs while "
            "they write the outputs"},
        Bad{"y inside z", [](auto &a) {
              a.y.data = static_cast<char *>(a.z.data) + 4096;
            },
            "y (out) shares memory with z"},
        Bad{"final_states is initial_states",
            [](auto &a) { a.final_states.data = a.initial_states.data; },
            "shares memory with"},
        Bad{"final_states over C's tail", [](auto &a) {
              a.final_states.data = static_cast<char *>(a.C.data) +
                                    (b * L * g * n - 16) * 2;
            },
            "final_states (out) shares memory with C"},
        Bad{"workspace is y", [](auto &a) { a.workspace = a.y.data; },
            "workspace shares memory with y (out)"},
        Bad{"workspace over A",
            [](auto &a) { a.workspace = static_cast<char *>(a.A.data) - 256; },
            "workspace shares memory with A"},
        Bad{"y heads overlapping", [](auto &a) { a.y.strides[2] = 8; },
            "y (out): stride of dimension 2 (8) makes the output overlap "
            "itself"},
        Bad{"final_states rows overlapping",
            [](auto &a) { a.final_states.strides[2] = 64; },
            "final_states (out): stride of dimension 2 (64) makes the output "
            "overlap itself"},
        Bad{"D of rank 3", [](auto &a) {
              a.D = tensor(0x6000000, TESSEL_MAMBA2_F32, {h, p, 1});
            },
            "D must have shape (h) or (h, p), got 3 dimensions"},
        Bad{"p over 256", [](auto &a) {
              for (auto *t : {&a.x, &a.z, &a.y})
                *t = tensor(reinterpret_cast<uintptr_t>(t->data),
                            TESSEL_MAMBA2_BF16, {b, L, h, 512});
              a.D.data = a.initial_states.data = a.final_states.data =
                  nullptr;
            },
            "x: the head dimension p = 512 is over the supported 256"},
        Bad{"final_states f16", [](auto &a) {
              a.final_states.dtype = TESSEL_MAMBA2_F16;
            },
            "final_states (out) must be float32"},
        Bad{"n over 256", [](auto &a) {
              a.B.sizes[3] = a.C.sizes[3] = 512;
              a.initial_states.data = a.final_states.data = nullptr;
            },
            "B: the state dimension n = 512 is over the supported 256"},
        Bad{"b x h over the grid", [](auto &a) {
              for (auto *t : {&a.x, &a.dt, &a.B, &a.C, &a.z, &a.y, &a.seq_idx})
                t->sizes[0] = 10000;
              a.initial_states.data = a.final_states.data = nullptr;
            },
            "x: batch x heads = 80000 is over the supported 65535"},
        Bad{"null workspace", [](auto &a) { a.workspace = nullptr; },
            "workspace: null pointer"},
        Bad{"small workspace", [](auto &a) { a.workspace_bytes = 1000; },
            "workspace: 1000 bytes given"},
        Bad{"misaligned workspace",
            [](auto &a) { a.workspace = (char *)a.workspace + 16; },
            "workspace: must be 256-byte aligned"},
        Bad{"null dt_bias data is absent, bad rank", [](auto &a) {
              a.dt_bias.rank = 2;
              a.dt_bias.sizes[1] = 1;
            },
            "dt_bias must have 1 dimensions"}),
    [](const ::testing::TestParamInfo<Bad> &info) {
      std::string name;
      for (const char *c = info.param.what; *c; ++c)
        name += std::isalnum(static_cast<unsigned char>(*c)) ? *c : '_';
      return name;
    });

TEST(Mamba2Api, NullArgs) {
  Dims d;
  EXPECT_EQ(validate(nullptr, &d).message(), "args: null pointer");
}

} // namespace
