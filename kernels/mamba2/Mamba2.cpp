//===- Mamba2.cpp - libtessel_mamba2: the forward pass on device pointers -===//
//
// Validates a tessel_mamba2_forward_args completely (every message names the
// argument, in the terms of mamba_ssm's mamba_chunk_scan_combined), lays out
// the workspace, and launches the three AOT-compiled kernels through the
// launchers tesselc generated (tessel_mamba2_aot.h), choosing the variant
// (chunk length, dtypes, dt_bias/softplus) from the arguments. Nothing is
// launched unless every argument is valid.
//
//===----------------------------------------------------------------------===//

#include "kernels/mamba2/Mamba2.h"

#include "dsl/Tessel.h" // DType values of the variants (header-only use)
#include "tessel_mamba2_aot.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace tessel::mamba2 {

using rt::Status;

namespace {

thread_local std::string lastError;
thread_local bool timingOn = false;
struct Timing {
  rt::Event events[4];
  bool recorded = false;
};
thread_local Timing timing;

const char *dtypeText(int32_t d) {
  switch (d) {
  case TESSEL_MAMBA2_BF16:
    return "bfloat16";
  case TESSEL_MAMBA2_F16:
    return "float16";
  case TESSEL_MAMBA2_F32:
    return "float32";
  case TESSEL_MAMBA2_I32:
    return "int32";
  default:
    return "an unsupported dtype";
  }
}

int elementBytes(int32_t d) { return d == TESSEL_MAMBA2_BF16 || d == TESSEL_MAMBA2_F16 ? 2 : 4; }

std::string shapeText(const tessel_mamba2_tensor &t) {
  std::string s = "(";
  for (int i = 0; i < t.rank && i < TESSEL_MAMBA2_MAX_RANK; ++i)
    s += (i ? ", " : "") + std::to_string(t.sizes[i]);
  return s + (t.rank == 1 ? ",)" : ")");
}

/// The sizes of the problem, from x and B.
struct Dims {
  int64_t b, L, h, p, n, g, Q, nc, Lp, np;
};

/// Collects the first error; each check names its argument.
class Checker {
public:
  bool ok() const { return error.empty(); }
  const std::string &message() const { return error; }
  bool fail(const std::string &message) {
    if (error.empty())
      error = message;
    return false;
  }

  /// A tensor of `rank` with one of `dtypes` (TESSEL_MAMBA2_NONE ends the
  /// list), with the expected sizes (-1: any positive size).
  bool tensor(const char *name, const tessel_mamba2_tensor &t,
              std::initializer_list<int32_t> dtypes,
              std::initializer_list<int64_t> sizes) {
    if (!ok())
      return false;
    if (!t.data)
      return fail(std::string(name) + ": null data pointer");
    bool dtypeOk = false;
    std::string allowed;
    for (int32_t d : dtypes) {
      dtypeOk |= d == t.dtype;
      allowed += (allowed.empty() ? "" : " or ") + std::string(dtypeText(d));
    }
    if (!dtypeOk)
      return fail(std::string(name) + " must be " + allowed + ", got " +
                  dtypeText(t.dtype));
    if (t.rank != static_cast<int32_t>(sizes.size()))
      return fail(std::string(name) + " must have " +
                  std::to_string(sizes.size()) + " dimensions, got " +
                  std::to_string(t.rank));
    int i = 0;
    for (int64_t want : sizes) {
      if (t.sizes[i] < 1 || (want >= 0 && t.sizes[i] != want)) {
        std::string expected;
        int j = 0;
        for (int64_t w : sizes)
          expected += (j++ ? ", " : "") +
                      (w >= 0 ? std::to_string(w) : std::string("*"));
        return fail(std::string(name) + " has shape " + shapeText(t) +
                    ", expected (" + expected + ")");
      }
      if (t.sizes[i] > std::numeric_limits<int32_t>::max() / 2)
        return fail(std::string(name) + ": size " +
                    std::to_string(t.sizes[i]) + " of dimension " +
                    std::to_string(i) + " is over the supported limit");
      ++i;
    }
    return true;
  }

