//===- tesselc.cpp - the tessel ahead-of-time compiler driver -------------===//
//
//   tesselc [--target=sm_103a,sm_100a,sm_90a] [-o DIR] [--dump-dir DIR]
//           [-D NAME=VALUE]... [--variants] [--library NAME [--namespace NS]]
//           [--list] [--all-configs] [KERNEL...]
//
// Traces the registered kernels (all, or those named) for the chosen
// constants and compiles each for every target: DIR/<kernel>.<target>.ptx,
// .cubin and a resource report (.txt) from ptxas, then prints a table.
// --emit=tile prints the traced tile IR instead; --emit=ptx stops before ptxas.
//
//===----------------------------------------------------------------------===//

#include "codegen/Pipeline.h"
#include "tools/tesselc/Launchers.h"

#include "dialect/tile/TileOps.h"
#include "dsl/Registry.h"
#include "dsl/Tracer.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/core.h>

#include <set>

using namespace tessel;
using namespace tessel::dsl;
namespace cl = llvm::cl;

// --help lists these, not the options LLVM's libraries register.
static cl::OptionCategory tesselcOptions("tesselc options");

static cl::list<std::string> kernelNames(cl::Positional,
                                         cl::desc("[KERNEL...]"),
                                         cl::cat(tesselcOptions));
static cl::opt<std::string>
    targets("target",
            cl::desc("Comma-separated targets (sm_103a, sm_100a, "
                     "sm_90a)"),
            cl::init("sm_103a"), cl::cat(tesselcOptions));
static cl::opt<std::string> outputDir("o", cl::desc("Output directory"),
                                      cl::value_desc("DIR"), cl::init("."),
                                      cl::cat(tesselcOptions));
static cl::opt<std::string>
    dumpDir("dump-dir", cl::desc("Write the IR of every stage to DIR"),
            cl::value_desc("DIR"), cl::cat(tesselcOptions));
static cl::list<std::string>
    defines("D", cl::desc("Set a kernel constant (NAME=VALUE)"), cl::Prefix,
            cl::cat(tesselcOptions));
static cl::opt<std::string>
    emit("emit",
         cl::desc("What to produce: cubin (with .ptx), ptx, or tile (print "
                  "the traced tile IR)"),
         cl::init("cubin"), cl::cat(tesselcOptions));
static cl::opt<std::string>
    library("library",
            cl::desc("Also write DIR/NAME.h and DIR/NAME.cpp: the cubins "
                     "embedded, with a typed launcher per kernel"),
            cl::value_desc("NAME"), cl::cat(tesselcOptions));
static cl::opt<std::string>
    cxxNamespace("namespace",
                 cl::desc("C++ namespace of the launchers (default: NAME)"),
                 cl::value_desc("NS"), cl::cat(tesselcOptions));
static cl::opt<bool> list("list",
                          cl::desc("List the registered kernels and their "
                                   "search spaces"),
                          cl::cat(tesselcOptions));
static cl::opt<bool>
    variants("variants",
             cl::desc("Compile every combination of each kernel's variant "
                      "(non-tunable) constants that -D does not fix, "
                      "tunables at their defaults or -D values"),
             cl::cat(tesselcOptions));
static cl::opt<bool>
    allConfigs("all-configs",
               cl::desc("Trace every point of each kernel's search space"),
               cl::cat(tesselcOptions));

static bool writeFile(const std::string &path, const std::string &text) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    llvm::errs() << "tesselc: error: cannot write '" << path
                 << "': " << ec.message() << "\n";
    return false;
  }
  os << text;
  return true;
}

