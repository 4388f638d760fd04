//===- KernelAbi.cpp - kernel arguments and launch checks -----------------===//

#include "runtime/KernelAbi.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <sstream>
#include <type_traits>

namespace tessel::rt {

ViewArg contiguousView(DevicePtr ptr, int elementBytes,
                       std::vector<int64_t> sizes, unsigned flags) {
  ViewArg view;
  view.ptr = ptr;
  view.elementBytes = elementBytes;
  view.strides.assign(sizes.size(), 1);
  for (size_t i = sizes.size(); i > 1; --i)
    view.strides[i - 2] = view.strides[i - 1] * sizes[i - 1];
  view.sizes = std::move(sizes);
  view.flags = flags;
  return view;
}

static const char *kindName(ParamKind kind) {
  switch (kind) {
  case ParamKind::Pointer:
    return "pointer";
  case ParamKind::Size:
    return "size";
  case ParamKind::Stride:
    return "stride";
  case ParamKind::F32:
    return "f32";
  case ParamKind::I32:
    return "i32";
  case ParamKind::I64:
    return "i64";
  case ParamKind::TensorMap:
    return "tensor map";
  }
  return "?";
}

std::string describeSlot(const ParamSlot &slot) {
  std::string s = "argument " + std::to_string(slot.argIndex);
  switch (slot.kind) {
  case ParamKind::TensorMap:
    return "tensor map " + std::to_string(slot.argIndex);
  case ParamKind::Pointer:
    return s + " (view) pointer";
  case ParamKind::Size:
  case ParamKind::Stride:
    return s + " (view) " + kindName(slot.kind) + " " +
           std::to_string(slot.dim);
  default:
    return s + " (" + kindName(slot.kind) + ")";
  }
}

static std::string argPrefix(size_t index, const char *what) {
  return "argument " + std::to_string(index) + " (" + what + ")";
}

static std::string joinInts(const std::vector<int64_t> &values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

static std::string hex(uint64_t value) {
  std::ostringstream os;
  os << "0x" << std::hex << value;
  return os.str();
}

static size_t alignTo(size_t offset, size_t alignment) {
  return (offset + alignment - 1) / alignment * alignment;
}

Status parseTensorMapTable(const int32_t *words, size_t count,
                           std::vector<TensorMapSpec> *out) {
  out->clear();
  // Version 1: per map its argument, rank, swizzle span and 5 box extents;
  // version 2 adds a flags word (bit 0: a store).
  if (count < 2 || (words[0] != 1 && words[0] != 2))
    return Status::error("tensor map table: unknown format (version " +
                         std::to_string(count ? words[0] : 0) + ")");
  const int64_t maps = words[1];
  const size_t kWordsPerMap = words[0] == 1 ? 8 : 9;
  if (maps < 0 || count < 2 + static_cast<size_t>(maps) * kWordsPerMap)
    return Status::error("tensor map table: " + std::to_string(count) +
                         " words cannot hold " + std::to_string(maps) +
                         " maps");
  for (int64_t m = 0; m < maps; ++m) {
    const int32_t *w = words + 2 + m * kWordsPerMap;
    if (w[0] < 0 || w[1] < 1 || w[1] > 5 || (w[2] != 128 && w[2] != 0))
      return Status::error("tensor map table: map " + std::to_string(m) +
                           " has argument " + std::to_string(w[0]) +
                           ", rank " + std::to_string(w[1]) + ", swizzle " +
                           std::to_string(w[2]));
    TensorMapSpec spec;
    spec.arg = static_cast<size_t>(w[0]);
    spec.swizzleBytes = w[2];
    spec.box.assign(w + 3, w + 3 + w[1]);
    spec.store = kWordsPerMap == 9 && (w[8] & 1);
    spec.elementBytes = kWordsPerMap == 9 ? (w[8] >> 8) & 0xff : 0;
    if (spec.swizzleBytes == 0 &&
        (spec.store || (spec.elementBytes != 2 && spec.elementBytes != 4)))
      return Status::error("tensor map table: map " + std::to_string(m) +
                           " is unswizzled but " +
                           (spec.store ? std::string("a store")
                                       : "of element size " +
                                             std::to_string(spec.elementBytes)));
    out->push_back(std::move(spec));
  }
  return Status::success();
}

Status packArguments(const std::vector<Arg> &args, PackedArgs *out,
                     const std::vector<TensorMapSpec> &maps) {
  // Lay the slots out first, so that the buffer is allocated once and the
  // pointers into it are taken after it stops moving.
  std::vector<ParamSlot> slots;
  size_t numSlots = maps.size();
  for (const Arg &arg : args)
    if (const auto *view = std::get_if<ViewArg>(&arg))
      numSlots += 1 + view->sizes.size() + view->strides.size();
    else
      ++numSlots;
  slots.reserve(numSlots);
  size_t cursor = 0;
  auto addSlot = [&](size_t size, ParamKind kind, size_t argIndex, int dim) {
    cursor = alignTo(cursor, size);
    slots.push_back({cursor, size, kind, argIndex, dim});
    cursor += size;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    if (const auto *view = std::get_if<ViewArg>(&args[i])) {
      if (view->sizes.size() != view->strides.size())
        return Status::error(
            argPrefix(i, "view") +
            ": rank mismatch: " + std::to_string(view->sizes.size()) +
            " sizes but " + std::to_string(view->strides.size()) + " strides");
      addSlot(sizeof(uint64_t), ParamKind::Pointer, i, -1);
      for (size_t d = 0; d < view->sizes.size(); ++d)
        addSlot(sizeof(int64_t), ParamKind::Size, i, static_cast<int>(d));
      for (size_t d = 0; d < view->strides.size(); ++d)
        addSlot(sizeof(int64_t), ParamKind::Stride, i, static_cast<int>(d));
    } else if (std::holds_alternative<float>(args[i])) {
      addSlot(sizeof(float), ParamKind::F32, i, -1);
    } else if (std::holds_alternative<int32_t>(args[i])) {
      addSlot(sizeof(int32_t), ParamKind::I32, i, -1);
    } else if (std::holds_alternative<int64_t>(args[i])) {
      addSlot(sizeof(int64_t), ParamKind::I64, i, -1);
    } else {
      return Status::error("argument " + std::to_string(i) + " holds no value");
    }
  }
  for (size_t m = 0; m < maps.size(); ++m) {
    cursor = alignTo(cursor, 64);
    slots.push_back({cursor, kTensorMapBytes, ParamKind::TensorMap, m, -1});
    cursor += kTensorMapBytes;
  }
  if (cursor > kMaxParamBytes)
    return Status::error("the arguments take " + std::to_string(cursor) +
                         " bytes of kernel parameters, more than the " +
                         std::to_string(kMaxParamBytes) + " a launch may pass");

  PackedArgs packed;
  packed.storage_.assign((cursor + 7) / 8, 0);
  packed.size_ = cursor;
  auto *bytes = reinterpret_cast<unsigned char *>(packed.storage_.data());
  auto put = [&](const ParamSlot &slot, const auto &value) {
    static_assert(
        std::is_trivially_copyable_v<std::remove_cvref_t<decltype(value)>>);
    std::memcpy(bytes + slot.offset, &value, sizeof(value));
  };
  for (const ParamSlot &slot : slots) {
    if (slot.kind == ParamKind::TensorMap)
      continue;
    const Arg &arg = args[slot.argIndex];
    switch (slot.kind) {
    case ParamKind::Pointer:
      put(slot, static_cast<uint64_t>(std::get<ViewArg>(arg).ptr));
      break;
    case ParamKind::Size:
      put(slot, std::get<ViewArg>(arg).sizes[static_cast<size_t>(slot.dim)]);
      break;
    case ParamKind::Stride:
      put(slot, std::get<ViewArg>(arg).strides[static_cast<size_t>(slot.dim)]);
      break;
    case ParamKind::F32:
      put(slot, std::get<float>(arg));
      break;
    case ParamKind::I32:
      put(slot, std::get<int32_t>(arg));
      break;
    case ParamKind::I64:
      put(slot, std::get<int64_t>(arg));
      break;
    case ParamKind::TensorMap: // encoded by the launch
      break;
    }
  }
  packed.pointers_.reserve(slots.size());
  for (const ParamSlot &slot : slots)
    packed.pointers_.push_back(bytes + slot.offset);
  packed.slots_ = std::move(slots);
  *out = std::move(packed);
  return Status::success();
}

/// Whether `bytes` (any sign) is a multiple of 16, computed without
/// overflowing for huge strides.
static bool isMultipleOf16(int64_t elements, int elementBytes) {
  return (elements % 16) * elementBytes % 16 == 0;
}

static Status validateView(size_t index, const ViewArg &view) {
  // (Built only for a message: launches that pass format nothing.)
  auto where = [&] { return argPrefix(index, "view"); };
  const int eb = view.elementBytes;
  if (eb != 1 && eb != 2 && eb != 4 && eb != 8 && eb != 16)
    return Status::error(where() + ": element size " + std::to_string(eb) +
                         " bytes is not 1, 2, 4, 8 or 16");
  if (view.sizes.size() != view.strides.size())
    return Status::error(
        where() + ": rank mismatch: " + std::to_string(view.sizes.size()) +
        " sizes but " + std::to_string(view.strides.size()) + " strides");
  bool empty = false;
  for (size_t d = 0; d < view.sizes.size(); ++d) {
    if (view.sizes[d] < 0)
      return Status::error(where() + ": size " + std::to_string(d) +
                           " is negative (" + std::to_string(view.sizes[d]) +
                           "), sizes " + joinInts(view.sizes));
    // (A kernel reads a size as a 32-bit tile.dim, which the lowering takes
    // to be non-negative: a larger one would wrap.)
    if (view.sizes[d] > INT32_MAX)
      return Status::error(where() + ": size " + std::to_string(d) + " (" +
                           std::to_string(view.sizes[d]) +
                           ") is larger than 2^31 - 1, the largest a kernel "
                           "reads as its 32-bit size; sizes " +
                           joinInts(view.sizes));
    empty |= view.sizes[d] == 0;
  }
  if (unsigned unknown = view.flags & ~unsigned(kAligned16 | kUnitStride))
    return Status::error(where() + ": unknown flag bits " + hex(unknown));
  if (view.ptr == 0 && !empty)
    return Status::error(where() + ": null pointer with non-empty extent " +
                         joinInts(view.sizes));
  if (view.flags & kAligned16) {
    if (view.ptr % 16 != 0)
      return Status::error(where() + ": flagged kAligned16 but the pointer " +
                           hex(view.ptr) + " is not a multiple of 16 bytes");
    for (size_t d = 0; d + 1 < view.strides.size(); ++d)
      if (!isMultipleOf16(view.strides[d], eb))
        return Status::error(
            where() + ": flagged kAligned16 but stride " + std::to_string(d) +
            " (" + std::to_string(view.strides[d]) + " elements of " +
            std::to_string(eb) + " bytes) is not a multiple of 16 bytes");
  }
  if (view.flags & kUnitStride) {
    if (view.strides.empty())
      return Status::error(where() +
                           ": flagged kUnitStride but has no dimensions");
    if (view.strides.back() != 1)
      return Status::error(where() +
                           ": flagged kUnitStride but its last stride "
                           "is " +
                           std::to_string(view.strides.back()) + ", not 1");
  }
  return Status::success();
}

static std::string dimsString(const Dim3 &d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " +
         std::to_string(d.z) + ")";
}

static bool hasRequiredCluster(const KernelLimits &limits) {
  return limits.requiredCluster.x > 0 || limits.requiredCluster.y > 0 ||
         limits.requiredCluster.z > 0;
}

Dim3 effectiveCluster(const LaunchConfig &config, const KernelLimits &limits) {
  if (!hasRequiredCluster(limits))
    return config.cluster;
  // The driver reports unset dimensions of a compiled-in shape as 0.
  const Dim3 &r = limits.requiredCluster;
  return {r.x > 0 ? r.x : 1, r.y > 0 ? r.y : 1, r.z > 0 ? r.z : 1};
}

static Status validateShape(const LaunchConfig &config,
                            const KernelLimits &limits) {
  const Dim3 &g = config.grid;
  if (g.x < 0 || g.y < 0 || g.z < 0)
    return Status::error("grid " + dimsString(g) + " has a negative dimension");
  if (g.x > limits.maxGridX || g.y > limits.maxGridY || g.z > limits.maxGridZ)
    return Status::error("grid " + dimsString(g) +
                         " exceeds the device limits (" +
                         std::to_string(limits.maxGridX) + ", " +
                         std::to_string(limits.maxGridY) + ", " +
                         std::to_string(limits.maxGridZ) + ")");

  if (config.numWarps < 1 || config.numWarps > 32)
    return Status::error("numWarps " + std::to_string(config.numWarps) +
                         " is not in 1..32");
  const int threads = 32 * config.numWarps;
  if (threads > limits.maxThreadsPerBlock)
    return Status::error(
        std::to_string(config.numWarps) + " warps (" + std::to_string(threads) +
        " threads) exceed the kernel's limit of " +
        std::to_string(limits.maxThreadsPerBlock) + " threads per block" +
        (limits.numRegs
             ? " at " + std::to_string(limits.numRegs) + " registers per thread"
             : std::string()));

  if (config.dynamicSharedBytes > std::numeric_limits<unsigned>::max())
    return Status::error("dynamic shared memory of " +
                         std::to_string(config.dynamicSharedBytes) +
                         " bytes does not fit the launch's 32-bit field");
  if (limits.maxSharedPerBlockOptin &&
      config.dynamicSharedBytes >
          limits.maxSharedPerBlockOptin -
              std::min(limits.staticSharedBytes, limits.maxSharedPerBlockOptin))
    return Status::error(
        "dynamic shared memory of " +
        std::to_string(config.dynamicSharedBytes) + " bytes plus " +
        std::to_string(limits.staticSharedBytes) +
        " bytes of static shared memory exceed the device's " +
        std::to_string(limits.maxSharedPerBlockOptin) + " bytes per block");

  const Dim3 &c = config.cluster;
  if (c.x < 1 || c.y < 1 || c.z < 1)
    return Status::error("cluster " + dimsString(c) +
                         " has a dimension below 1");
  if (hasRequiredCluster(limits) && c != Dim3{} &&
      c != effectiveCluster(config, limits))
    return Status::error("cluster " + dimsString(c) +
                         " differs from the kernel's compiled-in cluster " +
                         dimsString(effectiveCluster(config, limits)));
  const Dim3 cluster = effectiveCluster(config, limits);
  // Each factor is at most the grid limit, so a product of two cannot
  // overflow; check them one at a time before the third.
  if (cluster.x > limits.maxGridX || cluster.y > limits.maxGridY ||
      cluster.z > limits.maxGridZ ||
      cluster.x * cluster.y > limits.maxClusterBlocks ||
      cluster.x * cluster.y * cluster.z > limits.maxClusterBlocks)
    return Status::error("cluster " + dimsString(cluster) + " has more than " +
                         std::to_string(limits.maxClusterBlocks) +
                         " blocks (the portable limit)");
  if (g.x % cluster.x || g.y % cluster.y || g.z % cluster.z)
    return Status::error("grid " + dimsString(g) +
                         " is not a multiple of the cluster " +
                         dimsString(cluster));
  return Status::success();
}

static Status validateTensorMap(size_t m, const TensorMapSpec &spec,
                                const std::vector<Arg> &args) {
  auto where = [&] {
    return "tensor map " + std::to_string(m) + " (argument " +
           std::to_string(spec.arg) + ")";
  };
  const ViewArg *view =
      spec.arg < args.size() ? std::get_if<ViewArg>(&args[spec.arg]) : nullptr;
  if (!view)
    return Status::error(where() + ": the kernel copies a view there, but the "
                                 "argument is not a view");
  const size_t rank = view->sizes.size();
  if (rank < 1 || rank > 5 || spec.box.size() != rank)
    return Status::error(where() + ": a view of rank " + std::to_string(rank) +
                         " for a box of rank " +
                         std::to_string(spec.box.size()) +
                         " (TMA copies ranks 1..5)");
  const int eb = view->elementBytes;
  for (size_t d = 0; d < rank; ++d) {
    if (spec.box[d] < 1 || spec.box[d] > 256)
      return Status::error(where() + ": box " + joinInts(spec.box) +
                           " has an extent outside 1..256");
    if (view->sizes[d] < 1 || view->sizes[d] > (int64_t{1} << 32))
      return Status::error(where() + ": the TMA cannot read a view of sizes " +
                           joinInts(view->sizes) +
                           " (each must be 1..2^32)");
  }
  // The kernel copies rows of exactly the swizzle span: another element
  // size than it was compiled for would deliver fewer or more bytes than it
  // waits for.
  if (spec.swizzleBytes == 0) {
    if (eb != spec.elementBytes)
      return Status::error(where() + ": elements of " + std::to_string(eb) +
                           " bytes, but the kernel copies elements of " +
                           std::to_string(spec.elementBytes) +
                           ": the view's element size is not the kernel's");
    if ((spec.box.back() * eb) % 16 != 0)
      return Status::error(where() + ": box rows of " +
                           std::to_string(spec.box.back() * eb) +
                           " bytes are not whole 16-byte chunks");
  } else if (spec.box.back() * eb != spec.swizzleBytes)
    return Status::error(where() + ": box rows of " +
                         std::to_string(spec.box.back() * eb) +
                         " bytes (" + std::to_string(spec.box.back()) +
                         " elements of " + std::to_string(eb) +
                         " bytes) instead of the swizzle span of " +
                         std::to_string(spec.swizzleBytes) +
                         ": the view's element size is not the kernel's");
  if (spec.store && (view->sizes.back() * eb) % 16 != 0)
    return Status::error(
        where() + ": the kernel stores through the TMA, which writes whole "
                "16-byte chunks along the last dimension: its extent must be "
                "a multiple of 16 bytes, got " +
        std::to_string(view->sizes.back()) + " elements of " +
        std::to_string(eb) + " bytes");
  if (view->ptr % 16 != 0)
    return Status::error(where() + ": the TMA needs a 16-byte aligned base "
                                 "address, got " +
                         hex(view->ptr));
  if (view->strides.back() != 1)
    return Status::error(where() + ": the TMA needs unit stride along the last "
                                 "dimension, got " +
                         std::to_string(view->strides.back()));
  for (size_t d = 0; d + 1 < rank; ++d) {
    const int64_t stride = view->strides[d];
    if (stride <= 0 || !isMultipleOf16(stride, eb) ||
        stride > (int64_t{1} << 40) / eb)
      return Status::error(
          where() + ": the TMA needs every stride but the last to be a "
                  "positive multiple of 16 bytes below 2^40 bytes; stride " +
          std::to_string(d) + " is " + std::to_string(stride) +
          " elements of " + std::to_string(eb) + " bytes");
  }
  return Status::success();
}

Status validateLaunch(const LaunchConfig &config, const std::vector<Arg> &args,
                      const KernelLimits &limits,
                      const std::vector<TensorMapSpec> &maps) {
  TESSEL_RT_TRY(validateShape(config, limits));
  for (size_t i = 0; i < args.size(); ++i) {
    if (const auto *view = std::get_if<ViewArg>(&args[i]))
      TESSEL_RT_TRY(validateView(i, *view));
    else if (args[i].valueless_by_exception())
      return Status::error("argument " + std::to_string(i) + " holds no value");
  }
  // An empty grid launches nothing: no map is encoded.
  const Dim3 &g = config.grid;
  if (g.x == 0 || g.y == 0 || g.z == 0)
    return Status::success();
  for (size_t m = 0; m < maps.size(); ++m)
    TESSEL_RT_TRY(validateTensorMap(m, maps[m], args));
  return Status::success();
}

Status checkSignature(const PackedArgs &packed,
                      const std::vector<ParamInfo> &expected) {
  const std::vector<ParamSlot> &slots = packed.slots();
  const size_t common = std::min(slots.size(), expected.size());
  for (size_t i = 0; i < common; ++i) {
    if (slots[i].offset == expected[i].offset &&
        slots[i].size == expected[i].size)
      continue;
    // The driver aligns a tensor map to 64 bytes of the constant bank the
    // parameters live in, whose base differs between GPUs (0x210 on sm_90:
    // offsets 48 mod 64): only its size must agree (each parameter is copied
    // from its own pointer, so the packed buffer's offsets do not matter).
    if (slots[i].kind == ParamKind::TensorMap &&
        slots[i].size == expected[i].size)
      continue;
    return Status::error(
        "kernel parameter " + std::to_string(i) + " is " +
        std::to_string(expected[i].size) + " bytes at offset " +
        std::to_string(expected[i].offset) + ", but the arguments put " +
        describeSlot(slots[i]) + " there, " + std::to_string(slots[i].size) +
        " bytes at offset " + std::to_string(slots[i].offset));
  }
  if (slots.size() != expected.size()) {
    std::string message = "the kernel takes " +
                          std::to_string(expected.size()) +
                          " parameters but the arguments pack into " +
                          std::to_string(slots.size());
    if (slots.size() > expected.size())
      message += "; the first extra one is " + describeSlot(slots[common]);
    return Status::error(message);
  }
  return Status::success();
}

} // namespace tessel::rt
