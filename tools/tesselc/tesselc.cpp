//===- tesselc.cpp - the tessel ahead-of-time compiler driver -------------===//
//
//   tesselc [--target=sm_103a,sm_100a,sm_90a] [-o DIR] [--dump-dir DIR]
//           [-D NAME=VALUE]... [--variants] [--library NAME [--namespace NS]]
//           [--sweep [KERNEL:]NAME=V1,V2]... [--tuned TABLE]
//           [--list] [--all-configs] [KERNEL...]
//
// Traces the registered kernels (all, or those named) for the chosen
// constants and compiles each for every target: DIR/<kernel>.<target>.ptx,
// .cubin and a resource report (.txt) from ptxas, then prints a table.
// --emit=tile prints the traced tile IR instead; --emit=ptx stops before ptxas.
// Autotuning: --sweep compiles the points of a search space (tessel-tune
// times them), --tuned compiles a tuned table's choices in and makes the
// generated launchers pick them by shape (runtime/Tuning.h).
//
//===----------------------------------------------------------------------===//

#include "codegen/Pipeline.h"
#include "tools/tesselc/Launchers.h"

#include "runtime/Tuning.h"

#include "dialect/tile/TileOps.h"
#include "dsl/Registry.h"
#include "dsl/Tracer.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <fmt/core.h>

#include <map>
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
    defines("D",
            cl::desc("Set a kernel constant (NAME=VALUE; with --variants, "
                     "NAME=V1,V2 compiles only those values of a variant)"),
            cl::Prefix, cl::cat(tesselcOptions));
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
static cl::list<std::string> sweeps(
    "sweep",
    cl::desc("Also compile every value listed for a tunable "
             "([KERNEL:]NAME=V1,V2,...; repeatable: the cartesian product), "
             "for tessel-tune; points the kernel rejects or ptxas cannot "
             "fit are skipped and listed"),
    cl::value_desc("[KERNEL:]NAME=V1,V2"), cl::cat(tesselcOptions));
static cl::opt<std::string> tunedTable(
    "tuned",
    cl::desc("A tuned table (tessel-tune's output): also compile each row's "
             "configuration for its target, and let the generated launchers "
             "pick it by shape"),
    cl::value_desc("FILE"), cl::cat(tesselcOptions));

//===----------------------------------------------------------------------===//
// Tuned tables
//===----------------------------------------------------------------------===//
//
// One row per line, tab-separated (lines starting with '#' are comments):
//
//   kernel  target  variant  shape  tunables  [ms  default_ms]
//   compute_out  sm_90a  Q=256,X_DTYPE=bf16,N_MAX=0  bL=65536,h=80,n=128
//       BLOCK_M=64,num_warps=4,...  1.812  1.850
//
// `variant` assigns the variant constants the row is for (a constant it
// leaves out matches every value: "-" matches every variant); `shape` gives
// the kernel's shape key, every size in the kernel's order; `tunables`
// overrides the defaults ("-": none).