/// The launcher description of a traced kernel (its parameters come from the
/// kernel function's signature and argument names). Returns an error message
/// when the kernel's grid declaration does not fit its parameters.
static std::string describe(const KernelDef &def, const Config &config,
                            mlir::ModuleOp module, launchers::Compiled &k) {
  k.config = configString(def, config);
  for (const Param &p : def.params)
    if (!p.tunable)
      k.key.push_back(config.all().at(p.name));
  auto fn = *module.getOps<mlir::func::FuncOp>().begin();
  for (auto [i, type] : llvm::enumerate(fn.getArgumentTypes())) {
    launchers::Param p;
    auto name = fn.getArgAttrOfType<mlir::StringAttr>(
        i, tile::TileDialect::getArgNameAttrName());
    p.name = name ? name.str() : "arg" + std::to_string(i);
    if (auto view = llvm::dyn_cast<tile::ViewType>(type)) {
      p.isView = true;
      dsl::fromMlirType(view.getElementType(), p.dtype);
      p.rank = static_cast<int>(view.getRank());
      p.aligned16 = view.getAlign() >= 16;
      p.unitStride = view.getUnitStride();
    } else {
      p.isView = false;
      dsl::fromMlirType(type, p.dtype);
      p.rank = 0;
      p.aligned16 = p.unitStride = false;
    }
    k.params.push_back(p);
  }
  if (def.grid.size() > 3)
    return "kernel '" + def.name +
           "' declares a grid of more than 3 dimensions";
  for (const GridDim &g : def.grid) {
    launchers::GridDim d;
    if (!g.view.empty()) {
      for (size_t i = 0; i < k.params.size(); ++i)
        if (k.params[i].name == g.view && k.params[i].isView)
          d.param = static_cast<int>(i);
      if (d.param < 0)
        return "the grid of kernel '" + def.name + "' refers to '" + g.view +
               "', which is not one of its view parameters";
      if (g.dim < 0 || g.dim >= k.params[d.param].rank)
        return "the grid of kernel '" + def.name + "' uses dimension " +
               std::to_string(g.dim) + " of the rank-" +
               std::to_string(k.params[d.param].rank) + " view '" + g.view +
               "'";
    }
    d.dim = g.dim;
    if (!g.timesView.empty()) {
      for (size_t i = 0; i < k.params.size(); ++i)
        if (k.params[i].name == g.timesView && k.params[i].isView)
          d.timesParam = static_cast<int>(i);
      if (d.timesParam < 0 || g.timesDim < 0 ||
          g.timesDim >= k.params[d.timesParam].rank)
        return "the grid of kernel '" + def.name + "' multiplies by '" +
               g.timesView + "' dimension " + std::to_string(g.timesDim) +
               ", which is not a dimension of one of its view parameters";
      d.timesDim = g.timesDim;
    }
    if (!g.divisor.empty()) {
      auto it = config.all().find(g.divisor);
      if (it == config.all().end() || it->second < 1)
        return "the grid of kernel '" + def.name + "' divides by '" +
               g.divisor + "', which is not a positive constant of it";
      d.divisor = it->second;
    }
    k.grid.push_back(d);
  }
  return "";
}

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
      std::string def = p.isDType
                            ? dtypeName(static_cast<DType>(p.defaultValue))
                            : std::to_string(p.defaultValue);
      fmt::print("  {:<12} {:<8} {{{}}} default {}  {}\n", p.name,
                 p.tunable ? "tunable" : "variant", values, def, p.doc);
    }
    fmt::print("  {} configurations\n", enumerateConfigs(*k).size());
  }
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(tesselcOptions);
  cl::ParseCommandLineOptions(argc, argv, "tessel ahead-of-time compiler\n");
  if (list) {
    printKernelList();
    return 0;
  }
  for (llvm::StringRef target : llvm::split(targets, ',')) {
    if (!codegen::lookupTarget(target))
      return fail(fmt::format("unknown target '{}' (known: sm_90a, sm_100a, "
                              "sm_103a)",
                              target.str()));
  }
  if (variants && allConfigs)
    return fail("--variants and --all-configs do not go together (the "
                "latter already covers every variant)");
  if (emit != "tile" && emit != "ptx" && emit != "cubin")
    return fail(fmt::format("unknown --emit={} (known: cubin, ptx, tile)",
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
        return fail(
            fmt::format("no kernel named '{}' (registered: {})", name, known));
      }
      kernels.push_back(k);
    }
  }
  for (const std::string &dir : {outputDir.getValue(), dumpDir.getValue()})
    if (!dir.empty())
      if (std::error_code ec = llvm::sys::fs::create_directories(dir))
        return fail(fmt::format("cannot create '{}': {}", dir, ec.message()));

  mlir::MLIRContext context;
  loadTraceDialects(context);
  codegen::loadCodegenDialects(context);
  int failures = 0;
  struct Row {
    std::string kernel, target;
    codegen::Artifact artifact;
    std::string config;
  };
  std::vector<Row> rows;
  std::vector<launchers::Kernel> launched;
  for (const KernelDef *kernel : kernels) {
    launchers::Kernel libraryKernel;
    libraryKernel.name = kernel->name;
    libraryKernel.summary = kernel->summary;
    for (const Param &p : kernel->params)
      if (!p.tunable)
        libraryKernel.variants.push_back(
            {p.name, p.doc, p.defaultValue, p.isDType});
    std::vector<Config> configs;
    if (allConfigs) {
      configs = enumerateConfigs(*kernel);
    } else {
      Config config = defaultConfig(*kernel);
      std::set<std::string> fixed;
      for (const std::string &d : defines) {
        std::string error = parseAssignment(*kernel, d, config);
        // A constant that only some of the named kernels have is fine.
        if (!error.empty() &&
            error.find("has no constant") == std::string::npos)
          return fail(error);
        fixed.insert(d.substr(0, d.find('=')));
      }
      configs.push_back(config);
      if (variants)
        configs = expandConfigs(*kernel, config, [&](const Param &p) {
          return !p.tunable && !fixed.count(p.name);
        });
    }
    for (size_t configIndex = 0; configIndex < configs.size(); ++configIndex) {
      const Config &config = configs[configIndex];
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
      if (emit == "tile") {
        llvm::outs() << "// " << what << "\n";
        result.module->print(llvm::outs());
        llvm::outs() << "\n";
        continue;
      }
      launchers::Compiled launcher;
      std::string launcherError =
          describe(*kernel, config, *result.module, launcher);
      bool launcherOk = launcherError.empty();
      if (!launcherOk)
        llvm::errs() << "tesselc: error: " << launcherError << "\n";
      for (llvm::StringRef targetName : llvm::split(targets, ',')) {
        const codegen::TargetInfo *target = codegen::lookupTarget(targetName);
        mlir::OwningOpRef<mlir::ModuleOp> module = result.module->clone();
        // With --variants, files are numbered per configuration (the .txt
        // report names it).
        std::string stem =
            kernel->name + "." +
            (variants ? std::to_string(configIndex) + "." : std::string()) +
            targetName.str();
        codegen::DumpFn dump;
        if (!dumpDir.empty())
          dump = [&](const std::string &stage, const std::string &text) {
            writeFile(dumpDir + "/" + stem + "." + stage + ".txt", text);
          };
        mlir::FailureOr<codegen::Artifact> artifact =
            codegen::compile(*module, *target, emit == "cubin", dump);
        if (mlir::failed(artifact)) {
          llvm::errs() << "tesselc: error: compiling " << what << " for "
                       << targetName << " failed\n";
          ++failures;
          continue;
        }
        std::string base = outputDir + "/" + stem;
        bool ok = writeFile(base + ".ptx", artifact->ptx);
        if (emit == "cubin") {
          ok &= writeFile(base + ".cubin", std::string(artifact->cubin.begin(),
                                                       artifact->cubin.end()));
          const codegen::ResourceUsage &u = artifact->usage;
          ok &= writeFile(
              base + ".txt",
              fmt::format("kernel {}\ntarget {}\nconfig {}\nwarps {}\n"
                          "registers {}\nshared_bytes {}\n"
                          "dynamic_shared_bytes {}\nspill_stores {}\n"
                          "spill_loads {}\nstack_bytes {}\n",
                          kernel->name, targetName.str(),
                          configString(*kernel, config), artifact->numWarps,
                          u.registers, artifact->sharedBytes,
                          artifact->dynamicSharedBytes, u.spillStores,
                          u.spillLoads, u.stackBytes));
        }
        if (!ok) {
          ++failures;
          continue;
        }
        rows.push_back({kernel->name, targetName.str(), *artifact,
                        configString(*kernel, config)});
        if (!library.empty() && launcher.numWarps &&
            launcher.numWarps != artifact->numWarps) {
          llvm::errs() << "tesselc: error: " << what
                       << " uses different warp counts per target; a "
                          "generated launcher needs one\n";
          launcherOk = false;
        }
        launcher.numWarps = artifact->numWarps;
        launcher.dynamicShared =
            std::max(launcher.dynamicShared, artifact->dynamicSharedBytes);
        launcher.images.push_back({targetName.str(), artifact->cubin});
      }
      if (!library.empty() && launcherOk) {
        std::string error =
            launchers::addCompiled(libraryKernel, std::move(launcher));
        if (!error.empty())
          return fail(error + " (--library " + library + ")");
      } else if (!launcherOk) {
        ++failures;
      }
    }
    if (!libraryKernel.compiled.empty())
      launched.push_back(std::move(libraryKernel));
  }
  if (!rows.empty()) {
    fmt::print("{:<16} {:<8} {:>5} {:>5} {:>8} {:>7} {:>9}  {}\n", "kernel",
               "target", "warps", "regs", "smem", "spills", "cubin",
               variants ? "config" : "files");
    for (const Row &row : rows)
      fmt::print(
          "{:<16} {:<8} {:>5} {:>5} {:>8} {:>7} {:>9}  {}\n", row.kernel,
          row.target, row.artifact.numWarps, row.artifact.usage.registers,
          row.artifact.sharedBytes + row.artifact.dynamicSharedBytes,
          row.artifact.usage.spillStores + row.artifact.usage.spillLoads,
          row.artifact.cubin.size(),
          variants
              ? row.config
              : fmt::format("{}/{}.{}.{{ptx{}}}", outputDir.getValue(),
                            row.kernel, row.target,
                            row.artifact.cubin.empty() ? "" : ",cubin,txt"));
  }
  if (!library.empty() && !failures) {
    if (emit != "cubin")
      return fail("--library needs --emit=cubin");
    std::string ns =
        cxxNamespace.empty() ? library.getValue() : cxxNamespace.getValue();
    std::string base = outputDir + "/" + library;
    if (!writeFile(base + ".h",
                   launchers::generateHeader(library, ns, launched)) ||
        !writeFile(base + ".cpp",
                   launchers::generateSource(library, ns, launched)))
      return 1;
    fmt::print("wrote {}.h and {}.cpp ({} kernels)\n", base, base,
               launched.size());
  }
  if (failures)
    return fail(fmt::format("{} kernel configuration(s) failed", failures));
  return 0;
}