  /// What the dense kernel views assume: unit stride in the last dimension,
  /// 16-byte aligned data and other strides.
  bool dense(const char *name, const tessel_mamba2_tensor &t) {
    if (!ok())
      return false;
    int64_t bytes = elementBytes(t.dtype);
    if (t.strides[t.rank - 1] != 1 && t.sizes[t.rank - 1] != 1)
      return fail(std::string(name) +
                  " must be contiguous in its last dimension (stride 1), got "
                  "stride " +
                  std::to_string(t.strides[t.rank - 1]));
    if (reinterpret_cast<uintptr_t>(t.data) % 16)
      return fail(std::string(name) +
                  ": data pointer must be 16-byte aligned");
    for (int d = 0; d + 1 < t.rank; ++d)
      if ((t.strides[d] * bytes) % 16 && t.sizes[d] > 1)
        return fail(std::string(name) + ": stride of dimension " +
                    std::to_string(d) + " (" + std::to_string(t.strides[d]) +
                    " elements) must be a multiple of 16 bytes");
    return true;
  }

  /// Outputs: no two elements at one address (positive strides).
  bool writable(const char *name, const tessel_mamba2_tensor &t) {
    if (!ok())
      return false;
    for (int d = 0; d < t.rank; ++d)
      if (t.strides[d] < 1 && t.sizes[d] > 1)
        return fail(std::string(name) + ": stride of dimension " +
                    std::to_string(d) +
                    " must be positive (an output cannot overlap itself)");
    return true;
  }

