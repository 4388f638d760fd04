//===- KernelAbi.h - kernel arguments and launch checks ---------*- C++ -*-===//
//
// The calling convention between tessel-compiled kernels and the host, and the
// checks a launch must pass before it reaches the driver. Nothing here calls
// the CUDA driver, so all of it is tested on machines without a GPU
// (runtime/test/RuntimeSelfTest.cpp).
//
// The ABI: kernel parameters are the kernel's arguments in order, each
// expanded to
//   - a view of rank R (a strided tensor): 1 + 2R parameters, the device
//     pointer (u64), then the R sizes (i64 each), then the R strides in
//     elements (i64 each);
//   - a scalar: one parameter of its type, f32, i32 or i64.
// Each parameter sits at the next offset aligned to its own size, which is
// the layout the driver reports for a kernel (cuFuncGetParamInfo). A kernel
// that loads through the tensor memory accelerator (TMA) takes, after its
// arguments, one CUtensorMap per map it lists (TensorMapSpec): 128 bytes at
// a 64-byte aligned offset, encoded by the launch from the view argument the
// map describes. A launch uses blocks of (32 * numWarps, 1, 1) threads. A
// persistent kernel (the table `tessel_grid_<kernel>` its module exports)
// takes three i32 parameters after its arguments, before the tensor maps:
// the logical grid (Runtime.cpp, Kernel::launch).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_KERNELABI_H
#define TESSEL_RUNTIME_KERNELABI_H

#include "runtime/Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace tessel::rt {

/// A device address; the same type as the driver's CUdeviceptr (Runtime.h
/// checks), spelled here so that this half of the runtime needs no CUDA
/// header.
using DevicePtr = unsigned long long;

/// What a kernel assumes about a view argument. The launch checks each
/// assumption, because a kernel compiled with it reads wrong data or faults
/// when it does not hold.
enum ViewFlags : unsigned {
  /// The base address, and every stride but the last times the element size,
  /// are multiples of 16 bytes (vector loads, TMA).
  kAligned16 = 1,
  /// The stride of the last dimension is 1.
  kUnitStride = 2,
};

/// A strided tensor in device memory.
struct ViewArg {
  DevicePtr ptr = 0;
  int elementBytes = 0; // 1, 2, 4, 8 or 16
  std::vector<int64_t> sizes;
  std::vector<int64_t> strides; // in elements, one per size
  unsigned flags = 0;           // ViewFlags
};

/// A row-major (last dimension contiguous) view of `sizes`.
ViewArg contiguousView(DevicePtr ptr, int elementBytes,
                       std::vector<int64_t> sizes, unsigned flags = 0);

/// One kernel argument. An `int` converts to int32_t; pass int64_t{…} or
/// float{…} explicitly for the other scalar types (a double or size_t does not
/// convert, by design).
using Arg = std::variant<ViewArg, float, int32_t, int64_t>;

/// What one packed kernel parameter holds.
enum class ParamKind : uint8_t {
  Pointer,
  Size,
  Stride,
  F32,
  I32,
  I64,
  TensorMap
};

/// A tensor map a kernel takes after its arguments: the view argument it
/// describes and the box one copy moves, per view dimension (the view's
/// order, last dimension contiguous). Encoded at launch with the box's rows
/// swizzled over `swizzleBytes` (128), or unswizzled (0: a copy the kernel
/// reads into registers), out-of-bounds elements read as zero.
struct TensorMapSpec {
  size_t arg = 0;
  std::vector<int64_t> box;
  int swizzleBytes = 128;
  /// The kernel stores through the map (the engine then writes whole 16-byte
  /// chunks along the last dimension: its extent must be a multiple of 16
  /// bytes).
  bool store = false;
  /// The element size an unswizzled map was compiled for (0: unsaid; a
  /// swizzled map's rows say it: one swizzle span).
  int elementBytes = 0;
  bool operator==(const TensorMapSpec &) const = default;
};

/// The bytes of one CUtensorMap parameter.
inline constexpr size_t kTensorMapBytes = 128;

/// Reads the table a kernel's module exports as `tessel_tma_<kernel>`
/// (int32 words: 1 (the version), the number of maps, then per map its
/// argument index, the view's rank (1..5), the swizzle span in bytes (128,
/// or 0: unswizzled) and the box per view dimension padded to 5 entries;
/// version 2 adds a flags word: bit 0 a store, bits 8-15 an unswizzled
/// map's element size). Rejects a table it does not understand.
Status parseTensorMapTable(const int32_t *words, size_t count,
                           std::vector<TensorMapSpec> *out);

/// One kernel parameter: where it sits in the parameter buffer, and which
/// argument (and, for a view, which dimension) it came from.
struct ParamSlot {
  size_t offset = 0;
  size_t size = 0;
  ParamKind kind = ParamKind::I64;
  size_t argIndex = 0;
  int dim = -1; // for sizes and strides; -1 otherwise
};

/// "argument 2 (view) stride 1", for messages.
std::string describeSlot(const ParamSlot &slot);

/// The kernel parameters of one launch, packed per the ABI: a parameter
/// buffer with each value at its offset, and one pointer per parameter into
/// it (cuLaunchKernel's `kernelParams`). Copying would leave the pointers
/// aimed at the original's buffer, so it is move-only; a move keeps them
/// valid (the buffer itself does not move).
class PackedArgs {
public:
  PackedArgs() = default;
  PackedArgs(const PackedArgs &) = delete;
  PackedArgs &operator=(const PackedArgs &) = delete;
  PackedArgs(PackedArgs &&) = default;
  PackedArgs &operator=(PackedArgs &&) = default;