namespace {

struct TableRow {
  std::string where; // "FILE:LINE"
  std::string kernel, target;
  std::map<std::string, int64_t> variant, tunables;
  std::vector<int64_t> shape;
  std::string note;
};

std::vector<std::string> splitOn(const std::string &text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (true) {
    size_t at = text.find(sep, start);
    out.push_back(text.substr(start, at - start));
    if (at == std::string::npos)
      return out;
    start = at + 1;
  }
}

/// Parses a tuned table; returns an error message naming FILE:LINE.
std::string parseTable(const std::string &path, std::vector<TableRow> &rows) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return "cannot read tuned table '" + path +
           "': " + buffer.getError().message();
  llvm::StringRef text = (*buffer)->getBuffer();
  text.consume_front("\xEF\xBB\xBF"); // a UTF-8 byte-order mark
  std::vector<std::string> lines = splitOn(text.str(), '\n');
  for (size_t i = 0; i < lines.size(); ++i) {
    std::string line = lines[i];
    if (!line.empty() && line.back() == '\r')
      line.pop_back();
    if (llvm::StringRef(line).trim().empty() ||
        llvm::StringRef(line).ltrim().starts_with("#"))
      continue;
    TableRow row;
    row.where = path + ":" + std::to_string(i + 1);
    std::vector<std::string> f = splitOn(line, '\t');
    if (f.size() < 5 || f.size() > 7)
      return row.where + ": expected 5 to 7 tab-separated fields (kernel, "
                         "target, variant, shape, tunables[, ms, "
                         "default_ms]), got " +
             std::to_string(f.size());
    row.kernel = f[0];
    row.target = f[1];
    const KernelDef *k = findKernel(row.kernel);
    if (!k)
      return row.where + ": no kernel named '" + row.kernel + "'";
    if (!codegen::lookupTarget(row.target))
      return row.where + ": unknown target '" + row.target + "'";
    Config scratch = defaultConfig(*k);
    auto assignments = [&](const std::string &text, bool tunable,
                           std::map<std::string, int64_t> &into) {
      if (text == "-")
        return std::string();
      for (const std::string &a : splitOn(text, ',')) {
        std::string error = parseAssignment(*k, a, scratch);
        if (!error.empty())
          return error;
        std::string name = a.substr(0, a.find('='));
        if (into.count(name))
          return "'" + name + "' is given twice";
        for (const Param &p : k->params)
          if (p.name == name && p.tunable != tunable)
            return "'" + name + "' is " +
                   (p.tunable ? "a tunable" : "a variant constant") +
                   ", not " + (tunable ? "a tunable" : "a variant constant");
        into[name] = scratch.all().at(name);
      }
      return std::string();
    };
    if (std::string e = assignments(f[2], false, row.variant); !e.empty())
      return row.where + ": " + e;
    if (std::string e = assignments(f[4], true, row.tunables); !e.empty())
      return row.where + ": " + e;
    if (std::string e = k->check ? k->check([&] {
          std::map<std::string, int64_t> assigned = row.variant;
          assigned.insert(row.tunables.begin(), row.tunables.end());
          return defaultConfig(*k, assigned);
        }())
                                 : "";
        !e.empty())
      return row.where + ": kernel '" + row.kernel + "' rejects it: " + e;
    std::vector<std::string> sizes =
        f[3] == "-" ? std::vector<std::string>() : splitOn(f[3], ',');
    if (sizes.size() != k->shapeKey.size()) {
      std::string names;
      for (const KeyDim &d : k->shapeKey)
        names += (names.empty() ? "" : ",") + d.name;
      return row.where + ": the shape of kernel '" + row.kernel +
             "' has the sizes " + (names.empty() ? "(none: -)" : names) +
             ", got '" + f[3] + "'";
    }
    for (size_t d = 0; d < sizes.size(); ++d) {
      const std::string &want = k->shapeKey[d].name;
      int64_t value = 0;
      if (sizes[d].rfind(want + "=", 0) != 0 ||
          llvm::StringRef(sizes[d]).substr(want.size() + 1).getAsInteger(
              10, value) ||
          value < 1)
        return row.where + ": shape size " + std::to_string(d + 1) +
               " must be " + want + "=<positive integer>, got '" + sizes[d] +
               "'";
      row.shape.push_back(value);
    }
    if (f.size() >= 6)
      row.note = f[5] + " ms" + (f.size() == 7 ? " (default " + f[6] + ")" : "");
    // A row is shadowed by an earlier one of the same kernel, target and
    // shape that matches every variant it matches (the earlier one's
    // constants a subset of its own): the nearest-shape dispatch keeps the
    // first of equally near rows, so the later one could never be chosen.
    for (const TableRow &other : rows) {
      if (other.kernel != row.kernel || other.target != row.target ||
          other.shape != row.shape)
        continue;
      bool covers = true;
      for (const auto &[name, value] : other.variant) {
        auto it = row.variant.find(name);
        covers &= it != row.variant.end() && it->second == value;
      }
      if (!covers)
        continue;
      const bool same = other.variant == row.variant;
      return row.where + ": the same kernel, target" +
             (same ? ", variant" : "") + " and shape as " + other.where +
             (same ? "" : ", whose variant covers this one's") +
             " (only the first could ever be chosen)";
    }
    rows.push_back(std::move(row));
  }
  return "";
}