  bool aligned(const char *name, const tessel_mamba2_tensor &t) {
    if (!ok())
      return false;
    if (reinterpret_cast<uintptr_t>(t.data) % elementBytes(t.dtype))
      return fail(std::string(name) + ": data pointer is not aligned to its "
                                      "element size");
    return true;
  }

private:
  std::string error;
};

constexpr int64_t kMaxGridYZ = 65535;

int64_t roundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

/// Validates everything but the workspace.
Status validate(const tessel_mamba2_forward_args *a, Dims *dims) {
  if (!a)
    return Status::error("args: null pointer");
  Checker c;
  if (!a->x.data)
    return Status::error("x: null data pointer");
  if (a->x.dtype != TESSEL_MAMBA2_BF16 && a->x.dtype != TESSEL_MAMBA2_F16)
    return Status::error(std::string("x must be bfloat16 or float16, got ") +
                         dtypeText(a->x.dtype));
  if (a->x.rank != 4)
    return Status::error("x must have 4 dimensions (b, L, h, p), got " +
                         std::to_string(a->x.rank));
  const int32_t xd = a->x.dtype;
  c.tensor("x", a->x, {xd}, {-1, -1, -1, -1});
  const int64_t b = a->x.sizes[0], L = a->x.sizes[1], h = a->x.sizes[2],
                p = a->x.sizes[3];
  c.dense("x", a->x);
  if (c.ok() && a->B.data && a->B.rank == 4 && a->B.sizes[2] >= 1 &&
      h % a->B.sizes[2])
    c.fail("B: the number of groups (" + std::to_string(a->B.sizes[2]) +
           ") must divide the number of heads (" + std::to_string(h) + ")");
  c.tensor("B", a->B, {xd}, {b, L, -1, -1});
  const int64_t g = c.ok() ? a->B.sizes[2] : 1, n = c.ok() ? a->B.sizes[3] : 1;
  c.dense("B", a->B);
  c.tensor("C", a->C, {xd}, {b, L, g, n});
  c.dense("C", a->C);
  c.tensor("dt", a->dt,
           {TESSEL_MAMBA2_BF16, TESSEL_MAMBA2_F16, TESSEL_MAMBA2_F32},
           {b, L, h});
  c.aligned("dt", a->dt);
  c.tensor("A", a->A, {TESSEL_MAMBA2_F32}, {h});
  c.aligned("A", a->A);
  if (a->D.data) {
    if (a->D.rank == 1)
      c.tensor("D", a->D, {TESSEL_MAMBA2_F32}, {h});
    else
      c.tensor("D", a->D, {TESSEL_MAMBA2_F32}, {h, p});
    c.aligned("D", a->D);
  }
  if (a->z.data) {
    c.tensor("z", a->z, {xd}, {b, L, h, p});
    c.dense("z", a->z);
  }
  if (a->dt_bias.data) {
    c.tensor("dt_bias", a->dt_bias, {TESSEL_MAMBA2_F32}, {h});
    c.aligned("dt_bias", a->dt_bias);
  }
  if (a->initial_states.data) {
    c.tensor("initial_states", a->initial_states, {TESSEL_MAMBA2_F32},
             {b, h, p, n});
    c.aligned("initial_states", a->initial_states);
  }
  if (a->seq_idx.data) {
    c.tensor("seq_idx", a->seq_idx, {TESSEL_MAMBA2_I32}, {b, L});
    c.aligned("seq_idx", a->seq_idx);
  }
  c.tensor("y (out)", a->y, {xd}, {b, L, h, p});
  c.dense("y (out)", a->y);
  c.writable("y (out)", a->y);
  if (a->final_states.data) {
    c.tensor("final_states (out)", a->final_states, {TESSEL_MAMBA2_F32},
             {b, h, p, n});
    c.aligned("final_states (out)", a->final_states);
    c.writable("final_states (out)", a->final_states);
  }
  if (!c.ok())
    return Status::error(c.message());
  const int64_t Q = a->chunk_size;
  if (Q != 64 && Q != 128 && Q != 256)
    return Status::error("chunk_size must be 64, 128 or 256, got " +
                         std::to_string(Q));
  if (std::isnan(a->dt_limit_lo) || std::isnan(a->dt_limit_hi) ||
      a->dt_limit_lo > a->dt_limit_hi)
    return Status::error("dt_limit must be (lo, hi) with lo <= hi, got (" +
                         std::to_string(a->dt_limit_lo) + ", " +
                         std::to_string(a->dt_limit_hi) + ")");
  if (n > 256)
    return Status::error("B: the state dimension n = " + std::to_string(n) +
                         " is over the supported 256");
  if (b * h > kMaxGridYZ)
    return Status::error("x: batch x heads = " + std::to_string(b * h) +
                         " is over the supported " +
                         std::to_string(kMaxGridYZ));
  if (L > std::numeric_limits<int32_t>::max() - 2 * Q)
    return Status::error("x: the sequence length is over the supported limit");
  const int64_t nc = (L + Q - 1) / Q;
  *dims = {b, L, h, p, n, g, Q, nc, roundUp(L, 4), roundUp(n, 4)};
  return Status();
}

/// Workspace: dt and dA_cumsum (b, h, L) with rows padded to 4 floats, then
/// the chunk states (b, nc, h, p, n) with n padded to 4; each 256-aligned.
struct Workspace {
  size_t dtOffset, acsOffset, statesOffset, bytes;
};
Workspace layout(const Dims &d) {
  Workspace w;
  size_t rows = static_cast<size_t>(d.b * d.h * d.Lp) * 4;
  w.dtOffset = 0;
  w.acsOffset = roundUp(rows, 256);
  w.statesOffset = w.acsOffset + roundUp(rows, 256);
  w.bytes = w.statesOffset +
            roundUp(static_cast<size_t>(d.b * d.nc * d.h * d.p * d.np) * 4, 256);
  return w;
}

rt::View view(const tessel_mamba2_tensor &t) {
  rt::View v;
  v.ptr = reinterpret_cast<rt::DevicePtr>(t.data);
  v.sizes.assign(t.sizes, t.sizes + t.rank);
  v.strides.assign(t.strides, t.strides + t.rank);
  return v;
}
/// An absent optional tensor: no data, zero sizes (never read).
rt::View absent(int rank) {
  rt::View v;
  v.sizes.assign(rank, 0);
  v.strides.assign(rank, 0);
  v.strides.back() = 1;
  return v;
}

int64_t dtypeVariant(int32_t d) {
  switch (d) {
  case TESSEL_MAMBA2_F16:
    return static_cast<int64_t>(DType::f16);
  case TESSEL_MAMBA2_F32:
    return static_cast<int64_t>(DType::f32);
  default:
    return static_cast<int64_t>(DType::bf16);
  }
}

} // namespace