  /// One pointer per parameter, for cuLaunchKernel.
  void **kernelParams() { return pointers_.data(); }
  size_t numParams() const { return slots_.size(); }
  const std::vector<ParamSlot> &slots() const { return slots_; }
  /// The parameter buffer: `size()` bytes, each parameter at its offset.
  const unsigned char *data() const {
    return reinterpret_cast<const unsigned char *>(storage_.data());
  }
  /// Where parameter `i` sits in the buffer, to write it (the launch
  /// encodes the tensor maps there).
  unsigned char *slotData(size_t i) {
    return reinterpret_cast<unsigned char *>(storage_.data()) +
           slots_[i].offset;
  }
  size_t size() const { return size_; }

private:
  friend Status packArguments(const std::vector<Arg> &args, PackedArgs *out,
                              const std::vector<TensorMapSpec> &maps);
  std::vector<uint64_t> storage_; // uint64_t: 8-byte alignment for every slot
  size_t size_ = 0;
  std::vector<ParamSlot> slots_;
  std::vector<void *> pointers_;
};

/// The most parameter bytes a launch may pass (CUDA 12.1+, Volta and newer).
inline constexpr size_t kMaxParamBytes = 32764;

/// Packs `args` per the ABI into `*out` (replacing what it held), with a
/// zeroed TensorMap slot per entry of `maps` after them (ParamSlot::argIndex
/// is then the map's index in `maps`). Fails only when an argument cannot be
/// packed at all (a view whose sizes and strides differ in rank, or more
/// than kMaxParamBytes); validateLaunch checks the rest.
Status packArguments(const std::vector<Arg> &args, PackedArgs *out,
                     const std::vector<TensorMapSpec> &maps = {});

/// Grid or cluster dimensions. Signed so that a negative value computed by a
/// caller is reported instead of wrapping to a huge unsigned one.
struct Dim3 {
  int64_t x = 1, y = 1, z = 1;
  bool operator==(const Dim3 &) const = default;
};

struct LaunchConfig {
  /// Blocks per dimension; any zero means "launch nothing".
  Dim3 grid;
  /// Warps per block: the block is (32 * numWarps, 1, 1).
  int numWarps = 4;
  size_t dynamicSharedBytes = 0;
  /// Thread-block cluster, (1, 1, 1) for none. A kernel whose cluster shape
  /// is compiled in takes that shape; pass (1, 1, 1) or the same shape.
  Dim3 cluster;
  /// Programmatic dependent launch: the kernel may start before the
  /// previous one in the stream completes. Only for kernels compiled for it
  /// (hint `pdl`: they wait for their predecessors before touching memory).
  bool programmaticLaunch = false;
  /// A persistent kernel's CTAs (Kernel::persistent): 0 runs as many as
  /// fit on the device at once (the driver's occupancy x SMs); N > 0 runs
  /// min(programs, N) (tests, tuning). Ignored for other kernels.
  int64_t persistentCtas = 0;
};

/// What the device and the kernel allow. The defaults are the limits of
/// every GPU tessel targets; Kernel fills in the kernel's own.
struct KernelLimits {
  int64_t maxGridX = (int64_t{1} << 31) - 1;
  int64_t maxGridY = 65535;
  int64_t maxGridZ = 65535;
  /// The kernel's limit (it depends on its register count); at most 1024.
  int maxThreadsPerBlock = 1024;
  int numRegs = 0; // for messages; 0 when unknown
  size_t staticSharedBytes = 0;
  /// Static plus dynamic shared memory a block may use, with the opt-in
  /// attribute set; 0 when unknown (then only the driver checks).
  size_t maxSharedPerBlockOptin = 0;
  /// The cluster shape compiled into the kernel; all zero when none.
  Dim3 requiredCluster{0, 0, 0};
  /// Blocks per cluster without the non-portable opt-in.
  int64_t maxClusterBlocks = 8;
};

/// Checks a launch before it reaches the driver: the grid, warps, shared
/// memory and cluster shape against `limits`, and every argument (a null
/// pointer with a non-empty extent, rank mismatches, negative sizes, unknown
/// flags, and views whose kAligned16 or kUnitStride assumption does not
/// hold). Messages name the offending argument by index. A grid with a zero
/// dimension is valid (the launch does nothing), and its arguments are still
/// checked.
///
/// With `maps` (a TMA kernel's tensor maps) and a non-empty grid, each map's
/// view must also be one the tensor memory accelerator can read: rank 1..5
/// equal to the box's, a non-empty extent below 2^32 per dimension, a base
/// address and every stride but the last (positive, below 2^40 bytes) a
/// multiple of 16 bytes, unit stride along the last dimension, and a box of
/// 1..256 elements per dimension whose rows fit the swizzle span (unswizzled:
/// rows of whole 16-byte chunks, of the element size compiled for).
Status validateLaunch(const LaunchConfig &config, const std::vector<Arg> &args,
                      const KernelLimits &limits = {},
                      const std::vector<TensorMapSpec> &maps = {});

/// The cluster shape a launch runs with: the kernel's compiled-in one, else
/// `config.cluster`. Assumes validateLaunch passed.
Dim3 effectiveCluster(const LaunchConfig &config, const KernelLimits &limits);

/// One parameter as the compiled kernel declares it (cuFuncGetParamInfo).
struct ParamInfo {
  size_t offset = 0;
  size_t size = 0;
};

/// Checks that the packed arguments match the kernel's declared parameters
/// one for one: the same count, and each parameter at the same offset with
/// the same size (for tensor maps, the same size: see the .cpp). Catches a launcher and a kernel that disagree on the ABI
/// (a missing argument, an i32 passed for an i64, a view of the wrong rank).
Status checkSignature(const PackedArgs &packed,
                      const std::vector<ParamInfo> &expected);

} // namespace tessel::rt

#endif // TESSEL_RUNTIME_KERNELABI_H
