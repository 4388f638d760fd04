//===- GpuTests.cpp - tessel-compiled kernels on the GPU vs plain C++
//------===//
//
//   tessel-gpu-tests CUBIN_DIR
//
// Runs every op test case and chunk_cumsum (cubins built ahead of time by
// tesselc into CUBIN_DIR) on fresh random inputs with poisoned outputs,
// compares against the plain C++ references of test/kernels/TestCases.cpp,
// times chunk_cumsum with device events, and prints a table. Links only the
// runtime and libcuda: this binary is what travels to the GPU machine.
//
//===----------------------------------------------------------------------===//

#include "interpreter/Numbers.h"
#include "runtime/Runtime.h"
#include "test/kernels/TestCases.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <random>
#include <string>

using namespace tessel;
using namespace tessel::testcases;

namespace {

std::string cubinDir;
rt::Context context;
std::map<std::string, std::unique_ptr<rt::Module>> modules;

rt::Status kernelFor(const std::string &name, rt::Kernel *kernel) {
  auto &module = modules[name];
  if (!module) {
    module = std::make_unique<rt::Module>();
    // Every target's image, when built: the runtime picks the device's.
    static std::vector<std::unique_ptr<std::vector<char>>> blobs;
    std::vector<rt::Image> images;
    for (const char *target : {"sm_90a", "sm_100a", "sm_103a"}) {
      std::ifstream in(cubinDir + "/" + name + "." + target + ".cubin",
                       std::ios::binary);
      if (!in)
        continue;
      blobs.push_back(std::make_unique<std::vector<char>>(
          std::istreambuf_iterator<char>(in),
          std::istreambuf_iterator<char>()));
      images.push_back({target, blobs.back()->data(), blobs.back()->size()});
    }
    if (rt::Status s = rt::Module::load(images, module.get()); !s.ok())
      return std::move(s).withContext(
          "loading " + name +
          (images.empty() ? " (no " + name + ".sm_*.cubin in " + cubinDir +
                                ": build the gpu-tests target, which "
                                "compiles the test kernels; the default "
                                "target builds only this driver)"
                          : std::string()));
  }
  return module->getKernel(name, kernel);
}

/// A value from the resource report tesselc wrote beside the cubin
/// (`warps 4`, or a constant of the `config` line such as BLOCK_H).
int64_t reported(const std::string &kernel, const std::string &key,
                 int64_t fallback) {
  std::ifstream in(cubinDir + "/" + kernel + ".sm_90a.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + " ", 0) == 0)
      return std::stoll(line.substr(key.size() + 1));
    // (A whole name: `warps` is not the end of `num_warps`.)
    if (line.rfind("config ", 0) != 0)
      continue;
    std::string list = "," + line.substr(7);
    size_t at = list.find("," + key + "=");
    if (at != std::string::npos)
      return std::stoll(list.substr(at + key.size() + 2));
  }
  return fallback;
}

struct Run {
  std::vector<rt::DeviceBuffer> buffers;
  std::vector<rt::Arg> args;
};

rt::Status upload(const Case &c, Run *run) {
  run->buffers.resize(c.tensors.size());
  for (size_t i = 0; i < c.tensors.size(); ++i) {
    const Tensor &t = c.tensors[i];
    size_t bytes = t.values.size() * dtypeBytes(t.dtype);
    TESSEL_RT_TRY(rt::DeviceBuffer::allocate(bytes, &run->buffers[i]));
    if (t.output && !t.inout) {
      // 0xFF bytes: NaN for every float type, -1 for integers.
      TESSEL_RT_TRY(run->buffers[i].fill(0xFF));
      continue;
    }
    std::vector<unsigned char> host(bytes);
    for (size_t k = 0; k < t.values.size(); ++k)
      interp::storeElement(host.data() + k * dtypeBytes(t.dtype), t.dtype,
                           t.values[k]);
    TESSEL_RT_TRY(run->buffers[i].copyFromHost(host.data(), bytes));
  }
  for (const Arg &a : c.args) {
    if (auto *index = std::get_if<size_t>(&a)) {
      const Tensor &t = c.tensors[*index];
      rt::ViewArg v;
      v.ptr = run->buffers[*index].ptr();
      v.elementBytes = static_cast<int>(dtypeBytes(t.dtype));
      v.sizes = t.sizes;
      v.strides = t.strides;
      run->args.push_back(v);
    } else {
      const Scalar &s = std::get<Scalar>(a);
      if (s.dtype == DType::f32)
        run->args.push_back(static_cast<float>(s.value));
      else if (s.dtype == DType::i64)
        run->args.push_back(static_cast<int64_t>(s.value));
      else
        run->args.push_back(static_cast<int32_t>(s.value));
    }
  }
  return rt::Status();
}

rt::Status download(const Case &c, Run &run,
                    std::vector<std::vector<double>> *got) {
  got->assign(c.tensors.size(), {});
  for (size_t i = 0; i < c.tensors.size(); ++i) {
    const Tensor &t = c.tensors[i];
    std::vector<unsigned char> host(t.values.size() * dtypeBytes(t.dtype));
    TESSEL_RT_TRY(run.buffers[i].copyToHost(host.data(), host.size()));
    for (size_t k = 0; k < t.values.size(); ++k)
      (*got)[i].push_back(
          interp::loadElement(host.data() + k * dtypeBytes(t.dtype), t.dtype));
  }
  return rt::Status();
}

struct Row {
  std::string label;
  bool pass;
  double error;
  std::string detail;
  double ms = -1;
};

Row runCase(const Case &c, rt::Stream &stream, bool time) {
  Row row{c.label, false, 0, "", -1};
  rt::Kernel kernel;
  Run run;
  std::vector<std::vector<double>> got;
  rt::Status s = kernelFor(c.kernel, &kernel);
  if (s.ok())
    s = upload(c, &run);
  rt::Dim3 grid{c.grid[0], c.grid[1], c.grid[2]};
  int numWarps = static_cast<int>(reported(c.kernel, "warps", c.numWarps));
  size_t dynamicShared =
      static_cast<size_t>(reported(c.kernel, "dynamic_shared_bytes", 0));
  rt::LaunchConfig config;
  config.grid = grid;
  config.numWarps = numWarps;
  config.dynamicSharedBytes = dynamicShared;
  config.persistentCtas = c.persistentCtas;
  // A case for a persistent kernel must run one (the kernel's table says).
  if (s.ok() && kernel.persistent() != c.kernel.starts_with("test_persistent"))
    s = rt::Status::error(c.kernel + (kernel.persistent()
                                          ? " is persistent"
                                          : " is not persistent"));
  if (s.ok())
    s = kernel.launch(config, run.args, stream.get());
  if (!c.launchError.empty()) {
    // A launch that must be refused, with this error.
    row.pass = !s.ok() && s.message().find(c.launchError) != std::string::npos;
    row.detail = s.ok() ? "launched; expected an error containing '" +
                              c.launchError + "'"
                        : s.message();
    return row;
  }
  if (s.ok())
    s = stream.synchronize();
  if (s.ok())
    s = download(c, run, &got);
  if (!s.ok()) {
    row.detail = s.message();
    return row;
  }
  row.detail = check(c, got, &row.error);
  row.pass = row.detail.empty();
  if (row.pass && time) {
    std::vector<float> ms;
    s = rt::timeKernel(
        [&] { return kernel.launch(config, run.args, stream.get()); },
        /*warmup=*/20, /*iters=*/200, stream.get(), &ms);
    if (s.ok())
      row.ms = rt::median(ms);
    else
      row.detail = s.message();
  }
  return row;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CUBIN_DIR\n", argv[0]);
    return 2;
  }
  cubinDir = argv[1];
  if (rt::Status s = rt::init(0, &context); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  std::printf("device: %s\n", context.device().describe().c_str());
  rt::Stream stream;
  if (rt::Status s = rt::Stream::create(&stream); !s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  std::printf("seed: %u\n", seed);
  // Under compute-sanitizer, set TESSEL_GPU_NO_TIMING=1: checks only.
  bool timing = std::getenv("TESSEL_GPU_NO_TIMING") == nullptr;
  // TESSEL_GPU_CASES=part,part: only the op cases whose kernel name
  // contains one of the parts, and no timed or chunk_cumsum cases (a few
  // kernels under compute-sanitizer, say).
  const char *only = std::getenv("TESSEL_GPU_CASES");
  auto selected = [&](const Case &c) {
    if (!only)
      return true;
    std::string parts = only;
    for (size_t at = 0; at <= parts.size();) {
      size_t end = std::min(parts.find(',', at), parts.size());
      std::string part = parts.substr(at, end - at);
      if (!part.empty() && c.kernel.find(part) != std::string::npos)
        return true;
      at = end + 1;
    }
    return false;
  };
  if (only)
    std::printf("cases: kernels containing %s\n", only);
  std::vector<Row> rows;
  for (const Case &c : opCases(rng))
    if (selected(c))
      rows.push_back(runCase(c, stream, /*time=*/false));
  // (Under the sanitizers, set TESSEL_GPU_NO_TIMING: these large cases are
  // for timing; their kernels are checked at small sizes above.)
  if (timing && !only)
    for (const Case &c : timedCases(rng))
      rows.push_back(runCase(c, stream, timing));
  struct Shape {
    int64_t b, L, h;
    bool time;
  } shapes[] = {{1, 1000, 24, false},
                {2, 777, 37, false},
                {1, 65536, 80, true},
                {4, 16384, 80, true},
                {1, 4096, 80, true}};
  for (const Shape &s : shapes)
    if (!only)
      rows.push_back(
          runCase(chunkCumsumCase(rng, s.b, s.L, s.h,
                                  reported("chunk_cumsum", "BLOCK_H", -1)),
                  stream, s.time && timing));

  int failures = 0;
  std::printf("\n%-72s %-6s %-10s %s\n", "case", "result", "rel L2",
              "median ms");
  for (const Row &r : rows) {
    failures += !r.pass;
    std::printf("%-72s %-6s %-10.2e %s\n", r.label.c_str(),
                r.pass ? "PASS" : "FAIL", r.error,
                r.ms >= 0 ? std::to_string(r.ms).c_str() : "");
    if (!r.pass)
      std::printf("    %s\n", r.detail.c_str());
  }
  std::printf("\n%zu cases, %d failed\n", rows.size(), failures);
  return failures ? 1 : 0;
}