/// The values of `kernel`'s variant (or tunable) constants in `config`.
std::vector<int64_t> valuesOf(const KernelDef &kernel, const Config &config,
                              bool tunable) {
  std::vector<int64_t> out;
  for (const Param &p : kernel.params)
    if (p.tunable == tunable)
      out.push_back(config.all().at(p.name));
  return out;
}

/// One configuration to compile, for some targets.
struct Job {
  Config config;
  std::vector<std::string> targets;
  bool isDefault = false;
  bool optional = false; // a sweep point: failing to compile skips it
};

} // namespace

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

/// The value of constant `name` of `config` into *out; false unless it is
/// one, positive.
static bool positiveConstant(const Config &config, const std::string &name,
                             int64_t *out) {
  auto it = config.all().find(name);
  if (it == config.all().end() || it->second < 1)
    return false;
  *out = it->second;
  return true;
}

/// A size `view` along `dim`, times `timesView` along `timesDim` when given
/// (a shape key's or a shape rule's), in terms of the launcher's view
/// parameters: into out's param, dim, timesParam (-1 without a second view)
/// and timesDim. Else what is wrong, `what` naming the declaration ("the
/// shape key of kernel 'k'").
template <class Sizes>
static std::string resolveSizes(const launchers::Compiled &k,
                                const std::string &what,
                                const std::string &view, int dim,
                                const std::string &timesView, int timesDim,
                                Sizes &out) {
  auto viewParam = [&](const std::string &name) {
    for (size_t i = 0; i < k.params.size(); ++i)
      if (k.params[i].name == name && k.params[i].isView)
        return static_cast<int>(i);
    return -1;
  };
  out.param = viewParam(view);
  out.dim = dim;
  if (out.param < 0 || dim < 0 || dim >= k.params[out.param].rank)
    return what + " uses '" + view + "' dimension " + std::to_string(dim) +
           ", which is not a dimension of one of its view parameters";
  out.timesParam = -1;
  out.timesDim = 0;
  if (timesView.empty())
    return "";
  out.timesParam = viewParam(timesView);
  out.timesDim = timesDim;
  if (out.timesParam < 0 || timesDim < 0 ||
      timesDim >= k.params[out.timesParam].rank)
    return what + " multiplies by '" + timesView + "' dimension " +
           std::to_string(timesDim) +
           ", which is not a dimension of one of its view parameters";
  return "";
}

/// The launcher description of a traced kernel (its parameters come from the
/// kernel function's signature and argument names). Returns an error message
/// when the kernel's grid or shape rules do not fit its parameters.
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
    // The generated launchers (--library) declare these beside the kernel's
    // parameters.
    static const std::set<std::string> reserved = {
        "variant", "tunables", "stream", "grid", "e",   "args",  "config",
        "out",     "shapeOut", "key",    "shape", "t",  "values", "target",
        "row",     "chosen",   "s",      "v"};
    if (!library.empty() && reserved.count(p.name))
      return "parameter '" + p.name + "' of kernel '" + def.name +
             "' has a name the generated launchers use; rename it";
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
    if (!g.divisor.empty() && !positiveConstant(config, g.divisor, &d.divisor))
      return "the grid of kernel '" + def.name + "' divides by '" + g.divisor +
             "', which is not a positive constant of it";
    k.grid.push_back(d);
  }
  for (const ShapeRule &rule : def.shapeRules) {
    launchers::ShapeRule r;
    if (std::string problem =
            resolveSizes(k, "a shape rule of kernel '" + def.name + "'",
                         rule.view, rule.dim, rule.timesView, rule.timesDim, r);
        !problem.empty())
      return problem;
    if (!rule.multipleOf.empty() &&
        !positiveConstant(config, rule.multipleOf, &r.multiple))
      return "a shape rule of kernel '" + def.name +
             "' asks for a multiple "
             "of '" +
             rule.multipleOf +
             "', which is not a positive "
             "constant of it";
    r.multipleOf = rule.multipleOf;
    k.rules.push_back(r);
  }
  return "";
}

