//===- Runtime.h - load and launch tessel kernels ---------------*- C++ -*-===//
//
// The host side of tessel on the CUDA driver API: open a device, load the
// cubin built for it, launch kernels with arguments packed per the kernel ABI
// (KernelAbi.h), time them, and move data. Every driver call is checked; a
// failure comes back as a Status naming the call, the CUresult and, for
// kernels, the kernel.
//
// Usage:
//   tessel::rt::Context ctx;
//   TRY(tessel::rt::init(0, &ctx));
//   tessel::rt::Module module;
//   TRY(tessel::rt::Module::load({{"sm_90a", cubin90, size90},
//                                 {"sm_100a", cubin100, size100}}, &module));
//   tessel::rt::Kernel kernel;
//   TRY(module.getKernel("scale", &kernel));
//   TRY(kernel.launch({gx, gy}, /*numWarps=*/4, {xView, yView, 2.0f}, stream));
//
// Lifetimes: a Module must outlive its Kernels, and the Context (or another
// retain of the device's primary context) everything else. Driver calls act
// on the calling thread's current context: init makes it current on its
// thread; call Context::makeCurrent on others.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_RUNTIME_H
#define TESSEL_RUNTIME_RUNTIME_H

#include "runtime/Images.h"
#include "runtime/KernelAbi.h"
#include "runtime/Stats.h"
#include "runtime/Status.h"
#include "runtime/Tuning.h"

#include <cuda.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace tessel::rt {

static_assert(std::is_same_v<DevicePtr, CUdeviceptr>,
              "KernelAbi.h's DevicePtr must be the driver's CUdeviceptr");

/// Success, or an error "<call> failed[ for <what>]: <CUresult name>
/// (<description>)".
Status checkCu(CUresult result, const char *call, std::string_view what = {});

/// What init learned about the device.
struct DeviceInfo {
  int ordinal = -1;
  std::string name;
  int ccMajor = 0, ccMinor = 0; // compute capability
  int smCount = 0;
  size_t totalMemoryBytes = 0;
  int maxThreadsPerBlock = 0;
  int64_t maxGrid[3] = {0, 0, 0};
  size_t maxSharedPerBlockOptin = 0;
  int l2CacheBytes = 0;

  /// The arch-specific target this device runs: "sm_90a" for an H200.
  std::string target() const { return archSpecificTarget(ccMajor, ccMinor); }
  /// "NVIDIA H200 (device 0): compute capability 9.0 (sm_90a), 132 SMs, …".
  std::string describe() const;
};

/// Queries `device` (no context needed).
Status queryDevice(CUdevice device, DeviceInfo *out);

/// The arch-specific target ("sm_90a") of the device of the calling thread's
/// current context; cached per context, cheap enough for every launch.
Status currentTarget(std::string *out);

/// A retained primary context of one device.
class Context {
public:
  Context() = default;
  ~Context();
  Context(Context &&other) noexcept;
  Context &operator=(Context &&other) noexcept;
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  const DeviceInfo &device() const { return info_; }
  CUcontext get() const { return context_; }
  CUdevice cuDevice() const { return device_; }
  /// Makes this context current on the calling thread.
  Status makeCurrent() const;
  /// Waits for all work on the device (cuCtxSynchronize): where an earlier
  /// asynchronous failure (a faulting kernel) is reported.
  Status synchronize() const;

private:
  friend Status init(int device, Context *out);
  void release();
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  DeviceInfo info_;
};

/// Initialises the driver, retains `device`'s primary context, makes it
/// current on the calling thread, and queries the device (compute
/// capability, SM count, limits) into `out->device()`.
Status init(int device, Context *out);

/// Kernel attributes the driver reports, for checks and reports.
struct KernelAttributes {
  int numRegs = 0;
  size_t staticSharedBytes = 0;
  size_t localBytesPerThread = 0; // spills and local arrays
  size_t constBytes = 0;
  int maxThreadsPerBlock = 0;
  /// Dynamic shared memory a launch may use before the opt-in.
  size_t maxDynamicSharedBytes = 0;
  int ptxVersion = 0, binaryVersion = 0; // 90 for 9.0
  Dim3 requiredCluster{0, 0, 0};         // all zero when none is compiled in
  bool clusterSizeMustBeSet = false;
};

