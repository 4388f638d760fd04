//===- Runtime.cpp - load and launch tessel kernels -----------------------===//

#include "runtime/Runtime.h"

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <utility>

namespace tessel::rt {

Status checkCu(CUresult result, const char *call, std::string_view what) {
  if (result == CUDA_SUCCESS)
    return Status::success();
  std::string message = std::string(call) + " failed";
  if (!what.empty())
    message += " for " + std::string(what);
  message += ": ";
  const char *name = nullptr;
  if (cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    message += name;
  else
    message += "CUresult " + std::to_string(static_cast<int>(result));
  const char *text = nullptr;
  if (cuGetErrorString(result, &text) == CUDA_SUCCESS && text)
    message += " (" + std::string(text) + ")";
  return Status::error(std::move(message));
}

static std::string dims(const Dim3 &d) {
  return "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " +
         std::to_string(d.z) + ")";
}

//===----------------------------------------------------------------------===//
// Devices and contexts
//===----------------------------------------------------------------------===//

std::string DeviceInfo::describe() const {
  return name + " (device " + std::to_string(ordinal) +
         "): compute capability " + std::to_string(ccMajor) + "." +
         std::to_string(ccMinor) + " (" + target() + "), " +
         std::to_string(smCount) + " SMs, " +
         std::to_string(totalMemoryBytes >> 20) + " MiB, " +
         std::to_string(l2CacheBytes >> 20) + " MiB L2, " +
         std::to_string(maxSharedPerBlockOptin) + " B shared per block";
}

Status queryDevice(CUdevice device, DeviceInfo *out) {
  DeviceInfo info;
  info.ordinal = static_cast<int>(device);
  char name[256] = {};
  TESSEL_RT_TRY(checkCu(cuDeviceGetName(name, sizeof(name) - 1, device),
                        "cuDeviceGetName"));
  info.name = name;
  TESSEL_RT_TRY(checkCu(cuDeviceTotalMem(&info.totalMemoryBytes, device),
                        "cuDeviceTotalMem"));
  auto attribute = [&](CUdevice_attribute attr, const char *attrName,
                       int *value) {
    return checkCu(cuDeviceGetAttribute(value, attr, device),
                   "cuDeviceGetAttribute", attrName);
  };
  int gridX = 0, gridY = 0, gridZ = 0, sharedOptin = 0;
  TESSEL_RT_TRY(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                          "COMPUTE_CAPABILITY_MAJOR", &info.ccMajor));
  TESSEL_RT_TRY(attribute(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                          "COMPUTE_CAPABILITY_MINOR", &info.ccMinor));
  TESSEL_RT_TRY(attribute(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
                          "MULTIPROCESSOR_COUNT", &info.smCount));
  TESSEL_RT_TRY(attribute(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                          "MAX_THREADS_PER_BLOCK", &info.maxThreadsPerBlock));
  TESSEL_RT_TRY(
      attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, "MAX_GRID_DIM_X", &gridX));
  TESSEL_RT_TRY(
      attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y, "MAX_GRID_DIM_Y", &gridY));
  TESSEL_RT_TRY(
      attribute(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z, "MAX_GRID_DIM_Z", &gridZ));
  TESSEL_RT_TRY(attribute(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                          "MAX_SHARED_MEMORY_PER_BLOCK_OPTIN", &sharedOptin));
  TESSEL_RT_TRY(attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, "L2_CACHE_SIZE",
                          &info.l2CacheBytes));
  info.maxGrid[0] = gridX;
  info.maxGrid[1] = gridY;
  info.maxGrid[2] = gridZ;
  info.maxSharedPerBlockOptin = static_cast<size_t>(sharedOptin);
  *out = std::move(info);
  return Status::success();
}

Context::~Context() { release(); }

Context::Context(Context &&other) noexcept
    : device_(other.device_), context_(std::exchange(other.context_, nullptr)),
      info_(std::move(other.info_)) {}

Context &Context::operator=(Context &&other) noexcept {
  if (this != &other) {
    release();
    device_ = other.device_;
    context_ = std::exchange(other.context_, nullptr);
    info_ = std::move(other.info_);
  }
  return *this;
}

void Context::release() {
  // Nothing to report to from a destructor; at process exit the driver may
  // already be shutting down.
  if (context_)
    (void)cuDevicePrimaryCtxRelease(device_);
  context_ = nullptr;
}

Status Context::makeCurrent() const {
  if (!context_)
    return Status::error("makeCurrent on an uninitialised Context");
  return checkCu(cuCtxSetCurrent(context_), "cuCtxSetCurrent");
}

Status Context::synchronize() const {
  return checkCu(cuCtxSynchronize(), "cuCtxSynchronize");
}

