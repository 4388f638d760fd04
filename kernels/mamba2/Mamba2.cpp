//===- Mamba2.cpp - libtessel_mamba2: the forward pass on device pointers -===//
//
// Validates a tessel_mamba2_forward_args completely (every message names the
// argument, in the terms of mamba_ssm's mamba_chunk_scan_combined), lays out
// the workspace, and launches the AOT-compiled kernels (chunk_cumsum;
// chunk_state + state_passing or fwd_pass_state; compute_out) through the
// launchers tesselc generated (tessel_mamba2_aot.h), choosing the path and
// the variants (chunk length, dtypes, dt_bias/softplus) from the arguments.
// Nothing is launched unless every argument is valid.
//
//===----------------------------------------------------------------------===//

#include "kernels/mamba2/Mamba2.h"

#include "dsl/Tessel.h" // DType values of the variants (header-only use)
#include "kernels/mamba2/Validate.h"
// The launchers tesselc generated: the library's own (with the tuned table),
// or the tuning build's (every point of tessel-tune's search space).
#ifdef TESSEL_MAMBA2_AOT_HEADER
#include TESSEL_MAMBA2_AOT_HEADER
#else
#include "tessel_mamba2_aot.h"
#endif

#include <cuda.h>

#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>

namespace tessel::mamba2 {

using rt::Status;
using namespace detail;

namespace {

thread_local std::string lastError;
thread_local bool timingOn = false;
struct Timing {
  // Before chunk_cumsum, after it, after chunk_state (or fwd_pass_state),
  // after state_passing (right after the previous one on the serial path),
  // after compute_out.
  rt::Event events[5];
  bool recorded = false;
};
thread_local Timing timing;

/// Per-kernel tunables forced by tessel_mamba2_set_tunables, as given
/// ("NAME=VALUE,..."): the names not given take the launched variant's
/// defaults (aot::<kernel>_defaults), so they are parsed at each launch.
struct Overrides {
  std::optional<std::string> chunk_cumsum, chunk_state, state_passing,
      fwd_pass_state, chunk_cb, compute_out;
};
thread_local Overrides overrides;
/// What the last timed forward launched (tessel_mamba2_last_launches).
thread_local std::string lastLaunches;

/// Launches kernel `kernel` with the forced tunables if any, else the tuned
/// choice; with `describeOnly` (a pass over the same launches before a
/// timed call, so that the host work stays out of the timed window) only
/// records what it would launch (tessel_mamba2_last_launches).
#define TESSEL_MAMBA2_LAUNCH(kernel, variant, ...)                            \
  do {                                                                        \
    std::optional<aot::kernel##_tunables> forced;                             \
    if (overrides.kernel) {                                                   \
      aot::kernel##_tunables t;                                               \
      TESSEL_RT_TRY(aot::kernel##_parse(*overrides.kernel, &t,                \
                                        aot::kernel##_defaults(variant)));    \
      forced = t;                                                             \
    }                                                                         \
    if (describeOnly) {                                                       \
      aot::kernel##_tunables chosen;                                          \
      std::string shape;                                                      \
      TESSEL_RT_TRY(aot::kernel##_choose(variant, __VA_ARGS__, &chosen,       \
                                         &shape));                            \
      if (forced)                                                             \
        chosen = *forced;                                                     \
      std::string target, compiled;                                           \
      TESSEL_RT_TRY(rt::currentTarget(&target));                              \
      for (const auto &t : aot::kernel##_compiled(variant, target))           \
        compiled += (compiled.empty() ? "" : ";") + aot::kernel##_text(t);    \
      lastLaunches += std::string(#kernel) + "\t" +                           \
                      aot::kernel##_variant_text(variant) + "\t" + shape +    \
                      "\t" + aot::kernel##_text(chosen) + "\t" + compiled +   \
                      "\n";                                                   \
      break;                                                                  \
    }                                                                         \
    if (forced)                                                               \
      TESSEL_RT_TRY(aot::kernel(variant, *forced, __VA_ARGS__, stream));      \
    else                                                                      \
      TESSEL_RT_TRY(aot::kernel(variant, __VA_ARGS__, stream));               \
  } while (false)

rt::View view(const tessel_mamba2_tensor &t) {
  rt::View v;
  v.ptr = reinterpret_cast<rt::DevicePtr>(t.data);
  v.sizes.assign(t.sizes, t.sizes + t.rank);
  v.strides.assign(t.strides, t.strides + t.rank);
  // A dimension of size 1 never moves an address, so its stride is free
  // (validate ignores it; a slice of a wider tensor may have any): made the
  // one a contiguous tensor would have, which the kernels' stride checks
  // (16-byte multiples for the TMA) accept wherever the strides inside it
  // pass.
  for (int d = t.rank - 1; d >= 0; --d)
    if (v.sizes[d] == 1)
      v.strides[d] = d + 1 < t.rank ? v.strides[d + 1] * v.sizes[d + 1] : 1;
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
/// `t` when given, else an absent view of `rank`.
rt::View optional(const tessel_mamba2_tensor &t, int rank) {
  return t.data ? view(t) : absent(rank);
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

Status setCode(Status s, tessel_mamba2_status value,
               tessel_mamba2_status *code) {
  if (code)
    *code = s.ok() ? TESSEL_MAMBA2_OK : value;
  return s;
}

/// A failure of a launch: a variant or device this build lacks (the
/// messages of the generated launchers and of rt::selectImage), else the
/// driver.
tessel_mamba2_status launchFailure(const Status &s) {
  const std::string &m = s.message();
  for (const char *unsupported :
       {"no compiled configuration", "no cubin image runs on this device",
        "one device per process"})
    if (m.find(unsupported) != std::string::npos)
      return TESSEL_MAMBA2_UNSUPPORTED;
  return TESSEL_MAMBA2_CUDA_ERROR;
}

/// TESSEL_MAMBA2_STATE_PATH (serial or split; for measurements), or null.
const char *forcedPath() { return std::getenv("TESSEL_MAMBA2_STATE_PATH"); }
/// TESSEL_MAMBA2_SEGMENT (1 or 8; for measurements), or null.
const char *forcedSegment() { return std::getenv("TESSEL_MAMBA2_SEGMENT"); }
/// TESSEL_MAMBA2_CB (stored or fused; for measurements), or null.
const char *forcedCb() { return std::getenv("TESSEL_MAMBA2_CB"); }
/// TESSEL_MAMBA2_SCAN (chain or passing; for measurements), or null.
const char *forcedScan() { return std::getenv("TESSEL_MAMBA2_SCAN"); }

/// The SMs of the current device (132, the H200's, if the driver cannot say).
int smCount() {
  int sms = 132;
  CUdevice device = 0;
  if (cuCtxGetDevice(&device) == CUDA_SUCCESS)
    (void)cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                               device);
  return sms;
}

/// The current device's peak memory bandwidth in GB/s (the memory clock,
/// twice per cycle, times the bus width), or 0 where the driver cannot say.
double memoryGBs() {
  CUdevice device = 0;
  int kHz = 0, bits = 0;
  if (cuCtxGetDevice(&device) != CUDA_SUCCESS ||
      cuDeviceGetAttribute(&kHz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE,
                           device) != CUDA_SUCCESS ||
      cuDeviceGetAttribute(&bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH,
                           device) != CUDA_SUCCESS)
    return 0;
  return 2.0 * kHz * 1e3 * (bits / 8.0) / 1e9;
}

Status enqueue(const tessel_mamba2_forward_args *a, const Dims &d, int sms,
               double gbs, StatePath path, bool cbStored,
               bool describeOnly = false) {
  Workspace w = layout(d, path == StatePath::split, cbStored);
  auto base = reinterpret_cast<rt::DevicePtr>(a->workspace);
  rt::View dtOut{base + w.dtOffset,
                 {d.b, d.h, d.L},
                 {d.h * d.Lp, d.Lp, 1}};
  rt::View acs{base + w.acsOffset, {d.b, d.h, d.L}, {d.h * d.Lp, d.Lp, 1}};
  // On the split path chunk c's state and chunk_state's output for it lie
  // side by side (Validate.h, Workspace): `slots` sees them as 2 nc chunks.
  const int64_t perChunk = path == StatePath::split ? 2 : 1,
                chunkElems = d.h * d.p * d.np;
  rt::View states{base + w.statesOffset,
                  {d.b, d.nc, d.h, d.p, d.n},
                  {d.nc * perChunk * chunkElems, perChunk * chunkElems,
                   d.p * d.np, d.np, 1}};
  rt::View slots{
      base + w.statesOffset,
      {d.b, perChunk * d.nc, d.h, d.p, d.n},
      {d.nc * perChunk * chunkElems, chunkElems, d.p * d.np, d.np, 1}};
  rt::View seq = optional(a->seq_idx, 2);
  rt::View init = optional(a->initial_states, 4);
  rt::View fin = optional(a->final_states, 4);
  rt::View D = optional(a->D, 2);
  if (a->D.data && a->D.rank == 1) { // (h) -> (h, p) with stride 0 along p
    D.sizes = {d.h, d.p};
    D.strides = {a->D.strides[0], 0};
  }
  // compute_out's has_D: 0 none, 1 one per head, 2 one per (head, p).
  const int32_t hasD = !a->D.data ? 0 : a->D.rank == 1 ? 1 : 2;
  // An absent z is passed as y's view (has_z = 0: never read), not as an
  // empty one: a compute_out that copies z by the TMA (row_fragments) gets
  // a valid tensor map, which the runtime refuses for a view of size 0.
  rt::View z = a->z.data ? view(a->z) : view(a->y);
  CUstream stream = static_cast<CUstream>(a->stream);

  aot::chunk_cumsum_variant cv;
  cv.Q = d.Q;
  cv.DT_DTYPE = dtypeVariant(a->dt.dtype);
  cv.HAS_DT_BIAS = a->dt_bias.data != nullptr;
  cv.DT_SOFTPLUS = a->dt_softplus != 0;
  const int64_t xDtype = dtypeVariant(a->x.dtype);
  aot::fwd_pass_state_variant sv;
  sv.Q = d.Q;
  sv.X_DTYPE = xDtype;
  // fwd_pass_state walks every chunk in order in each of its
  // (p / BLOCK_P) x (n / 64) x (b h) CTAs: with few of them the GPU idles.
  // Half as many p-rows per CTA when 64 would give fewer than two CTAs per
  // SM (measured on the H200 over MAMBA2.md's shapes: better in each case
  // the rule picks, worse where it does not; bench/results/
  // 2026-11-29-mamba2-layouts-pipelining.md).
  sv.BLOCK_P = serialCtas(d) < 2 * int64_t(sms) ? 32 : 64;
  // The segmented scan (Kernels.h, segmentVariant): the chunk_state,
  // state_passing and compute_out of a forward take the same SEGMENT. (On
  // the serial path, SEGMENT 1, compute_out reads neither slots nor decay,
  // which point past the workspace's states there.)
  const int64_t segment =
      path == StatePath::split ? scanSegment(d, forcedSegment(), gbs) : 1;
  rt::View decay{base + w.decayOffset,
                 {d.b, d.h, d.nc},
                 {d.h * decayRow(d), decayRow(d), 1}};
  aot::chunk_state_variant csv;
  csv.Q = d.Q;
  csv.SEGMENT = segment;
  csv.X_DTYPE = xDtype;
  csv.BLOCK_N = chunkStateBlockN(d.n);
  // The scan over segments in chunk_state itself (CHAIN; Validate.h,
  // chainScan): no state_passing, and compute_out reads the states entering
  // the chunks where chunk_state wrote them, unsegmented.
  const bool chain = segment > 1 && chainScan(d, forcedScan());
  csv.CHAIN = chain;
  rt::View carry{base + w.carryOffset,
                 {d.b, segments(d), d.h, d.p, d.n},
                 {segments(d) * chunkElems, chunkElems, d.p * d.np, d.np, 1}};
  const int64_t countersPerHead = chainBlocksP(d) * chainBlocksN(d);
  rt::View counters{
      base + w.countersOffset,
      {d.b, segments(d), d.h, chainBlocksP(d), chainBlocksN(d)},
      {segments(d) * d.h * countersPerHead, d.h * countersPerHead,
       countersPerHead, chainBlocksN(d), 1}};
  // (The programs' ticket counter right after them.)
  const int64_t numCounters = d.b * segments(d) * d.h * countersPerHead;
  rt::View order{counters.ptr + numCounters * 4, {1}, {1}};
  aot::state_passing_variant spv;
  spv.Q = d.Q;
  spv.SEGMENT = segment;
  spv.X_DTYPE = xDtype;
  rt::View local = states;
  local.ptr = base + w.localOffset;
  // C·Bᵀ per chunk and group, transposed (B_s·C_tᵀ), for compute_out.
  rt::View cbt = absent(5);
  if (cbStored)
    cbt = {base + w.cbOffset,
           {d.b, d.nc, d.g, d.Q, d.Q},
           {d.nc * d.g * d.Q * d.Q, d.g * d.Q * d.Q, d.Q * d.Q, d.Q, 1}};
  aot::chunk_cb_variant cbv;
  cbv.Q = d.Q;
  cbv.X_DTYPE = xDtype;
  aot::compute_out_variant ov;
  ov.Q = d.Q;
  ov.SEGMENT = chain ? 1 : segment;
  ov.X_DTYPE = xDtype;
  ov.CB_STORED = cbStored;
  // SEQ_IDX 0 compiles none of compute_out's seq_idx code.
  ov.SEQ_IDX = a->seq_idx.data != nullptr;
  // C resident in shared memory, the state dimension unrolled, where n
  // allows (its BLOCK_K, 64, divides 64).
  ov.N_MAX = d.n <= 64 ? 64 : 0;

  const bool timed = timingOn && !describeOnly;
  if (timed) {
    timing.recorded = false;
    for (rt::Event &e : timing.events)
      if (!e.get())
        TESSEL_RT_TRY(rt::Event::create(&e));
    TESSEL_RT_TRY(timing.events[0].record(stream));
  }
  // The chained scan's counters start at zero in every forward (before
  // chunk_cumsum, so that chunk_state still launches right after it).
  if (chain && !describeOnly)
    TESSEL_RT_TRY(rt::checkCu(
        cuMemsetD32Async(counters.ptr, 0,
                         static_cast<size_t>(numCounters + 1), stream),
        "cuMemsetD32Async", "the chained scan's counters"));
  // dt_bias is read only by the HAS_DT_BIAS variant.
  TESSEL_MAMBA2_LAUNCH(chunk_cumsum, cv, view(a->dt), view(a->A),
                       optional(a->dt_bias, 1), dtOut, acs,
                       static_cast<float>(a->dt_limit_lo),
                       static_cast<float>(a->dt_limit_hi));
  if (timed)
    TESSEL_RT_TRY(timing.events[1].record(stream));
  const bool hasSeq = a->seq_idx.data != nullptr,
             hasInit = a->initial_states.data != nullptr,
             hasFinal = a->final_states.data != nullptr;
  if (path == StatePath::serial) {
    TESSEL_MAMBA2_LAUNCH(fwd_pass_state, sv, view(a->x), view(a->B), dtOut,
                         acs, seq, init, states, fin, hasSeq, hasInit,
                         hasFinal);
    if (timed)
      TESSEL_RT_TRY(timing.events[2].record(stream));
  } else {
    TESSEL_MAMBA2_LAUNCH(chunk_state, csv, view(a->x), view(a->B), dtOut, acs,
                         seq, local, decay, hasSeq, local, local, carry,
                         counters, order, init, fin, hasInit, hasFinal);
    if (timed)
      TESSEL_RT_TRY(timing.events[2].record(stream));
    if (!chain)
      TESSEL_MAMBA2_LAUNCH(state_passing, spv, local, decay, acs, seq, init,
                           states, fin, hasSeq, hasInit, hasFinal);
  }
  if (timed)
    TESSEL_RT_TRY(timing.events[3].record(stream));
  // (Timed with compute_out, the one kernel that reads its output.)
  if (cbStored)
    TESSEL_MAMBA2_LAUNCH(chunk_cb, cbv, view(a->B), view(a->C), cbt);
  TESSEL_MAMBA2_LAUNCH(compute_out, ov, view(a->x), view(a->B), view(a->C),
                       dtOut, acs, seq, chain ? local : states, slots, decay,
                       D, z, view(a->y),
                       cbt, a->seq_idx.data != nullptr, hasD,
                       a->z.data != nullptr);
  if (timed) {
    TESSEL_RT_TRY(timing.events[4].record(stream));
    timing.recorded = true;
  }
  return Status();
}
} // namespace

Status setTunables(const char *kernel, const char *tunables) {
  if (!kernel)
    return Status::error("kernel: null pointer");
  const std::string_view text = tunables ? tunables : "";
  // Checked here (names and integers, over the declared defaults); each
  // launch parses the text again over its variant's defaults.
  auto set = [&](std::optional<std::string> &slot, auto parse,
                 auto scratch) -> Status {
    if (text.empty()) {
      slot.reset();
      return Status();
    }
    TESSEL_RT_TRY(parse(text, &scratch, scratch));
    slot = std::string(text);
    return Status();
  };
  const std::string_view name = kernel;
  if (name == "chunk_cumsum")
    return set(overrides.chunk_cumsum, aot::chunk_cumsum_parse,
               aot::chunk_cumsum_tunables());
  if (name == "chunk_state")
    return set(overrides.chunk_state, aot::chunk_state_parse,
               aot::chunk_state_tunables());
  if (name == "state_passing")
    return set(overrides.state_passing, aot::state_passing_parse,
               aot::state_passing_tunables());
  if (name == "fwd_pass_state")
    return set(overrides.fwd_pass_state, aot::fwd_pass_state_parse,
               aot::fwd_pass_state_tunables());
  if (name == "chunk_cb")
    return set(overrides.chunk_cb, aot::chunk_cb_parse,
               aot::chunk_cb_tunables());
  if (name == "compute_out")
    return set(overrides.compute_out, aot::compute_out_parse,
               aot::compute_out_tunables());
  return Status::error("kernel: no kernel named '" + std::string(name) +
                       "' (chunk_cumsum, chunk_state, state_passing, "
                       "fwd_pass_state, chunk_cb, compute_out)");
}

/// The calling thread's current CUDA context is the one the first forward
/// call ran in.
Status sameContext() {
  static std::mutex mutex;
  static CUcontext first = nullptr;
  CUcontext current = nullptr;
  if (cuCtxGetCurrent(&current) != CUDA_SUCCESS || !current)
    return Status(); // the first launch says so
  std::lock_guard<std::mutex> lock(mutex);
  if (!first)
    first = current;
  if (current != first)
    return Status::error("libtessel_mamba2 was first called in another CUDA "
                         "context (one device, one context per process is "
                         "supported)");
  return Status();
}

Status workspaceSize(const tessel_mamba2_forward_args *args, size_t *bytes,
                     tessel_mamba2_status *code) {
  Dims d;
  if (Status s = validate(args, &d); !s.ok())
    return setCode(std::move(s), TESSEL_MAMBA2_INVALID_ARGUMENT, code);
  if (!bytes)
    return setCode(Status::error("bytes: null pointer"),
                   TESSEL_MAMBA2_INVALID_ARGUMENT, code);
  // The path (and so the size) for these sizes.
  *bytes = layout(d, statePath(d, forcedPath()) == StatePath::split,
                  storedCb(d, forcedCb()))
               .bytes;
  return setCode(Status(), TESSEL_MAMBA2_OK, code);
}

Status forward(const tessel_mamba2_forward_args *a,
               tessel_mamba2_status *code) {
  lastLaunches.clear();
  Dims d;
  if (Status s = validate(a, &d); !s.ok())
    return setCode(std::move(s), TESSEL_MAMBA2_INVALID_ARGUMENT, code);
  const int sms = smCount();
  const double gbs = memoryGBs();
  const StatePath path =
      fitWorkspace(d, statePath(d, forcedPath()), a->workspace_bytes);
  const bool cbStored =
      fitStoredCb(d, path == StatePath::split, storedCb(d, forcedCb()),
                  a->workspace_bytes);
  Status s = checkWorkspace(a, d, path == StatePath::split, cbStored);
  if (s.ok())
    s = checkAliasing(a, layout(d, path == StatePath::split, cbStored).bytes);
  if (!s.ok())
    return setCode(std::move(s), TESSEL_MAMBA2_INVALID_ARGUMENT, code);
  // The kernels' modules belong to the context that first loaded each
  // (tessel_mamba2_aot); which ones a call loads depends on its shapes, so
  // a call from another context is refused here, before anything runs,
  // instead of by the first kernel already loaded.
  if (Status c = sameContext(); !c.ok())
    return setCode(std::move(c), TESSEL_MAMBA2_UNSUPPORTED, code);
  if (timingOn) { // what the launches will be, before the timed window
    lastLaunches.clear();
    s = enqueue(a, d, sms, gbs, path, cbStored, /*describeOnly=*/true);
    if (!s.ok()) {
      const tessel_mamba2_status value = launchFailure(s);
      return setCode(std::move(s), value, code);
    }
  }
  s = enqueue(a, d, sms, gbs, path, cbStored);
  // The code first: setCode takes the status by value (moved from).
  const tessel_mamba2_status value =
      s.ok() ? TESSEL_MAMBA2_OK : launchFailure(s);
  return setCode(std::move(s), value, code);
}

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

int tessel_mamba2_set_tunables(const char *kernel, const char *tunables) {
  tessel::rt::Status s = tessel::mamba2::setTunables(kernel, tunables);
  return report(s, s.ok() ? TESSEL_MAMBA2_OK : TESSEL_MAMBA2_INVALID_ARGUMENT);
}

const char *tessel_mamba2_last_launches(void) {
  return tessel::mamba2::lastLaunches.c_str();
}

/// The times between timing events first..last (last - first values).
static int elapsed(float *out, const int *bounds, int count) {
  using namespace tessel::mamba2;
  using tessel::rt::Status;
  if (!out)
    return report(Status::error("out: null pointer"),
                  TESSEL_MAMBA2_INVALID_ARGUMENT);
  if (!timing.recorded)
    return report(Status::error("no timed forward call on this thread (call "
                                "tessel_mamba2_set_timing(1) first)"),
                  TESSEL_MAMBA2_INVALID_ARGUMENT);
  if (Status s = timing.events[4].synchronize(); !s.ok())
    return report(s, TESSEL_MAMBA2_CUDA_ERROR);
  for (int i = 0; i < count; ++i) {
    Status s = tessel::rt::Event::elapsedMs(
        timing.events[bounds[i]], timing.events[bounds[i + 1]], &out[i]);
    if (!s.ok())
      return report(s, TESSEL_MAMBA2_CUDA_ERROR);
  }
  return report(Status(), TESSEL_MAMBA2_OK);
}

int tessel_mamba2_last_times(float out[3]) {
  static const int stages[] = {0, 1, 3, 4};
  return elapsed(out, stages, 3);
}

int tessel_mamba2_last_kernel_times(float out[4]) {
  static const int kernels[] = {0, 1, 2, 3, 4};
  return elapsed(out, kernels, 4);
}

} // extern "C"