/// A kernel of a loaded Module. Cheap to copy; valid while its Module lives.
class Kernel {
public:
  Kernel() = default;
  Kernel(const Kernel &other);
  Kernel &operator=(const Kernel &other);

  /// Launches `grid` blocks (programs, for a persistent kernel) of
  /// 32 * numWarps threads on `stream`, with
  /// `args` packed per the ABI. Rejects, before the driver sees them, launch
  /// shapes and arguments that validateLaunch rejects and arguments that do
  /// not match the kernel's parameters; a grid with a zero dimension
  /// launches nothing. A fault inside the kernel shows up later, at the next
  /// synchronising call.
  Status launch(Dim3 grid, int numWarps, const std::vector<Arg> &args,
                CUstream stream, size_t dynamicSharedBytes = 0) const;
  /// The same, with a cluster shape.
  Status launch(const LaunchConfig &config, const std::vector<Arg> &args,
                CUstream stream) const;

  const std::string &name() const { return name_; }
  CUfunction get() const { return function_; }
  const KernelAttributes &attributes() const { return attributes_; }
  const KernelLimits &limits() const { return limits_; }
  /// The parameters the cubin declares; empty with parametersKnown() false
  /// when the driver cannot tell (then launches skip checkSignature).
  const std::vector<ParamInfo> &parameters() const { return parameters_; }
  bool parametersKnown() const { return parametersKnown_; }
  /// The tensor maps the kernel takes after its arguments (TMA loads), from
  /// the table its module exports; each launch encodes them from the views.
  const std::vector<TensorMapSpec> &tensorMaps() const { return tensorMaps_; }
  /// Compiled persistent (hint `persistent`, the table `tessel_grid_<name>`
  /// its module exports): a launch's grid is the logical one, passed to the
  /// kernel after its arguments (three i32), and the launch runs
  /// min(programs, CTAs per SM x SMs) CTAs, the CTAs per SM from the
  /// driver's occupancy for the block and dynamic shared memory.
  bool persistent() const { return persistent_; }
  /// "kernel 'scale': 40 registers, 0 B static shared, 0 B local, …".
  std::string describe() const;

private:
  friend class Module;
  /// The CTAs a launch of `config` runs: the grid's programs, or for a
  /// persistent kernel as many of them as fit on the device at once (after
  /// the shared-memory opt-in: the occupancy counts the dynamic bytes).
  Status physicalGrid(const LaunchConfig &config, Dim3 *out) const;
  CUfunction function_ = nullptr;
  std::string name_;
  KernelAttributes attributes_;
  KernelLimits limits_;
  std::vector<ParamInfo> parameters_;
  bool parametersKnown_ = false;
  std::vector<TensorMapSpec> tensorMaps_;
  bool persistent_ = false;
  int smCount_ = 0;
  // Set once the kernel may use all the shared memory the device allows.
  mutable std::atomic<bool> sharedOptIn_{false};
};

/// A loaded cubin (cuModuleLoadDataEx), unloaded on destruction.
class Module {
public:
  Module() = default;
  ~Module();
  Module(Module &&other) noexcept;
  Module &operator=(Module &&other) noexcept;
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  /// Loads the image of `images` that the current context's device runs
  /// (selectImage); fails listing the available targets and the device's
  /// compute capability when there is none.
  static Status load(const std::vector<Image> &images, Module *out);
  /// Loads a .cubin (or .ptx, .fatbin) file; the driver checks that it fits
  /// the device.
  static Status loadFile(const std::string &path, Module *out);

  /// Looks up a kernel by its symbol name and queries its attributes.
  Status getKernel(const std::string &name, Kernel *out) const;

  /// The target of the loaded image, or the path of the loaded file.
  const std::string &source() const { return source_; }
  const DeviceInfo &device() const { return device_; }
  CUmodule get() const { return module_; }

private:
  static Status loadImage(const void *data, const std::string &source,
                          Module *out);
  void unload();
  CUmodule module_ = nullptr;
  std::string source_;
  DeviceInfo device_;
};