Status init(int device, Context *out) {
  TESSEL_RT_TRY(checkCu(cuInit(0), "cuInit"));
  int count = 0;
  TESSEL_RT_TRY(checkCu(cuDeviceGetCount(&count), "cuDeviceGetCount"));
  if (device < 0 || device >= count)
    return Status::error("device " + std::to_string(device) +
                         " requested, but there are " + std::to_string(count) +
                         " CUDA devices");
  Context context;
  TESSEL_RT_TRY(checkCu(cuDeviceGet(&context.device_, device), "cuDeviceGet"));
  TESSEL_RT_TRY(
      checkCu(cuDevicePrimaryCtxRetain(&context.context_, context.device_),
              "cuDevicePrimaryCtxRetain"));
  TESSEL_RT_TRY(context.makeCurrent());
  TESSEL_RT_TRY(queryDevice(context.device_, &context.info_));
  context.info_.ordinal = device;
  *out = std::move(context);
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Modules
//===----------------------------------------------------------------------===//

Module::~Module() { unload(); }

Module::Module(Module &&other) noexcept
    : module_(std::exchange(other.module_, nullptr)),
      source_(std::move(other.source_)), device_(std::move(other.device_)) {}

Module &Module::operator=(Module &&other) noexcept {
  if (this != &other) {
    unload();
    module_ = std::exchange(other.module_, nullptr);
    source_ = std::move(other.source_);
    device_ = std::move(other.device_);
  }
  return *this;
}

void Module::unload() {
  if (module_)
    (void)cuModuleUnload(module_);
  module_ = nullptr;
}

/// The device of the calling thread's current context.
static Status currentDevice(DeviceInfo *out) {
  CUdevice device = 0;
  CUresult result = cuCtxGetDevice(&device);
  if (result != CUDA_SUCCESS)
    return checkCu(result, "cuCtxGetDevice")
        .withContext("no usable CUDA context is current on this thread "
                     "(call tessel::rt::init or Context::makeCurrent first)");
  return queryDevice(device, out);
}

Status currentTarget(std::string *out) {
  thread_local CUcontext cachedContext = nullptr;
  thread_local std::string cachedTarget;
  CUcontext context = nullptr;
  if (cuCtxGetCurrent(&context) != CUDA_SUCCESS || !context)
    return Status::error("no CUDA context is current on this thread (call "
                         "tessel::rt::init or Context::makeCurrent first)");
  if (context != cachedContext) {
    CUdevice device = 0;
    TESSEL_RT_TRY(checkCu(cuCtxGetDevice(&device), "cuCtxGetDevice"));
    int major = 0, minor = 0;
    TESSEL_RT_TRY(checkCu(
        cuDeviceGetAttribute(&major,
                             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
                             device),
        "cuDeviceGetAttribute"));
    TESSEL_RT_TRY(checkCu(
        cuDeviceGetAttribute(&minor,
                             CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
                             device),
        "cuDeviceGetAttribute"));
    cachedTarget = archSpecificTarget(major, minor);
    cachedContext = context;
  }
  *out = cachedTarget;
  return Status();
}

Status Module::loadImage(const void *data, const std::string &source,
                         Module *out) {
  // A cubin needs no JIT, but a PTX image does, and its log says why it
  // failed.
  char errorLog[8192] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {errorLog,
                    reinterpret_cast<void *>(uintptr_t{sizeof(errorLog) - 1})};
  CUmodule module = nullptr;
  CUresult result = cuModuleLoadDataEx(&module, data, 2, options, values);
  if (result != CUDA_SUCCESS) {
    Status status = checkCu(result, "cuModuleLoadDataEx", source);
    if (errorLog[0])
      return Status::error(status.message() + "; log: " + errorLog);
    return status;
  }
  Module loaded;
  loaded.module_ = module;
  loaded.source_ = source;
  *out = std::move(loaded);
  return Status::success();
}

Status Module::load(const std::vector<Image> &images, Module *out) {
  DeviceInfo device;
  TESSEL_RT_TRY(currentDevice(&device));
  size_t index = 0;
  TESSEL_RT_TRY(selectImage(images, device.ccMajor, device.ccMinor, &index)
                    .withContext("loading a module on " + device.name));
  const Image &image = images[index];
  Module loaded;
  TESSEL_RT_TRY(loadImage(image.cubin, "image " + image.target, &loaded));
  loaded.device_ = std::move(device);
  *out = std::move(loaded);
  return Status::success();
}

Status Module::loadFile(const std::string &path, Module *out) {
  DeviceInfo device;
  TESSEL_RT_TRY(currentDevice(&device));
  std::ifstream file(path, std::ios::binary);
  if (!file)
    return Status::error("cannot open '" + path + "': " + std::strerror(errno));
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  if (file.bad())
    return Status::error("cannot read '" + path + "'");
  if (bytes.empty())
    return Status::error("'" + path + "' is empty");
  // PTX must be NUL-terminated; a cubin ignores trailing bytes.
  bytes.push_back('\0');
  Module loaded;
  TESSEL_RT_TRY(loadImage(bytes.data(), "'" + path + "'", &loaded));
  loaded.source_ = path;
  loaded.device_ = std::move(device);
  *out = std::move(loaded);
  return Status::success();
}

/// The names of the kernels in `module`, for a "not found" message.
static std::string kernelNames(CUmodule module) {
  unsigned count = 0;
  if (cuModuleGetFunctionCount(&count, module) != CUDA_SUCCESS)
    return "(unknown)";
  std::vector<CUfunction> functions(count);
  if (count && cuModuleEnumerateFunctions(functions.data(), count, module) !=
                   CUDA_SUCCESS)
    return "(unknown)";
  std::string names;
  for (CUfunction function : functions) {
    const char *name = nullptr;
    if (cuFuncGetName(&name, function) == CUDA_SUCCESS && name)
      names += (names.empty() ? "" : ", ") + std::string(name);
  }
  return names.empty() ? "(none)" : names;
}

Status Module::getKernel(const std::string &name, Kernel *out) const {
  if (!module_)
    return Status::error("getKernel('" + name + "') on an unloaded Module");
  const std::string what = "kernel '" + name + "'";
  CUfunction function = nullptr;
  CUresult result = cuModuleGetFunction(&function, module_, name.c_str());
  if (result == CUDA_ERROR_NOT_FOUND)
    return Status::error(
        checkCu(result, "cuModuleGetFunction", what).message() + "; " +
        source_ + " has the kernels: " + kernelNames(module_));
  TESSEL_RT_TRY(checkCu(result, "cuModuleGetFunction", what));

  Kernel kernel;
  kernel.function_ = function;
  kernel.name_ = name;
  KernelAttributes &a = kernel.attributes_;
  auto attribute = [&](CUfunction_attribute attr, const char *attrName,
                       int *value) {
    return checkCu(cuFuncGetAttribute(value, attr, function),
                   "cuFuncGetAttribute",
                   what + " (" + std::string(attrName) + ")");
  };
  int shared = 0, local = 0, constant = 0, dynamicShared = 0, width = 0,
      height = 0, depth = 0, mustBeSet = 0;
  TESSEL_RT_TRY(attribute(CU_FUNC_ATTRIBUTE_NUM_REGS, "NUM_REGS", &a.numRegs));
  TESSEL_RT_TRY(attribute(CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES,
                          "SHARED_SIZE_BYTES", &shared));
  TESSEL_RT_TRY(attribute(CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES,
                          "LOCAL_SIZE_BYTES", &local));
  TESSEL_RT_TRY(attribute(CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES,
                          "CONST_SIZE_BYTES", &constant));
  TESSEL_RT_TRY(attribute(CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                          "MAX_THREADS_PER_BLOCK", &a.maxThreadsPerBlock));
  TESSEL_RT_TRY(attribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                          "MAX_DYNAMIC_SHARED_SIZE_BYTES", &dynamicShared));
  TESSEL_RT_TRY(
      attribute(CU_FUNC_ATTRIBUTE_PTX_VERSION, "PTX_VERSION", &a.ptxVersion));
  TESSEL_RT_TRY(attribute(CU_FUNC_ATTRIBUTE_BINARY_VERSION, "BINARY_VERSION",
                          &a.binaryVersion));
  TESSEL_RT_TRY(attribute(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_WIDTH,
                          "REQUIRED_CLUSTER_WIDTH", &width));
  TESSEL_RT_TRY(attribute(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_HEIGHT,
                          "REQUIRED_CLUSTER_HEIGHT", &height));
  TESSEL_RT_TRY(attribute(CU_FUNC_ATTRIBUTE_REQUIRED_CLUSTER_DEPTH,
                          "REQUIRED_CLUSTER_DEPTH", &depth));
  TESSEL_RT_TRY(attribute(CU_FUNC_ATTRIBUTE_CLUSTER_SIZE_MUST_BE_SET,
                          "CLUSTER_SIZE_MUST_BE_SET", &mustBeSet));
  a.staticSharedBytes = static_cast<size_t>(shared);
  a.localBytesPerThread = static_cast<size_t>(local);
  a.constBytes = static_cast<size_t>(constant);
  a.maxDynamicSharedBytes = static_cast<size_t>(dynamicShared);
  a.requiredCluster = {width, height, depth};
  a.clusterSizeMustBeSet = mustBeSet != 0;

  // The tensor maps of a kernel that loads through the TMA: the table its
  // module exports beside it (none when there is no such table).
  CUdeviceptr table = 0;
  size_t tableBytes = 0;
  const std::string tableName = "tessel_tma_" + name;
  result = cuModuleGetGlobal(&table, &tableBytes, module_, tableName.c_str());
  if (result == CUDA_SUCCESS) {
    std::vector<int32_t> words(tableBytes / sizeof(int32_t));
    TESSEL_RT_TRY(checkCu(
        cuMemcpyDtoH(words.data(), table, words.size() * sizeof(int32_t)),
        "cuMemcpyDtoH", what + " (" + tableName + ")"));
    TESSEL_RT_TRY(
        parseTensorMapTable(words.data(), words.size(), &kernel.tensorMaps_)
            .withContext(what));
  } else if (result != CUDA_ERROR_NOT_FOUND) {
    TESSEL_RT_TRY(checkCu(result, "cuModuleGetGlobal", what + " (" +
                                                           tableName + ")"));
  }

  // A persistent kernel: the table its module exports beside it (version,
  // flags; bit 0: persistent).
  const std::string gridName = "tessel_grid_" + name;
  result = cuModuleGetGlobal(&table, &tableBytes, module_, gridName.c_str());
  if (result == CUDA_SUCCESS) {
    int32_t words[2] = {0, 0};
    if (tableBytes < sizeof(words))
      return Status::error(what + ": " + gridName + " holds " +
                           std::to_string(tableBytes) + " bytes, not 8");
    TESSEL_RT_TRY(checkCu(cuMemcpyDtoH(words, table, sizeof(words)),
                          "cuMemcpyDtoH", what + " (" + gridName + ")"));
    if (words[0] != 1)
      return Status::error(what + ": " + gridName +
                           ": unknown format (version " +
                           std::to_string(words[0]) + ")");
    kernel.persistent_ = (words[1] & 1) != 0;
  } else if (result != CUDA_ERROR_NOT_FOUND) {
    TESSEL_RT_TRY(checkCu(result, "cuModuleGetGlobal",
                          what + " (" + gridName + ")"));
  }
  kernel.smCount_ = device_.smCount;

  KernelLimits &limits = kernel.limits_;
  limits.maxGridX = device_.maxGrid[0];
  limits.maxGridY = device_.maxGrid[1];
  limits.maxGridZ = device_.maxGrid[2];
  limits.maxThreadsPerBlock = a.maxThreadsPerBlock;
  limits.numRegs = a.numRegs;
  limits.staticSharedBytes = a.staticSharedBytes;
  limits.maxSharedPerBlockOptin = device_.maxSharedPerBlockOptin;
  limits.requiredCluster = a.requiredCluster;

  // The parameter layout, to catch a launcher that disagrees with the
  // kernel. The driver answers CUDA_ERROR_INVALID_VALUE past the last
  // parameter; a kernel that seems to have none is treated as unknown, since
  // that is also what a driver lacking the information would say.
  for (size_t i = 0;; ++i) {
    size_t offset = 0, size = 0;
    result = cuFuncGetParamInfo(function, i, &offset, &size);
    if (result != CUDA_SUCCESS) {
      kernel.parametersKnown_ =
          result == CUDA_ERROR_INVALID_VALUE && !kernel.parameters_.empty();
      if (!kernel.parametersKnown_)
        kernel.parameters_.clear();
      break;
    }
    kernel.parameters_.push_back({offset, size});
  }
  *out = kernel;
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

Kernel::Kernel(const Kernel &other)
    : function_(other.function_), name_(other.name_),
      attributes_(other.attributes_), limits_(other.limits_),
      parameters_(other.parameters_), parametersKnown_(other.parametersKnown_),
      tensorMaps_(other.tensorMaps_), persistent_(other.persistent_),
      smCount_(other.smCount_),
      sharedOptIn_(other.sharedOptIn_.load(std::memory_order_acquire)) {}

Kernel &Kernel::operator=(const Kernel &other) {
  if (this != &other) {
    function_ = other.function_;
    name_ = other.name_;
    attributes_ = other.attributes_;
    limits_ = other.limits_;
    parameters_ = other.parameters_;
    parametersKnown_ = other.parametersKnown_;
    tensorMaps_ = other.tensorMaps_;
    persistent_ = other.persistent_;
    smCount_ = other.smCount_;
    sharedOptIn_.store(other.sharedOptIn_.load(std::memory_order_acquire),
                       std::memory_order_release);
  }
  return *this;
}

std::string Kernel::describe() const {
  const KernelAttributes &a = attributes_;
  std::string s = "kernel '" + name_ + "': " + std::to_string(a.numRegs) +
                  " registers, " + std::to_string(a.staticSharedBytes) +
                  " B static shared, " + std::to_string(a.localBytesPerThread) +
                  " B local per thread, at most " +
                  std::to_string(a.maxThreadsPerBlock) +
                  " threads per block, sm_" + std::to_string(a.binaryVersion) +
                  " code from PTX " + std::to_string(a.ptxVersion / 10) + "." +
                  std::to_string(a.ptxVersion % 10);
  if (a.requiredCluster.x > 0)
    s += ", cluster " + dims(a.requiredCluster);
  if (parametersKnown_)
    s += ", " + std::to_string(parameters_.size()) + " parameters";
  if (persistent_)
    s += ", persistent";
  return s;
}

/// Encodes the CUtensorMap of `spec` (validateLaunch checked it) into the
/// 128 bytes at `out`.
static Status encodeTensorMap(const TensorMapSpec &spec,
                              const std::vector<Arg> &args,
                              unsigned char *out) {
  const ViewArg &view = std::get<ViewArg>(args[spec.arg]);
  const size_t rank = view.sizes.size();
  // Innermost dimension first; strides in bytes, for all but that one.
  cuuint64_t dims[5], strides[4];
  cuuint32_t box[5], elementStrides[5];
  for (size_t i = 0; i < rank; ++i) {
    const size_t d = rank - 1 - i;
    dims[i] = static_cast<cuuint64_t>(view.sizes[d]);
    box[i] = static_cast<cuuint32_t>(spec.box[d]);
    elementStrides[i] = 1;
    if (i > 0)
      strides[i - 1] =
          static_cast<cuuint64_t>(view.strides[d]) * view.elementBytes;
  }
  CUtensorMapDataType type = view.elementBytes == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                             : view.elementBytes == 2
                                 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                             : view.elementBytes == 4
                                 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                 : CU_TENSOR_MAP_DATA_TYPE_UINT64;
  static_assert(sizeof(CUtensorMap) == kTensorMapBytes);
  CUtensorMap map; // 64-byte aligned, as the driver wants it
  TESSEL_RT_TRY(checkCu(
      cuTensorMapEncodeTiled(
          &map, type, static_cast<cuuint32_t>(rank),
          reinterpret_cast<void *>(static_cast<uintptr_t>(view.ptr)), dims,
          strides, box, elementStrides, CU_TENSOR_MAP_INTERLEAVE_NONE,
          spec.swizzleBytes == 0 ? CU_TENSOR_MAP_SWIZZLE_NONE
                                 : CU_TENSOR_MAP_SWIZZLE_128B,
          CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
          CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
      "cuTensorMapEncodeTiled",
      "argument " + std::to_string(spec.arg) + " (view)"));
  std::memcpy(out, &map, sizeof(map));
  return Status::success();
}

namespace {
/// Whether TESSEL_PLAIN_LAUNCH (read once per process: kernel names,
/// comma-separated, spaces ignored, or "all") names this kernel.
bool plainLaunch(const std::string &kernel) {
  static const std::string names = [] {
    const char *v = std::getenv("TESSEL_PLAIN_LAUNCH");
    if (!v)
      return std::string();
    std::string list = ",";
    for (const char *p = v; *p; ++p)
      if (*p != ' ' && *p != '\t')
        list += *p;
    return list + ",";
  }();
  return names.size() > 2 &&
         (names.find(",all,") != std::string::npos ||
          names.find("," + kernel + ",") != std::string::npos);
}
} // namespace

Status Kernel::launch(Dim3 grid, int numWarps, const std::vector<Arg> &args,
                      CUstream stream, size_t dynamicSharedBytes) const {
  LaunchConfig config;
  config.grid = grid;
  config.numWarps = numWarps;
  config.dynamicSharedBytes = dynamicSharedBytes;
  return launch(config, args, stream);
}

Status Kernel::physicalGrid(const LaunchConfig &config, Dim3 *out) const {
  *out = config.grid;
  const Dim3 &g = config.grid;
  if (!persistent_ || g.x <= 0 || g.y <= 0 || g.z <= 0)
    return Status::success();
  const std::string what = "kernel '" + name_ + "'";
  // validateLaunch bounded each dimension by the device's grid limits.
  const uint64_t programs = static_cast<uint64_t>(g.x) *
                            static_cast<uint64_t>(g.y) *
                            static_cast<uint64_t>(g.z);
  if (programs > static_cast<uint64_t>(INT32_MAX))
    return Status::error("launch of " + what + ": a persistent kernel takes " +
                         "at most 2^31 - 1 programs; grid " + dims(g) +
                         " has " + std::to_string(programs));
  // The walk over programs is a plain grid of CTAs: no cluster shape to
  // keep (a cluster's CTAs would have to take neighbouring programs).
  if (config.cluster != Dim3{} ||
      attributes_.requiredCluster != Dim3{0, 0, 0} ||
      attributes_.clusterSizeMustBeSet)
    return Status::error("launch of " + what +
                         ": a persistent kernel cannot be launched in "
                         "clusters");
  if (config.persistentCtas < 0)
    return Status::error("launch of " + what + ": persistentCtas is " +
                         std::to_string(config.persistentCtas) +
                         "; 0 (as many as fit) or a positive count");
  // Each CTA steps its program by the CTA count in 32 bits: the last step
  // must not wrap around.
  auto sized = [&](uint64_t ctas) {
    if (programs + ctas - 1 > static_cast<uint64_t>(INT32_MAX))
      return Status::error("launch of " + what + ": " +
                           std::to_string(programs) + " programs on " +
                           std::to_string(ctas) +
                           " CTAs step past 2^31 - 1");
    *out = Dim3{static_cast<int64_t>(ctas), 1, 1};
    return Status::success();
  };
  if (config.persistentCtas > 0)
    return sized(std::min(programs,
                          static_cast<uint64_t>(config.persistentCtas)));
  int perSM = 0;
  TESSEL_RT_TRY(checkCu(cuOccupancyMaxActiveBlocksPerMultiprocessor(
                            &perSM, function_, 32 * config.numWarps,
                            config.dynamicSharedBytes),
                        "cuOccupancyMaxActiveBlocksPerMultiprocessor", what));
  if (perSM < 1 || smCount_ < 1)
    return Status::error("launch of " + what + ": no CTA of " +
                         std::to_string(32 * config.numWarps) + " threads and " +
                         std::to_string(config.dynamicSharedBytes) +
                         " B dynamic shared memory fits on an SM");
  const uint64_t resident =
      static_cast<uint64_t>(perSM) * static_cast<uint64_t>(smCount_);
  return sized(std::min(programs, resident));
}

Status Kernel::launch(const LaunchConfig &config, const std::vector<Arg> &args,
                      CUstream stream) const {
  // The messages are built only when something fails: a launch that
  // succeeds formats no strings (host time per launch matters for small
  // kernels).
  auto what = [&] { return "kernel '" + name_ + "'"; };
  auto inLaunch = [&](Status s) {
    return std::move(s).withContext("launch of " + what());
  };
  if (!function_)
    return Status::error("launch of a Kernel that was never loaded");
  if (Status s = validateLaunch(config, args, limits_, tensorMaps_); !s.ok())
    return inLaunch(std::move(s));
  if (config.grid.x == 0 || config.grid.y == 0 || config.grid.z == 0)
    return Status::success();

  // A persistent kernel takes the logical grid after its arguments (packed
  // and checked, like all arguments, before the driver is called).
  std::vector<Arg> withGrid;
  if (persistent_) {
    withGrid = args;
    withGrid.push_back(static_cast<int32_t>(config.grid.x));
    withGrid.push_back(static_cast<int32_t>(config.grid.y));
    withGrid.push_back(static_cast<int32_t>(config.grid.z));
  }
  const std::vector<Arg> &kernelArgs = persistent_ ? withGrid : args;
  PackedArgs packed;
  if (Status s = packArguments(kernelArgs, &packed, tensorMaps_); !s.ok())
    return inLaunch(std::move(s));
  for (size_t i = 0; i < packed.numParams(); ++i)
    if (packed.slots()[i].kind == ParamKind::TensorMap)
      if (Status s = encodeTensorMap(tensorMaps_[packed.slots()[i].argIndex],
                                     kernelArgs, packed.slotData(i));
          !s.ok())
        return inLaunch(std::move(s));
  if (parametersKnown_)
    if (Status s = checkSignature(packed, parameters_); !s.ok())
      return inLaunch(std::move(s));

  if (config.dynamicSharedBytes > attributes_.maxDynamicSharedBytes &&
      !sharedOptIn_.load(std::memory_order_acquire)) {
    // Opt in to everything the device allows, once: the same value from
    // every thread, so concurrent launches cannot undo each other's opt-in.
    const size_t allowed =
        limits_.maxSharedPerBlockOptin - limits_.staticSharedBytes;
    TESSEL_RT_TRY(checkCu(
        cuFuncSetAttribute(function_,
                           CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                           static_cast<int>(allowed)),
        "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)", what()));
    sharedOptIn_.store(true, std::memory_order_release);
  }

  // The CTAs: for a persistent kernel as many as fit at once (after the
  // opt-in: the occupancy counts the dynamic shared memory).
  Dim3 grid;
  TESSEL_RT_TRY(physicalGrid(config, &grid));

  const unsigned blockX = 32u * static_cast<unsigned>(config.numWarps);
  const unsigned shared = static_cast<unsigned>(config.dynamicSharedBytes);
  const bool compiledCluster = attributes_.requiredCluster.x > 0 ||
                               attributes_.requiredCluster.y > 0 ||
                               attributes_.requiredCluster.z > 0;
  const bool setCluster =
      !compiledCluster &&
      (config.cluster != Dim3{} || attributes_.clusterSizeMustBeSet);
  // A kernel compiled for programmatic dependent launch is correct launched
  // either way (its griddepcontrol.wait returns at once when nothing is
  // pending). TESSEL_PLAIN_LAUNCH names the kernels to launch plainly
  // (comma-separated; "all"), to measure what the overlap is worth.
  const bool programmatic =
      config.programmaticLaunch && !plainLaunch(name_);
  // What the driver was asked, for its error message.
  auto detail = [&] {
    return what() + " (grid " + dims(grid) + ", " + std::to_string(blockX) +
           " threads, " + std::to_string(shared) + " B dynamic shared" +
           (setCluster ? ", cluster " + dims(config.cluster) : std::string()) +
           (programmatic ? ", programmatic dependent launch" : "") +
           ")";
  };
  CUresult result;
  if (setCluster || programmatic) {
    CUlaunchAttribute attributes[2] = {};
    unsigned numAttributes = 0;
    if (setCluster) {
      CUlaunchAttribute &attribute = attributes[numAttributes++];
      attribute.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
      attribute.value.clusterDim.x = static_cast<unsigned>(config.cluster.x);
      attribute.value.clusterDim.y = static_cast<unsigned>(config.cluster.y);
      attribute.value.clusterDim.z = static_cast<unsigned>(config.cluster.z);
    }
    if (programmatic) {
      CUlaunchAttribute &attribute = attributes[numAttributes++];
      attribute.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
      attribute.value.programmaticStreamSerializationAllowed = 1;
    }
    CUlaunchConfig launchConfig = {};
    launchConfig.gridDimX = static_cast<unsigned>(grid.x);
    launchConfig.gridDimY = static_cast<unsigned>(grid.y);
    launchConfig.gridDimZ = static_cast<unsigned>(grid.z);
    launchConfig.blockDimX = blockX;
    launchConfig.blockDimY = 1;
    launchConfig.blockDimZ = 1;
    launchConfig.sharedMemBytes = shared;
    launchConfig.hStream = stream;
    launchConfig.attrs = attributes;
    launchConfig.numAttrs = numAttributes;
    result = cuLaunchKernelEx(&launchConfig, function_, packed.kernelParams(),
                              nullptr);
    if (result != CUDA_SUCCESS)
      return checkCu(result, "cuLaunchKernelEx", detail());
    return Status::success();
  }
  result = cuLaunchKernel(function_, static_cast<unsigned>(grid.x),
                          static_cast<unsigned>(grid.y),
                          static_cast<unsigned>(grid.z), blockX, 1, 1, shared,
                          stream, packed.kernelParams(), nullptr);
  if (result != CUDA_SUCCESS)
    return checkCu(result, "cuLaunchKernel", detail());
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Streams, events, timing
//===----------------------------------------------------------------------===//

Stream::~Stream() {
  if (stream_)
    (void)cuStreamDestroy(stream_);
}

Stream::Stream(Stream &&other) noexcept
    : stream_(std::exchange(other.stream_, nullptr)) {}

Stream &Stream::operator=(Stream &&other) noexcept {
  if (this != &other) {
    if (stream_)
      (void)cuStreamDestroy(stream_);
    stream_ = std::exchange(other.stream_, nullptr);
  }
  return *this;
}

Status Stream::create(Stream *out, unsigned flags) {
  Stream stream;
  TESSEL_RT_TRY(
      checkCu(cuStreamCreate(&stream.stream_, flags), "cuStreamCreate"));
  *out = std::move(stream);
  return Status::success();
}

Status Stream::synchronize() const {
  return checkCu(cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

Event::~Event() {
  if (event_)
    (void)cuEventDestroy(event_);
}

Event::Event(Event &&other) noexcept
    : event_(std::exchange(other.event_, nullptr)) {}

Event &Event::operator=(Event &&other) noexcept {
  if (this != &other) {
    if (event_)
      (void)cuEventDestroy(event_);
    event_ = std::exchange(other.event_, nullptr);
  }
  return *this;
}

Status Event::create(Event *out, unsigned flags) {
  Event event;
  TESSEL_RT_TRY(checkCu(cuEventCreate(&event.event_, flags), "cuEventCreate"));
  *out = std::move(event);
  return Status::success();
}

Status Event::record(CUstream stream) const {
  return checkCu(cuEventRecord(event_, stream), "cuEventRecord");
}

Status Event::synchronize() const {
  return checkCu(cuEventSynchronize(event_), "cuEventSynchronize");
}

Status Event::elapsedMs(const Event &start, const Event &stop, float *ms) {
  return checkCu(cuEventElapsedTime(ms, start.event_, stop.event_),
                 "cuEventElapsedTime");
}

Status timeKernel(const std::function<Status()> &fn, int warmup, int iters,
                  CUstream stream, std::vector<float> *ms,
                  size_t l2FlushBytes) {
  if (!ms)
    return Status::error("timeKernel: no output vector");
  if (iters < 1 || warmup < 0)
    return Status::error("timeKernel: needs iters >= 1 and warmup >= 0, got " +
                         std::to_string(iters) + " and " +
                         std::to_string(warmup));
  ms->clear();
  DeviceBuffer flush;
  TESSEL_RT_TRY(DeviceBuffer::allocate(l2FlushBytes, &flush)
                    .withContext("timeKernel: L2 flush buffer"));
  const size_t n = static_cast<size_t>(iters);
  std::vector<Event> starts(n), stops(n);
  for (size_t i = 0; i < n; ++i) {
    TESSEL_RT_TRY(Event::create(&starts[i]));
    TESSEL_RT_TRY(Event::create(&stops[i]));
  }

  // Once work is queued, drain the stream before returning, also on
  // failure: the flush buffer must not be freed under a pending memset.
  auto drain = [&](Status status) {
    Status sync = checkCu(cuStreamSynchronize(stream), "cuStreamSynchronize");
    return status.ok() ? std::move(sync) : std::move(status);
  };
  uint8_t pattern = 0;
  auto run = [&](const char *what, size_t i, const Event *start,
                 const Event *stop) {
    const std::string context =
        "timeKernel: " + std::string(what) + " run " + std::to_string(i);
    if (flush.size())
      TESSEL_RT_TRY(flush.fillAsync(pattern++, stream).withContext(context));
    if (start)
      TESSEL_RT_TRY(start->record(stream).withContext(context));
    TESSEL_RT_TRY(fn().withContext(context));
    if (stop)
      TESSEL_RT_TRY(stop->record(stream).withContext(context));
    return Status::success();
  };
  for (size_t i = 0; i < static_cast<size_t>(warmup); ++i) {
    Status status = run("warm-up", i, nullptr, nullptr);
    if (!status.ok())
      return drain(std::move(status));
  }
  for (size_t i = 0; i < n; ++i) {
    Status status = run("timed", i, &starts[i], &stops[i]);
    if (!status.ok())
      return drain(std::move(status));
  }
  TESSEL_RT_TRY(drain(Status::success()).withContext("timeKernel"));
  ms->reserve(n);
  for (size_t i = 0; i < n; ++i) {
    float t = 0;
    TESSEL_RT_TRY(
        Event::elapsedMs(starts[i], stops[i], &t)
            .withContext("timeKernel: timed run " + std::to_string(i)));
    ms->push_back(t);
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Device memory
//===----------------------------------------------------------------------===//

DeviceBuffer::~DeviceBuffer() {
  if (ptr_)
    (void)cuMemFree(ptr_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer &&other) noexcept
    : ptr_(std::exchange(other.ptr_, 0)), size_(std::exchange(other.size_, 0)) {
}

DeviceBuffer &DeviceBuffer::operator=(DeviceBuffer &&other) noexcept {
  if (this != &other) {
    if (ptr_)
      (void)cuMemFree(ptr_);
    ptr_ = std::exchange(other.ptr_, 0);
    size_ = std::exchange(other.size_, 0);
  }
  return *this;
}

Status DeviceBuffer::allocate(size_t bytes, DeviceBuffer *out) {
  DeviceBuffer buffer;
  if (bytes) {
    TESSEL_RT_TRY(checkCu(cuMemAlloc(&buffer.ptr_, bytes), "cuMemAlloc",
                          std::to_string(bytes) + " bytes"));
    buffer.size_ = bytes;
  }
  *out = std::move(buffer);
  return Status::success();
}

Status DeviceBuffer::checkRange(const char *what, size_t bytes,
                                size_t offset) const {
  if (offset > size_ || bytes > size_ - offset)
    return Status::error(std::string(what) + " of " + std::to_string(bytes) +
                         " bytes at offset " + std::to_string(offset) +
                         " falls outside the buffer of " +
                         std::to_string(size_) + " bytes");
  return Status::success();
}

Status DeviceBuffer::copyFromHost(const void *src, size_t bytes,
                                  size_t offset) {
  TESSEL_RT_TRY(checkRange("copyFromHost", bytes, offset));
  if (!bytes)
    return Status::success();
  return checkCu(cuMemcpyHtoD(ptr_ + offset, src, bytes), "cuMemcpyHtoD");
}

Status DeviceBuffer::copyToHost(void *dst, size_t bytes, size_t offset) const {
  TESSEL_RT_TRY(checkRange("copyToHost", bytes, offset));
  if (!bytes)
    return Status::success();
  return checkCu(cuMemcpyDtoH(dst, ptr_ + offset, bytes), "cuMemcpyDtoH");
}

Status DeviceBuffer::copyFromHostAsync(const void *src, size_t bytes,
                                       CUstream stream, size_t offset) {
  TESSEL_RT_TRY(checkRange("copyFromHostAsync", bytes, offset));
  if (!bytes)
    return Status::success();
  return checkCu(cuMemcpyHtoDAsync(ptr_ + offset, src, bytes, stream),
                 "cuMemcpyHtoDAsync");
}

Status DeviceBuffer::copyToHostAsync(void *dst, size_t bytes, CUstream stream,
                                     size_t offset) const {
  TESSEL_RT_TRY(checkRange("copyToHostAsync", bytes, offset));
  if (!bytes)
    return Status::success();
  return checkCu(cuMemcpyDtoHAsync(dst, ptr_ + offset, bytes, stream),
                 "cuMemcpyDtoHAsync");
}

Status DeviceBuffer::fill(uint8_t byte) {
  if (!size_)
    return Status::success();
  return checkCu(cuMemsetD8(ptr_, byte, size_), "cuMemsetD8");
}

Status DeviceBuffer::fillAsync(uint8_t byte, CUstream stream) {
  if (!size_)
    return Status::success();
  return checkCu(cuMemsetD8Async(ptr_, byte, size_, stream), "cuMemsetD8Async");
}

} // namespace tessel::rt
