//===- Validate.cpp - argument checks of libtessel_mamba2 -----------------===//
//
// Everything tessel_mamba2_forward checks before it launches anything. No
// CUDA here: CI runs these checks on machines without a GPU or a driver.
//
//===----------------------------------------------------------------------===//

#include "kernels/mamba2/Validate.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <cstdint>
#include <limits>
#include <string>

namespace tessel::mamba2::detail {

using rt::Status;

namespace {

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

  /// A tensor with one of `dtypes` and the rank and sizes of `sizes` (-1:
  /// any positive size).
  bool tensor(const char *name, const tessel_mamba2_tensor &t,
              std::initializer_list<int32_t> dtypes,
              std::initializer_list<int64_t> sizes) {
    if (!ok())
      return false;
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
    for (int i = 0; i < t.rank; ++i)
      if (t.sizes[i] < 1)
        return fail(std::string(name) + " has shape " + shapeText(t) +
                    ": every size must be at least 1");
    int i = 0;
    for (int64_t want : sizes) {
      if (want >= 0 && t.sizes[i] != want) {
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
    // (After the sizes: PyTorch gives a tensor without elements a null
    // pointer.)
    if (!t.data)
      return fail(std::string(name) + ": null data pointer");
    return span(name, t);
  }

  /// The bytes [lo, hi) that `t`'s elements lie in (`t` checked by tensor()).
  static std::pair<unsigned __int128, unsigned __int128>
  bytesOf(const tessel_mamba2_tensor &t) {
    __int128 lo = 0, hi = 0; // element offsets of the first and last element
    for (int d = 0; d < t.rank; ++d) {
      const __int128 reach =
          static_cast<__int128>(t.strides[d]) * (t.sizes[d] - 1);
      (reach < 0 ? lo : hi) += reach;
    }
    const int bytes = elementBytes(t.dtype);
    const __int128 base = reinterpret_cast<uintptr_t>(t.data);
    return {static_cast<unsigned __int128>(base + lo * bytes),
            static_cast<unsigned __int128>(base + (hi + 1) * bytes)};
  }

  /// No tensor reaches past 2^48 bytes (no allocation does; it keeps the
  /// kernels' 64-bit offsets and the TMA's 40-bit strides far from
  /// overflow), nor below address 0.
  bool span(const char *name, const tessel_mamba2_tensor &t) {
    const auto [lo, hi] = bytesOf(t);
    if (static_cast<__int128>(lo) < 0 || hi - lo > (uint64_t(1) << 48) ||
        hi > (static_cast<unsigned __int128>(1) << 64))
      return fail(std::string(name) + ": its strides reach " +
                  "beyond any allocation (over 2^48 bytes, or below address "
                  "0)");
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
      if (t.strides[d] <= 0 && t.sizes[d] > 1)
        return fail(std::string(name) + ": stride of dimension " +
                    std::to_string(d) + " (" + std::to_string(t.strides[d]) +
                    ") must be positive (the kernels copy it by the TMA)");
    for (int d = 0; d + 1 < t.rank; ++d)
      if (t.sizes[d] > 1 && (t.strides[d] * bytes) % 16)
        return fail(std::string(name) + ": stride of dimension " +
                    std::to_string(d) + " (" + std::to_string(t.strides[d]) +
                    " elements) must be a multiple of 16 bytes");
    return true;
  }

  /// Outputs: no two elements at one address. Taking the dimensions from
  /// the smallest stride up, each stride must pass the whole extent of the
  /// dimensions inside it (which also rules out zero and negative strides).
  bool writable(const char *name, const tessel_mamba2_tensor &t) {
    if (!ok())
      return false;
    int order[TESSEL_MAMBA2_MAX_RANK];
    for (int d = 0; d < t.rank; ++d)
      order[d] = d;
    std::sort(order, order + t.rank,
              [&](int x, int y) { return t.strides[x] < t.strides[y]; });
    int64_t extent = 0; // the furthest element of the inner dimensions
    for (int i = 0; i < t.rank; ++i) {
      int d = order[i];
      if (t.sizes[d] == 1)
        continue;
      if (t.strides[d] <= 0)
        return fail(std::string(name) + ": stride of dimension " +
                    std::to_string(d) + " (" + std::to_string(t.strides[d]) +
                    ") must be positive");
      if (t.strides[d] <= extent)
        return fail(std::string(name) + ": stride of dimension " +
                    std::to_string(d) + " (" + std::to_string(t.strides[d]) +
                    ") makes the output overlap itself");
      extent += t.strides[d] * (t.sizes[d] - 1);
    }
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
constexpr int64_t kMaxHeadOrStateDim = 256;

} // namespace

Status validate(const tessel_mamba2_forward_args *a, Dims *dims) {
  if (!a)
    return Status::error("args: null pointer");
  Checker c;
  if (!c.tensor("x", a->x, {TESSEL_MAMBA2_BF16, TESSEL_MAMBA2_F16},
                {-1, -1, -1, -1}))
    return Status::error(c.message());
  const int32_t xd = a->x.dtype;
  const int64_t b = a->x.sizes[0], L = a->x.sizes[1], h = a->x.sizes[2],
                p = a->x.sizes[3];
  // 16-byte rows of x, y, B, C (the TMA's copies of them, y's by boxes p
  // wide, the per-chunk states by n); said before the strides, which a
  // contiguous tensor of such rows would fail.
  if (p % 8)
    return Status::error("x: the head dimension p = " + std::to_string(p) +
                         " must be a multiple of 8");
  c.dense("x", a->x);
  if (c.ok() && a->B.data && a->B.rank == 4 && a->B.sizes[2] >= 1 &&
      h % a->B.sizes[2])
    c.fail("B: the number of groups (" + std::to_string(a->B.sizes[2]) +
           ") must divide the number of heads (" + std::to_string(h) + ")");
  c.tensor("B", a->B, {xd}, {b, L, -1, -1});
  const int64_t g = c.ok() ? a->B.sizes[2] : 1, n = c.ok() ? a->B.sizes[3] : 8;
  if (n % 8)
    return Status::error("B: the state dimension n = " + std::to_string(n) +
                         " must be a multiple of 8");
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
    else if (a->D.rank == 2)
      c.tensor("D", a->D, {TESSEL_MAMBA2_F32}, {h, p});
    else
      c.fail("D must have shape (h) or (h, p), got " +
             std::to_string(a->D.rank) + " dimensions");
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
  // The kernels take dt >= 0 (Acs does not grow along a chunk) and the
  // limits as floats: lo finite, hi +inf or a float, hi > 0 (a zeroed
  // struct, without tessel_mamba2_args_init, would clamp every dt to 0).
  const double lo = a->dt_limit_lo, hi = a->dt_limit_hi,
               maxFloat = std::numeric_limits<float>::max();
  if (!(lo >= 0 && lo <= maxFloat && hi > 0 &&
        (hi <= maxFloat || hi == std::numeric_limits<double>::infinity()) &&
        lo <= hi))
    return Status::error(
        "dt_limit must be (lo, hi) with 0 <= lo <= hi, hi > 0, lo finite "
        "and both within float's range (hi may be +inf; "
        "tessel_mamba2_args_init sets (0, +inf)), got (" +
        std::to_string(lo) + ", " + std::to_string(hi) + ")");
  // Bounds that keep every index and the workspace size far from overflow
  // (sizes are already below 2^30).
  if (n > kMaxHeadOrStateDim)
    return Status::error("B: the state dimension n = " + std::to_string(n) +
                         " is over the supported " +
                         std::to_string(kMaxHeadOrStateDim));
  if (p > kMaxHeadOrStateDim)
    return Status::error("x: the head dimension p = " + std::to_string(p) +
                         " is over the supported " +
                         std::to_string(kMaxHeadOrStateDim));
  if (b * h > kMaxGridYZ)
    return Status::error("x: batch x heads = " + std::to_string(b * h) +
                         " is over the supported " +
                         std::to_string(kMaxGridYZ));
  const int64_t nc = (L + Q - 1) / Q;
  // chunk_cumsum's grid: a chunk per program along y.
  if (nc > kMaxGridYZ)
    return Status::error("x: L = " + std::to_string(L) + " makes " +
                         std::to_string(nc) + " chunks of chunk_size " +
                         std::to_string(Q) + ", over the supported " +
                         std::to_string(kMaxGridYZ));
  *dims = {b, L, h, p, n, g, Q, nc, roundUp(L, 4), roundUp(n, 8)};
  return Status();
}

Workspace layout(const Dims &d, bool perChunkStates, bool storedCb) {
  Workspace w;
  size_t rows = static_cast<size_t>(d.b * d.h * d.Lp) * 4;
  w.dtOffset = 0;
  w.acsOffset = roundUp(rows, 256);
  w.statesOffset = w.acsOffset + roundUp(rows, 256);
  const size_t stateElems = static_cast<size_t>(d.b * d.nc * d.h * d.p * d.np);
  // With per-chunk states, chunk c's two (the state entering it, then what
  // chunk_state wrote for it) lie side by side: (b, nc, 2, h, p, n).
  w.localOffset = w.statesOffset + static_cast<size_t>(d.h * d.p * d.np) * 2;
  w.decayOffset =
      w.statesOffset + roundUp(stateElems * 2 * (perChunkStates ? 2 : 1), 256);
  const size_t decayBytes = static_cast<size_t>(d.b * d.h * decayRow(d)) * 4;
  const size_t carryBytes =
      static_cast<size_t>(d.b * segments(d) * d.h * d.p * d.np) * 4;
  // (And one more: the programs' tickets.)
  const size_t counterBytes = static_cast<size_t>(
      (d.b * segments(d) * d.h * chainBlocksP(d) * chainBlocksN(d) + 1) * 4);
  w.carryOffset =
      w.decayOffset + (perChunkStates ? roundUp(decayBytes, 256) : 0);
  w.countersOffset =
      w.carryOffset + (perChunkStates ? roundUp(carryBytes, 256) : 0);
  w.cbOffset =
      w.countersOffset + (perChunkStates ? roundUp(counterBytes, 256) : 0);
  const size_t cbElems = static_cast<size_t>(d.b * d.nc * d.g * d.Q * d.Q);
  w.bytes = w.cbOffset + (storedCb ? roundUp(cbElems * 2, 256) : 0);
  return w;
}

int64_t serialCtas(const Dims &d) {
  return d.b * d.h * ((d.p + 63) / 64) * ((d.n + 63) / 64);
}

StatePath statePath(const Dims &d, const char *force) {
  // chunk_state's grid: (nc h, p / 64, ceil(n / BLOCK_N) b) with BLOCK_N 64,
  // 128 or 256; y and z at most 65535 (checked for the smallest block).
  if (d.nc * d.h > int64_t(0x7fffffff) || d.b * ((d.n + 63) / 64) > 65535)
    return StatePath::serial;
  if (force && std::string(force) == "serial")
    return StatePath::serial;
  if (force && std::string(force) == "split")
    return StatePath::split;
  // The split pays for its per-chunk states (written, then read: 4 bytes per
  // state element per chunk, 16-bit) with parallelism. Measured on the H200
  // over MAMBA2.md's shapes (bench/results/2026-11-30-full.md), the walk in
  // order wins only at Q = 64 (four times the
  // per-chunk traffic of Q = 256): 1.51 vs 1.81 ms at b=1 L=65536 h=80
  // n=128. The split wins everywhere else, also where the walk in order has
  // two or more CTAs per SM (it lost there with f32 per-chunk states): 0.63
  // vs 0.77 ms at b=4 L=16384 h=80 n=128, 1.27 vs 1.59 at b=1 L=65536 n=256.
  if (d.Q < 128)
    return StatePath::serial;
  return StatePath::split;
}

int64_t scanSegment(const Dims &d, const char *force, double memoryGBs) {
  if (force && std::string(force) == "1")
    return 1;
  if (force && std::string(force) == std::to_string(kSegment))
    return kSegment;
  // Segments of 8 chunks save state_passing seven eighths of its traffic
  // (it reads and writes every chunk's state otherwise) and cost compute_out
  // a state term twice as long (C_t·T_sᵀ scaled, then C_t·R_cᵀ: twice the
  // steps over the state dimension, each waiting for its wgmma group before
  // the next; ncu on the H200, bench/results/2026-12-07-segment-h200.md).
  // Which wins depends on the memory: the forward measured side by side
  // (segments of 1 and 8 forced, two rounds each):
  // - on an H100 (3.35 TB/s; 2026-12-07-segmented-scan.md, -segment-
  //   steps.md) 8 was faster at b=1 L=65536 h=80 n=128 Q=256 (5.4%), Q=128
  //   (14%), n=64 (2.7%), g=8 (5.6%), b=1 L=16384 (3.9%) and b=4 L=65536
  //   h=8 n=256 Q=128 (9.6%); slower at n=256 Q=256 (4.5%);
  // - on the H200 (4.8 TB/s; 2026-12-07-segment-h200.md) 8 was faster only
  //   at Q=128 (10%, n=128) and n=64 (3%); slower at n=128 Q=256 (0.5-1.6%
  //   at the headline, 2.2% at g=8 and at b=4 L=16384, 4% at L=16384),
  //   at b=4 L=65536 h=8 n=256 Q=128 (1.3%) and n=256 Q=256 (15%).
  // So the H100's rule below 4 TB/s, the H200's at 4 TB/s and above or
  // where the driver does not say (0: the GPU the library is tuned for).
  // Either way 1 with fewer than 512 chunk_state programs of 8 chunks (b h
  // ceil(nc / 8); 7.6% slower at 160, L=4096, on the H100: each program
  // walks its chunks in turn) or fewer than 64 columns (not measured).
  const int64_t programs = segments(d) * d.b * d.h;
  if (programs < 512 || d.n < 64)
    return 1;
  if (memoryGBs > 0 && memoryGBs < 4000)
    return d.n <= 128 || d.Q <= 128 ? kSegment : 1;
  return d.n <= 64 || (d.Q <= 128 && d.n <= 128) ? kSegment : 1;
}

bool chainScan(const Dims &, const char *force) {
  // Off unless forced: correct on the GPU but slower at every shape
  // measured (an H100, bench/results/2026-12-07-chained-scan.md: the
  // headline's forward 1.471 ms against 1.294 with state_passing at
  // segments of 8 and 1.371 at segments of 1). The R_c it reads back come
  // from DRAM (the resident programs' R_c fill the L2), so it moves more
  // bytes than state_passing.
  return force && std::string(force) == "chain";
}

bool storedCb(const Dims &d, const char *force) {
  if (force && std::string(force) == "stored")
    return true;
  if (force && std::string(force) == "fused")
    return false;
  // Formed once per group and chunk instead of once per head. Measured on
  // the H200 (compute_out with chunk_cb against compute_out alone, bench/
  // results/2026-12-01-chunk-cb.md): 1.57 -> 1.30 ms at b=1 L=65536 h=80
  // n=128, 2.21 -> 1.48 at n=256, 1.32 -> 1.13 at n=64, 1.61 -> 1.45 with
  // g=8, 1.17 -> 1.05 at Q=128, 0.387 -> 0.329 at L=16384, 0.108 -> 0.092 at
  // L=4096. Not where a head has its group to itself (nothing shared), nor
  // for small problems, where the extra launch costs more than it saves
  // (0.015 -> 0.020 ms at b=1 L=1024 h=24 n=128).
  return d.h / d.g >= 2 && d.b * d.L * d.h >= (int64_t(1) << 17);
}

StatePath fitWorkspace(const Dims &d, StatePath path, size_t workspaceBytes) {
  if (path == StatePath::split && workspaceBytes < layout(d, true).bytes &&
      workspaceBytes >= layout(d, false).bytes)
    return StatePath::serial;
  return path;
}

bool fitStoredCb(const Dims &d, bool perChunkStates, bool stored,
                 size_t workspaceBytes) {
  return stored && workspaceBytes >= layout(d, perChunkStates, true).bytes;
}

Status checkAliasing(const tessel_mamba2_forward_args *a,
                     size_t workspaceBytes) {
  struct Named {
    const char *name;
    const tessel_mamba2_tensor *t;
    bool output = false;
  };
  const Named all[] = {{"x", &a->x},
                       {"dt", &a->dt},
                       {"A", &a->A},
                       {"B", &a->B},
                       {"C", &a->C},
                       {"D", &a->D},
                       {"z", &a->z},
                       {"dt_bias", &a->dt_bias},
                       {"initial_states", &a->initial_states},
                       {"seq_idx", &a->seq_idx},
                       {"y (out)", &a->y, true},
                       {"final_states (out)", &a->final_states, true}};
  using Bytes = std::pair<unsigned __int128, unsigned __int128>;
  auto overlap = [](Bytes u, Bytes v) {
    return u.first < v.second && v.first < u.second;
  };
  auto said = [](const char *what, const char *other) {
    return Status::error(std::string(what) + " shares memory with " + other +
                         ": the kernels read the inputs while they write the "
                         "outputs and the workspace (give each its own "
                         "memory)");
  };
  const auto wsBase =
      static_cast<unsigned __int128>(reinterpret_cast<uintptr_t>(a->workspace));
  const Bytes workspace{wsBase, wsBase + workspaceBytes};
  for (const Named &u : all) {
    if (!u.t->data)
      continue;
    const Bytes ub = Checker::bytesOf(*u.t);
    if (overlap(ub, workspace))
      return said("workspace", u.name);
    // An output against every other tensor.
    if (u.output)
      for (const Named &v : all)
        if (&v != &u && v.t->data && overlap(ub, Checker::bytesOf(*v.t)))
          return said(u.name, v.name);
  }
  return Status();
}

Status checkWorkspace(const tessel_mamba2_forward_args *a, const Dims &d,
                      bool perChunkStates, bool storedCb) {
  const size_t bytes = layout(d, perChunkStates, storedCb).bytes;
  if (!a->workspace)
    return Status::error("workspace: null pointer (ask "
                         "tessel_mamba2_workspace_size for its size)");
  if (a->workspace_bytes < bytes)
    return Status::error("workspace: " + std::to_string(a->workspace_bytes) +
                         " bytes given, " + std::to_string(bytes) + " needed");
  if (reinterpret_cast<uintptr_t>(a->workspace) % 256)
    return Status::error("workspace: must be 256-byte aligned");
  return Status();
}

} // namespace tessel::mamba2::detail

extern "C" void tessel_mamba2_args_init(tessel_mamba2_forward_args *args) {
  if (!args)
    return;
  std::memset(args, 0, sizeof(*args));
  args->dt_limit_lo = 0.0;
  args->dt_limit_hi = std::numeric_limits<double>::infinity();
}