namespace {
Status setCode(Status s, tessel_mamba2_status value,
               tessel_mamba2_status *code) {
  if (code)
    *code = s.ok() ? TESSEL_MAMBA2_OK : value;
  return s;
}

/// A failure of a launch: a variant or device this build lacks, else the
/// driver.
tessel_mamba2_status launchFailure(const Status &s) {
  const std::string &m = s.message();
  if (m.find("no compiled configuration") != std::string::npos ||
      m.find("no image") != std::string::npos ||
      m.find("one device per process") != std::string::npos)
    return TESSEL_MAMBA2_UNSUPPORTED;
  return TESSEL_MAMBA2_CUDA_ERROR;
}

Status enqueue(const tessel_mamba2_forward_args *a, const Dims &d);
} // namespace

Status workspaceSize(const tessel_mamba2_forward_args *args, size_t *bytes,
                     tessel_mamba2_status *code) {
  Dims d;
  if (Status s = validate(args, &d); !s.ok())
    return setCode(std::move(s), TESSEL_MAMBA2_INVALID_ARGUMENT, code);
  if (!bytes)
    return setCode(Status::error("bytes: null pointer"),
                   TESSEL_MAMBA2_INVALID_ARGUMENT, code);
  *bytes = layout(d).bytes;
  return setCode(Status(), TESSEL_MAMBA2_OK, code);
}

Status forward(const tessel_mamba2_forward_args *a,
               tessel_mamba2_status *code) {
  Dims d;
  if (Status s = validate(a, &d); !s.ok())
    return setCode(std::move(s), TESSEL_MAMBA2_INVALID_ARGUMENT, code);
  Workspace w = layout(d);
  Status s;
  if (!a->workspace)
    s = Status::error("workspace: null pointer (ask "
                      "tessel_mamba2_workspace_size for its size)");
  else if (a->workspace_bytes < w.bytes)
    s = Status::error("workspace: " + std::to_string(a->workspace_bytes) +
                      " bytes given, " + std::to_string(w.bytes) + " needed");
  else if (reinterpret_cast<uintptr_t>(a->workspace) % 256)
    s = Status::error("workspace: must be 256-byte aligned");
  if (!s.ok())
    return setCode(std::move(s), TESSEL_MAMBA2_INVALID_ARGUMENT, code);
  s = enqueue(a, d);
  return setCode(std::move(s), s.ok() ? TESSEL_MAMBA2_OK : launchFailure(s),
                 code);
}