/// The kernel's shape key in terms of the launcher's parameters.
static std::string resolveShapeKey(const KernelDef &def,
                                   const launchers::Compiled &k,
                                   std::vector<launchers::KeyDim> &out) {
  if (def.shapeKey.size() > rt::kMaxShapeDims)
    return "the shape key of kernel '" + def.name + "' has " +
           std::to_string(def.shapeKey.size()) + " sizes (at most " +
           std::to_string(rt::kMaxShapeDims) + ")";
  for (const KeyDim &d : def.shapeKey) {
    launchers::KeyDim r;
    r.name = d.name;
    if (std::string problem =
            resolveSizes(k, "the shape key of kernel '" + def.name + "'",
                         d.view, d.dim, d.timesView, d.timesDim, r);
        !problem.empty())
      return problem;
    out.push_back(r);
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
    // The defaults of tunables that differ by variant (variantDefaults).
    std::map<std::string, std::set<int64_t>> byVariant;
    if (k->variantDefaults)
      for (const Config &c : variantConfigs(*k))
        for (const auto &[name, value] : c.all())
          byVariant[name].insert(value);
    for (const Param &p : k->params) {
      std::string values;
      for (int64_t v : p.values)
        values += (values.empty() ? "" : ", ") +
                  (p.isDType ? std::string(dtypeName(static_cast<DType>(v)))
                             : std::to_string(v));
      std::string def = p.isDType
                            ? dtypeName(static_cast<DType>(p.defaultValue))
                            : std::to_string(p.defaultValue);
      if (p.tunable && byVariant[p.name].size() > 1) {
        std::string all;
        for (int64_t v : byVariant[p.name])
          all += (all.empty() ? "" : "/") + std::to_string(v);
        def += " (by variant: " + all + ")";
      }
      fmt::print("  {:<12} {:<8} {{{}}} default {}  {}\n", p.name,
                 p.tunable ? "tunable" : "variant", values, def, p.doc);
    }
    fmt::print("  {} configurations\n", countConfigs(*k));
  }
}

