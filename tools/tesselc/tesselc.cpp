//===- tesselc.cpp - the tessel ahead-of-time compiler driver -------------===//
//
//   tesselc [--target=sm_103a,sm_100a,sm_90a] [-o DIR] [--dump-dir DIR]
//           [-D NAME=VALUE]... [--list] [--all-configs] [KERNEL...]
//
// Traces the registered kernels (all, or those named) for the chosen
// constants and compiles them. Code generation is not implemented yet: today
// tesselc emits the tile IR of each kernel (to stdout, or KERNEL.tile.mlir in
// -o DIR) and fails with a diagnostic when asked for anything else.
//
//===----------------------------------------------------------------------===//

#include "dialect/tile/TileOps.h"
#include "dsl/Registry.h"
#include "dsl/Tracer.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/core.h>

using namespace tessel;
using namespace tessel::dsl;
namespace cl = llvm::cl;

static cl::list<std::string> kernelNames(cl::Positional,
                                         cl::desc("[KERNEL...]"));
static cl::opt<std::string>
    targets("target", cl::desc("Comma-separated targets (sm_103a, sm_100a, "
                               "sm_90a)"),
            cl::init("sm_103a"));
static cl::opt<std::string> outputDir("o", cl::desc("Output directory"),
                                      cl::value_desc("DIR"));
static cl::opt<std::string>
    dumpDir("dump-dir", cl::desc("Write the IR of every stage to DIR"),
            cl::value_desc("DIR"));
static cl::list<std::string>
    defines("D", cl::desc("Set a kernel constant (NAME=VALUE)"), cl::Prefix);
static cl::opt<std::string>
    emit("emit", cl::desc("What to produce: tile (the traced tile IR)"),
         cl::init("tile"));
static cl::opt<bool> list("list",
                          cl::desc("List the registered kernels and their "
                                   "search spaces"));
static cl::opt<bool>
    allConfigs("all-configs",
               cl::desc("Trace every point of each kernel's search space"));

static int fail(const std::string &message) {
  llvm::errs() << "tesselc: error: " << message << "\n";
  return 1;
}

static void printKernelList() {
  for (const KernelDef *k : registeredKernels()) {
    fmt::print("{}: {}\n", k->name, k->summary);
    for (const Param &p : k->params) {
      std::string values;
      for (int64_t v : p.values)
        values += (values.empty() ? "" : ", ") +
                  (p.isDType ? std::string(dtypeName(static_cast<DType>(v)))
                             : std::to_string(v));
      std::string def = p.isDType ? dtypeName(static_cast<DType>(p.defaultValue))
                                  : std::to_string(p.defaultValue);
      fmt::print("  {:<12} {:<8} {{{}}} default {}  {}\n", p.name,
                 p.tunable ? "tunable" : "variant", values, def, p.doc);
    }
    fmt::print("  {} configurations\n", enumerateConfigs(*k).size());
  }
}

int main(int argc, char **argv) {
  cl::ParseCommandLineOptions(argc, argv, "tessel ahead-of-time compiler\n");
  if (list) {
    printKernelList();
    return 0;
  }
  for (llvm::StringRef target : llvm::split(targets, ',')) {
    if (!llvm::is_contained(tile::getKnownTargets(), target))
      return fail(fmt::format("unknown target '{}' (known: sm_90a, sm_100a, "
                              "sm_103a)",
                              target.str()));
  }
  if (emit != "tile")
    return fail(fmt::format("--emit={} is not available: code generation "
                            "(PTX, cubin) is not implemented yet; "
                            "--emit=tile prints the traced tile IR",
                            emit.getValue()));

  std::vector<const KernelDef *> kernels;
  if (kernelNames.empty()) {
    kernels = registeredKernels();
  } else {
    for (const std::string &name : kernelNames) {
      const KernelDef *k = findKernel(name);
      if (!k) {
        std::string known;
        for (const KernelDef *r : registeredKernels())
          known += (known.empty() ? "" : ", ") + r->name;
        return fail(fmt::format("no kernel named '{}' (registered: {})", name,
                                known));
      }
      kernels.push_back(k);
    }
  }
  if (!outputDir.empty())
    if (std::error_code ec = llvm::sys::fs::create_directories(outputDir))
      return fail(fmt::format("cannot create '{}': {}", outputDir.getValue(),
                              ec.message()));

  mlir::MLIRContext context;
  loadTraceDialects(context);
  int failures = 0;
  for (const KernelDef *kernel : kernels) {
    std::vector<Config> configs;
    if (allConfigs) {
      configs = enumerateConfigs(*kernel);
    } else {
      Config config = defaultConfig(*kernel);
      for (const std::string &d : defines) {
        std::string error = parseAssignment(*kernel, d, config);
        // A constant that only some of the named kernels have is fine.
        if (!error.empty() && error.find("has no constant") == std::string::npos)
          return fail(error);
      }
      configs.push_back(config);
    }
    for (const Config &config : configs) {
      TraceResult result = traceKernel(context, *kernel, config);
      for (const std::string &d : result.diagnostics)
        llvm::errs() << d << "\n";
      std::string what =
          fmt::format("{} [{}]", kernel->name, configString(*kernel, config));
      if (!result.module) {
        llvm::errs() << "tesselc: error: tracing " << what << " failed\n";
        ++failures;
        continue;
      }
      if (allConfigs) {
        fmt::print("traced {}\n", what);
        continue;
      }
      if (outputDir.empty()) {
        llvm::outs() << "// " << what << "\n";
        result.module->print(llvm::outs());
        llvm::outs() << "\n";
        continue;
      }
      llvm::SmallString<256> path(outputDir.getValue());
      llvm::sys::path::append(path, kernel->name + ".tile.mlir");
      std::error_code ec;
      llvm::raw_fd_ostream os(path, ec);
      if (ec)
        return fail(fmt::format("cannot write '{}': {}", path.str().str(),
                                ec.message()));
      os << "// " << what << "\n";
      result.module->print(os);
      fmt::print("wrote {}\n", path.str().str());
    }
  }
  if (failures)
    return fail(fmt::format("{} kernel configuration(s) failed to trace",
                            failures));
  return 0;
}