namespace {
Status enqueue(const tessel_mamba2_forward_args *a, const Dims &d) {
  Workspace w = layout(d);
  auto base = reinterpret_cast<rt::DevicePtr>(a->workspace);
  rt::View dtOut{base + w.dtOffset,
                 {d.b, d.h, d.L},
                 {d.h * d.Lp, d.Lp, 1}};
  rt::View acs{base + w.acsOffset, {d.b, d.h, d.L}, {d.h * d.Lp, d.Lp, 1}};
  rt::View states{base + w.statesOffset,
                  {d.b, d.nc, d.h, d.p, d.n},
                  {d.nc * d.h * d.p * d.np, d.h * d.p * d.np, d.p * d.np,
                   d.np, 1}};
  rt::View seq = a->seq_idx.data ? view(a->seq_idx) : absent(2);
  rt::View init = a->initial_states.data ? view(a->initial_states) : absent(4);
  rt::View fin = a->final_states.data ? view(a->final_states) : absent(4);
  rt::View D = absent(2);
  if (a->D.data) {
    D = view(a->D);
    if (a->D.rank == 1) { // (h) -> (h, p) with stride 0 along p
      D.sizes = {d.h, d.p};
      D.strides = {a->D.strides[0], 0};
    }
  }
  rt::View z = a->z.data ? view(a->z) : absent(4);
  CUstream stream = static_cast<CUstream>(a->stream);

  aot::chunk_cumsum_variant cv;
  cv.Q = d.Q;
  cv.DT_DTYPE = dtypeVariant(a->dt.dtype);
  cv.HAS_DT_BIAS = a->dt_bias.data != nullptr;
  cv.DT_SOFTPLUS = a->dt_softplus != 0;
  aot::fwd_pass_state_variant sv;
  sv.Q = d.Q;
  sv.X_DTYPE = dtypeVariant(a->x.dtype);
  aot::compute_out_variant ov;
  ov.Q = d.Q;
  ov.X_DTYPE = sv.X_DTYPE;

  const bool timed = timingOn;
  if (timed) {
    timing.recorded = false;
    for (rt::Event &e : timing.events)
      if (!e.get())
        TESSEL_RT_TRY(rt::Event::create(&e));
    TESSEL_RT_TRY(timing.events[0].record(stream));
  }
  // dt_bias is read only by the HAS_DT_BIAS variant.
  rt::View bias = a->dt_bias.data ? view(a->dt_bias) : absent(1);
  TESSEL_RT_TRY(aot::chunk_cumsum(
      cv, view(a->dt), view(a->A), bias, dtOut, acs,
      static_cast<float>(a->dt_limit_lo), static_cast<float>(a->dt_limit_hi),
      stream));
  if (timed)
    TESSEL_RT_TRY(timing.events[1].record(stream));
  TESSEL_RT_TRY(aot::fwd_pass_state(
      sv, view(a->x), view(a->B), dtOut, acs, seq, init, states, fin,
      a->seq_idx.data != nullptr, a->initial_states.data != nullptr,
      a->final_states.data != nullptr, stream));
  if (timed)
    TESSEL_RT_TRY(timing.events[2].record(stream));
  TESSEL_RT_TRY(aot::compute_out(ov, view(a->x), view(a->B), view(a->C),
                                 dtOut, acs, seq, states, D, z, view(a->y),
                                 a->seq_idx.data != nullptr,
                                 a->D.data != nullptr, a->z.data != nullptr,
                                 stream));
  if (timed) {
    TESSEL_RT_TRY(timing.events[3].record(stream));
    timing.recorded = true;
  }
  return Status();
}
} // namespace

} // namespace tessel::mamba2

//===----------------------------------------------------------------------===//
// C API
//===----------------------------------------------------------------------===//

using tessel::mamba2::lastError;

static int report(const tessel::rt::Status &s, tessel_mamba2_status code) {
  lastError = s.ok() ? std::string() : s.message();
  return code;
}

extern "C" {

void tessel_mamba2_args_init(tessel_mamba2_forward_args *args) {
  if (!args)
    return;
  std::memset(args, 0, sizeof(*args));
  args->dt_limit_lo = 0.0;
  args->dt_limit_hi = std::numeric_limits<double>::infinity();
}

int tessel_mamba2_workspace_size(const tessel_mamba2_forward_args *args,
                                 size_t *bytes) {
  tessel_mamba2_status code;
  tessel::rt::Status s = tessel::mamba2::workspaceSize(args, bytes, &code);
  return report(s, code);
}

int tessel_mamba2_forward(const tessel_mamba2_forward_args *args) {
  tessel_mamba2_status code;
  tessel::rt::Status s = tessel::mamba2::forward(args, &code);
  return report(s, code);
}

const char *tessel_mamba2_last_error(void) { return lastError.c_str(); }

void tessel_mamba2_set_timing(int on) { tessel::mamba2::timingOn = on != 0; }

int tessel_mamba2_last_times(float out[3]) {
  using namespace tessel::mamba2;
  using tessel::rt::Status;
  if (!out)
    return report(Status::error("out: null pointer"),
                  TESSEL_MAMBA2_INVALID_ARGUMENT);
  if (!timing.recorded)
    return report(Status::error("no timed forward call on this thread (call "
                                "tessel_mamba2_set_timing(1) first)"),
                  TESSEL_MAMBA2_INVALID_ARGUMENT);
  if (Status s = timing.events[3].synchronize(); !s.ok())
    return report(s, TESSEL_MAMBA2_CUDA_ERROR);
  for (int i = 0; i < 3; ++i) {
    Status s = tessel::rt::Event::elapsedMs(timing.events[i],
                                            timing.events[i + 1], &out[i]);
    if (!s.ok())
      return report(s, TESSEL_MAMBA2_CUDA_ERROR);
  }
  return report(Status(), TESSEL_MAMBA2_OK);
}

} // extern "C"