int main(int argc, char **argv) {
  cl::HideUnrelatedOptions(tesselcOptions);
  cl::ParseCommandLineOptions(argc, argv, "tessel ahead-of-time compiler\n");
  if (std::vector<std::string> problems = dsl::registryProblems();
      !problems.empty()) {
    for (const std::string &p : problems)
      llvm::errs() << p << "\n";
    return 1;
  }
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
  if (allConfigs && !defines.empty())
    return fail("-D and --all-configs do not go together (the latter "
                "compiles every configuration; the -D values were ignored)");
  {
    // One value per constant (the last given won); value lists, with
    // --variants, narrow each other.
    std::set<std::string> given;
    for (const std::string &d : defines) {
      const size_t eq = d.find('=');
      if (eq == std::string::npos || d.find(',', eq) != std::string::npos)
        continue;
      if (!given.insert(d.substr(0, eq)).second)
        return fail("-D " + d + ": '" + d.substr(0, eq) +
                    "' is given a value twice");
    }
  }
  if (emit != "tile" && emit != "ptx" && emit != "cubin")
    return fail(fmt::format("unknown --emit={} (known: cubin, ptx, tile)",
                            emit.getValue()));

  if (outputDir.empty())
    return fail("-o: the output directory is empty (give a path, e.g. -o .)");
  if (library.getNumOccurrences() && library.empty())
    return fail("--library: the name is empty");
  // --library's NAME names files and, without --namespace, the namespace;
  // --namespace may nest (a::b).
  auto identifier = [](llvm::StringRef s) {
    if (s.empty() || !(llvm::isAlpha(s[0]) || s[0] == '_'))
      return false;
    return llvm::all_of(s, [](char c) { return llvm::isAlnum(c) || c == '_'; });
  };
  if (!library.empty() && cxxNamespace.empty() && !identifier(library))
    return fail("--library " + library.getValue() +
                ": the name is also the launchers' C++ namespace, so it must "
                "be an identifier (letters, digits, '_'; or give --namespace)");
  if (!cxxNamespace.empty()) {
    llvm::SmallVector<llvm::StringRef> parts;
    llvm::StringRef(cxxNamespace).split(parts, "::");
    if (!llvm::all_of(parts, identifier))
      return fail("--namespace " + cxxNamespace.getValue() +
                  ": not a C++ namespace name (identifiers joined by ::)");
  }
  if (library.find_first_of("/\\") != std::string::npos)
    return fail("--library " + library.getValue() +
                ": a name, not a path (the files go to -o's directory)");
  {
    std::set<std::string> seen;
    for (llvm::StringRef target : llvm::split(targets, ','))
      if (!seen.insert(target.str()).second)
        return fail("--target names '" + target.str() + "' twice");
    seen.clear();
    for (const std::string &name : kernelNames)
      if (!seen.insert(name).second)
        return fail("kernel '" + name + "' is named twice");
  }

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
    if (!dir.empty()) {
      if (std::error_code ec = llvm::sys::fs::create_directories(dir))
        return fail(fmt::format("cannot create '{}': {}", dir, ec.message()));
      if (!llvm::sys::fs::is_directory(dir))
        return fail(fmt::format("'{}' is not a directory", dir));
    }
  // Whether a kernel compiled here (named `only`, if given) has constant
  // `name`: -D and --sweep of one that none has would be ignored silently.
  auto someKernelHas = [&](const std::string &name,
                           const std::string &only = "") {
    for (const KernelDef *k : kernels)
      if (only.empty() || only == k->name)
        for (const Param &p : k->params)
          if (p.name == name)
            return true;
    return false;
  };
  for (const std::string &d : defines) {
    std::string name = d.substr(0, d.find('='));
    if (d.find('=') != std::string::npos && !someKernelHas(name))
      return fail("-D " + d + ": no kernel compiled here has a constant '" +
                  name + "'");
  }

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
  // The sweep: NAME -> values (tunables only; checked per kernel).
  // [KERNEL:]NAME -> values (tunables only; checked per kernel).
  struct Sweep {
    std::string kernel, name;
    std::vector<std::string> values;
  };
  std::vector<Sweep> sweepValues;
  for (const std::string &sw : sweeps) {
    size_t eq = sw.find('='), colon = sw.find(':');
    if (colon > eq)
      colon = std::string::npos;
    size_t nameAt = colon == std::string::npos ? 0 : colon + 1;
    if (eq == std::string::npos || eq == nameAt || eq + 1 == sw.size())
      return fail("--sweep expects [KERNEL:]NAME=V1,V2,..., got '" + sw + "'");
    Sweep w{colon == std::string::npos ? "" : sw.substr(0, colon),
            sw.substr(nameAt, eq - nameAt), splitOn(sw.substr(eq + 1), ',')};
    if (!w.kernel.empty() && !findKernel(w.kernel))
      return fail("--sweep " + sw + ": no kernel named '" + w.kernel + "'");
    // A second sweep of a constant would replace the first's values.
    for (const Sweep &other : sweepValues)
      if (other.name == w.name && (other.kernel.empty() || w.kernel.empty() ||
                                   other.kernel == w.kernel))
        return fail("--sweep " + sw + ": '" + w.name +
                    "' is swept twice (list all its values in one --sweep)");
    if (!someKernelHas(w.name, w.kernel))
      return fail("--sweep " + sw + ": no kernel compiled here has a "
                  "constant '" + w.name + "'");
    sweepValues.push_back(std::move(w));
  }
  if ((!sweepValues.empty() || !tunedTable.empty()) && allConfigs)
    return fail("--sweep and --tuned do not go with --all-configs");
  std::vector<TableRow> table;
  if (!tunedTable.empty())
    if (std::string error = parseTable(tunedTable, table); !error.empty())
      return fail(error);
  std::vector<std::string> targetList;
  for (llvm::StringRef t : llvm::split(targets, ','))
    targetList.push_back(t.str());
  // --all-configs builds every point in memory and traces it: a space that
  // could not finish (compute_out's has some 10^14 points) is refused before
  // anything is traced.
  constexpr size_t kMostConfigs = 100000;
  if (allConfigs)
    for (const KernelDef *kernel : kernels)
      if (size_t n = countConfigs(*kernel); n > kMostConfigs)
        return fail(fmt::format(
            "--all-configs: kernel '{}' has {} configurations, more than the "
            "{} it traces (name fewer kernels, or compile chosen points with "
            "-D and --sweep)",
            kernel->name, n, kMostConfigs));
  const bool numbered = variants || !sweepValues.empty() || !table.empty();
  int skipped = 0;
  for (const KernelDef *kernel : kernels) {
    launchers::Kernel libraryKernel;
    libraryKernel.name = kernel->name;
    libraryKernel.summary = kernel->summary;
    for (const Param &p : kernel->params)
      if (!p.tunable)
        libraryKernel.variants.push_back(
            {p.name, p.doc, p.defaultValue, p.isDType});
      else
        libraryKernel.tunables.push_back({p.name, p.doc, p.defaultValue});
    std::vector<Config> configs;
    if (allConfigs) {
      configs = enumerateConfigs(*kernel);
    } else {
      Config config = defaultConfig(*kernel);
      std::set<std::string> fixed;
      // -D NAME=V1,V2 with --variants: only those values of a variant.
      std::map<std::string, std::set<int64_t>> only;
      for (const std::string &d : defines) {
        size_t eq = d.find('=');
        if (variants && eq != std::string::npos &&
            d.find(',', eq) != std::string::npos) {
          std::string name = d.substr(0, eq);
          for (const std::string &v : splitOn(d.substr(eq + 1), ',')) {
            Config scratch = config;
            std::string error = parseAssignment(*kernel, name + "=" + v,
                                                scratch);
            if (error.find("has no constant") != std::string::npos)
              break;
            if (!error.empty())
              return fail(error);
            for (const Param &p : kernel->params)
              if (p.name == name && p.tunable)
                return fail("-D " + d + ": '" + name +
                            "' is a tunable; a list of values is for "
                            "variant constants (--sweep compiles tunables)");
            only[name].insert(scratch.all().at(name));
          }
          continue;
        }
        std::string error = parseAssignment(*kernel, d, config);
        // A constant that only some of the named kernels have is fine.
        if (!error.empty() &&
            error.find("has no constant") == std::string::npos)
          return fail(error);
        fixed.insert(d.substr(0, d.find('=')));
      }
      // Each variant's tunables at their defaults for it (the kernel's
      // variantDefaults), those given by -D kept.
      std::map<std::string, int64_t> assigned;
      for (const std::string &name : fixed)
        if (config.has(name)) // (-D of a constant only others have: skipped)
          assigned[name] = config.all().at(name);
      if (variants)
        configs = variantConfigs(*kernel, assigned);
      else
        configs.push_back(defaultConfig(*kernel, assigned));
      std::erase_if(configs, [&](const Config &c) {
        for (const auto &[name, values] : only)
          if (!values.count(c.all().at(name)))
            return true;
        return false;
      });
      if (configs.empty())
        return fail("the -D values leave no configuration of kernel '" +
                    kernel->name +
                    "' to compile (a constant given twice "
                    "with different values?)");
    }
    // What to compile: each configuration for every target; with --sweep
    // every point of the sweep around it; with --tuned the configuration of
    // each row that matches its variant, for that row's target.
    std::vector<Job> jobs;
    std::vector<std::pair<const TableRow *, size_t>> rowJobs; // row, job
    auto addJob = [&](const Config &c, const std::vector<std::string> &ts,
                      bool isDefault, bool optional) -> size_t {
      std::string text = configString(*kernel, c);
      for (size_t j = 0; j < jobs.size(); ++j) {
        if (configString(*kernel, jobs[j].config) != text)
          continue;
        for (const std::string &t : ts)
          if (std::find(jobs[j].targets.begin(), jobs[j].targets.end(), t) ==
              jobs[j].targets.end())
            jobs[j].targets.push_back(t);
        jobs[j].isDefault |= isDefault;
        jobs[j].optional &= optional;
        return j;
      }
      jobs.push_back({c, ts, isDefault, optional});
      return jobs.size() - 1;
    };
    for (const Config &config : configs) {
      addJob(config, targetList, true, false);
      if (!sweepValues.empty()) {
        std::vector<Config> points = {config};
        for (const auto &[sweepKernel, name, values] : sweepValues) {
          if (!sweepKernel.empty() && sweepKernel != kernel->name)
            continue;
          auto param = std::find_if(
              kernel->params.begin(), kernel->params.end(),
              [&](const Param &p) { return p.name == name; });
          if (param == kernel->params.end())
            continue; // a constant of another of the named kernels
          if (!param->tunable)
            return fail("--sweep " + name + ": '" + name +
                        "' is a variant constant of kernel '" + kernel->name +
                        "' (sweep tunables; --variants compiles variants)");
          std::vector<Config> next;
          for (const Config &c : points)
            for (const std::string &v : values) {
              Config d = c;
              std::string error = parseAssignment(*kernel, name + "=" + v, d);
              if (!error.empty())
                return fail("--sweep: " + error);
              next.push_back(std::move(d));
            }
          points = std::move(next);
        }
        for (const Config &c : points) {
          if (kernel->check) {
            if (std::string why = kernel->check(c); !why.empty()) {
              fmt::print("skipped {} [{}]: {}\n", kernel->name,
                         configString(*kernel, c), why);
              ++skipped;
              continue;
            }
          }
          addJob(c, targetList, false, true);
        }
      }
      for (const TableRow &row : table) {
        if (row.kernel != kernel->name ||
            std::find(targetList.begin(), targetList.end(), row.target) ==
                targetList.end())
          continue;
        bool matches = true;
        for (const auto &[name, value] : row.variant)
          matches &= config.all().at(name) == value;
        if (!matches)
          continue;
        Config c = config;
        for (const auto &[name, value] : row.tunables)
          c.set(name, value);
        if (kernel->check)
          if (std::string why = kernel->check(c); !why.empty())
            return fail(row.where + ": kernel '" + kernel->name +
                        "' rejects it for [" + configString(*kernel, c) +
                        "]: " + why);
        rowJobs.push_back({&row, addJob(c, {row.target}, false, false)});
      }
    }
    std::vector<int> jobEntry(jobs.size(), -1);
    for (size_t configIndex = 0; configIndex < jobs.size(); ++configIndex) {
      const Job &job = jobs[configIndex];
      const Config &config = job.config;
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
      launcher.tunables = valuesOf(*kernel, config, true);
      launcher.isDefault = job.isDefault;
      if (launcherError.empty() && libraryKernel.shapeKey.empty() &&
          !kernel->shapeKey.empty())
        launcherError = resolveShapeKey(*kernel, launcher,
                                        libraryKernel.shapeKey);
      bool launcherOk = launcherError.empty();
      if (!launcherOk)
        llvm::errs() << "tesselc: error: " << launcherError << "\n";
      bool skip = false;
      std::vector<Row> jobRows;
      for (const std::string &targetName : job.targets) {
        const codegen::TargetInfo *target = codegen::lookupTarget(targetName);
        mlir::OwningOpRef<mlir::ModuleOp> module = result.module->clone();
        // Numbered per configuration when there are several (the .txt
        // report names it).
        std::string stem =
            kernel->name + "." +
            (numbered ? std::to_string(configIndex) + "." : std::string()) +
            targetName;
        codegen::DumpFn dump;
        if (!dumpDir.empty())
          dump = [&](const std::string &stage, const std::string &text) {
            if (!writeFile(dumpDir + "/" + stem + "." + stage + ".txt", text))
              ++failures;
          };
        mlir::FailureOr<codegen::Artifact> artifact =
            codegen::compile(*module, *target, emit == "cubin", dump);
        if (mlir::failed(artifact)) {
          if (job.optional) {
            fmt::print("skipped {} for {}: it does not compile (above)\n",
                       what, targetName);
            ++skipped;
            skip = true;
            break;
          }
          llvm::errs() << "tesselc: error: compiling " << what << " for "
                       << targetName << " failed\n";
          ++failures;
          continue;
        }
        for (const std::string &warning : artifact->warnings)
          llvm::errs() << "tesselc: warning: " << warning << "\n";
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
                          "spill_loads {}\nstack_bytes {}\n"
                          "programmatic_launch {}\ntmem_columns {}\n"
                          "ctas_per_sm {}\nctas_limited_by {}\n",
                          kernel->name, targetName,
                          configString(*kernel, config), artifact->numWarps,
                          u.registers, artifact->sharedBytes,
                          artifact->dynamicSharedBytes, u.spillStores,
                          u.spillLoads, u.stackBytes,
                          artifact->programmaticLaunch ? 1 : 0,
                          artifact->tmemColumns, artifact->residency.ctas,
                          artifact->residency.limit.str()));
        }
        if (!ok) {
          ++failures;
          continue;
        }
        jobRows.push_back({kernel->name, targetName, *artifact,
                           configString(*kernel, config)});
        if (!library.empty() && launcher.numWarps &&
            launcher.numWarps != artifact->numWarps) {
          llvm::errs() << "tesselc: error: " << what
                       << " uses different warp counts per target; a "
                          "generated launcher needs one\n";
          launcherOk = false;
        }
        if (!library.empty() && !launcher.images.empty() &&
            launcher.programmaticLaunch != artifact->programmaticLaunch) {
          llvm::errs() << "tesselc: error: " << what
                       << " is compiled for programmatic launch on some "
                          "targets only; a generated launcher needs one way\n";
          launcherOk = false;
        }
        launcher.programmaticLaunch = artifact->programmaticLaunch;
        launcher.numWarps = artifact->numWarps;
        launcher.dynamicShared =
            std::max(launcher.dynamicShared, artifact->dynamicSharedBytes);
        launcher.images.push_back({targetName, artifact->cubin});
      }
      if (skip)
        continue;
      rows.insert(rows.end(), jobRows.begin(), jobRows.end());
      if (!library.empty() && launcherOk) {
        jobEntry[configIndex] = static_cast<int>(libraryKernel.compiled.size());
        std::string error =
            launchers::addCompiled(libraryKernel, std::move(launcher));
        if (!error.empty())
          return fail(error + " (--library " + library + ")");
      } else if (!launcherOk) {
        ++failures;
      }
    }
    for (const auto &[row, job] : rowJobs) {
      if (jobEntry[job] < 0)
        continue; // its failure is reported above
      launchers::TunedRow r;
      r.target = row->target;
      r.key = valuesOf(*kernel, jobs[job].config, false);
      r.shape = row->shape;
      r.entry = jobEntry[job];
      r.note = row->note;
      libraryKernel.rows.push_back(std::move(r));
    }
    if (!libraryKernel.compiled.empty())
      launched.push_back(std::move(libraryKernel));
  }
  if (!rows.empty()) {
    // CTAs/SM: how many fit on an SM at once, and the resource that limits
    // them (r registers, s shared memory, t tensor memory, w warps, c CTA
    // slots).
    fmt::print("{:<16} {:<8} {:>5} {:>5} {:>8} {:>5} {:>7} {:>7} {:>9}  {}\n",
               "kernel", "target", "warps", "regs", "smem", "tmem", "CTAs/SM",
               "spills", "cubin", numbered ? "config" : "files");
    for (const Row &row : rows)
      fmt::print(
          "{:<16} {:<8} {:>5} {:>5} {:>8} {:>5} {:>7} {:>7} {:>9}  {}\n",
          row.kernel, row.target, row.artifact.numWarps,
          row.artifact.usage.registers,
          row.artifact.sharedBytes + row.artifact.dynamicSharedBytes,
          row.artifact.tmemColumns,
          fmt::format("{} {}", row.artifact.residency.ctas,
                      row.artifact.residency.limit.empty()
                          ? ' '
                          : llvm::toLower(row.artifact.residency.limit.front())),
          row.artifact.usage.spillStores + row.artifact.usage.spillLoads,
          row.artifact.cubin.size(),
          numbered
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
  if (skipped)
    fmt::print("{} sweep point(s) skipped (listed above)\n", skipped);
  if (failures)
    return fail(fmt::format("{} kernel configuration(s) failed", failures));
  return 0;
}