/// An owned stream. The default flags make it synchronise with the legacy
/// default stream, so that the synchronous DeviceBuffer copies below wait
/// for kernels launched on it; CU_STREAM_NON_BLOCKING opts out of that.
class Stream {
public:
  Stream() = default;
  ~Stream();
  Stream(Stream &&other) noexcept;
  Stream &operator=(Stream &&other) noexcept;
  Stream(const Stream &) = delete;
  Stream &operator=(const Stream &) = delete;

  static Status create(Stream *out, unsigned flags = CU_STREAM_DEFAULT);
  CUstream get() const { return stream_; }
  Status synchronize() const;

private:
  CUstream stream_ = nullptr;
};

/// An owned event.
class Event {
public:
  Event() = default;
  ~Event();
  Event(Event &&other) noexcept;
  Event &operator=(Event &&other) noexcept;
  Event(const Event &) = delete;
  Event &operator=(const Event &) = delete;

  static Status create(Event *out, unsigned flags = CU_EVENT_DEFAULT);
  CUevent get() const { return event_; }
  Status record(CUstream stream) const;
  Status synchronize() const;
  /// Device time between two recorded, completed events.
  static Status elapsedMs(const Event &start, const Event &stop, float *ms);

private:
  CUevent event_ = nullptr;
};

/// Runs `fn` (which enqueues work on `stream`, e.g. a launch) `warmup`
/// times, then `iters` times between a pair of events each, and stores each
/// timed iteration's device time in `*ms`. With `l2FlushBytes` > 0, a buffer
/// of that size is overwritten before every run, outside the timed span, so
/// that inputs are not served from L2 (use at least twice the L2 size).
/// Returns after the stream has drained, on success and on failure.
Status timeKernel(const std::function<Status()> &fn, int warmup, int iters,
                  CUstream stream, std::vector<float> *ms,
                  size_t l2FlushBytes = 0);

/// Owned device memory.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer &&other) noexcept;
  DeviceBuffer &operator=(DeviceBuffer &&other) noexcept;
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  /// cuMemAlloc (256-byte aligned); zero bytes gives a null buffer.
  static Status allocate(size_t bytes, DeviceBuffer *out);

  DevicePtr ptr() const { return ptr_; }
  size_t size() const { return size_; }

  /// Synchronous copies of `bytes` at byte `offset` of the buffer; they
  /// fail without copying when the range falls outside it.
  Status copyFromHost(const void *src, size_t bytes, size_t offset = 0);
  Status copyToHost(void *dst, size_t bytes, size_t offset = 0) const;
  template <class T> Status copyFromHost(const std::vector<T> &src) {
    static_assert(std::is_trivially_copyable_v<T>);
    return copyFromHost(src.data(), src.size() * sizeof(T));
  }
  /// Resizes `dst` to hold the whole buffer (size() / sizeof(T) elements).
  template <class T> Status copyToHost(std::vector<T> *dst) const {
    static_assert(std::is_trivially_copyable_v<T>);
    dst->resize(size_ / sizeof(T));
    return copyToHost(dst->data(), dst->size() * sizeof(T));
  }
  /// Stream-ordered copies; the host memory must stay valid (and, for a
  /// download, unread) until the stream reaches them.
  Status copyFromHostAsync(const void *src, size_t bytes, CUstream stream,
                           size_t offset = 0);
  Status copyToHostAsync(void *dst, size_t bytes, CUstream stream,
                         size_t offset = 0) const;

  /// Sets every byte to `byte` (cuMemsetD8): poison outputs before a kernel
  /// runs (0xFF makes every float a NaN) so that unwritten elements show.
  Status fill(uint8_t byte);
  Status fillAsync(uint8_t byte, CUstream stream);

private:
  Status checkRange(const char *what, size_t bytes, size_t offset) const;
  DevicePtr ptr_ = 0;
  size_t size_ = 0;
};

} // namespace tessel::rt

#endif // TESSEL_RUNTIME_RUNTIME_H
