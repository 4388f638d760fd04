//===- Registry.h - kernel registration and tracing -------------*- C++ -*-===//
//
// A kernel is registered with a name, a search space of compile-time
// constants (tile sizes and warps to tune, variants such as dtypes to
// specialise on) and a build function that defines it for one configuration:
//
//   static const Register reg{{
//       .name = "scale",
//       .summary = "y = exp2(x * s)",
//       .params = {tunable("BM", {32, 64, 128}, 64)},
//       .build = [](const Config &cfg) {
//         define(scale, cfg, {"x", "y", "s"});
//       }}};
//
// Tools enumerate the registry (tesselc compiles every kernel, tessel-tune
// every point of a search space).
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_DSL_REGISTRY_H
#define TESSEL_DSL_REGISTRY_H

#include "dsl/Tessel.h"

#include <map>
#include <string>
#include <vector>

namespace tessel::dsl {

/// One compile-time constant of a kernel and the values it may take.
struct Param {
  std::string name;
  std::vector<int64_t> values;
  int64_t defaultValue;
  /// Tunable constants change speed, not results; the others select a
  /// variant (a dtype, a chunk length) that the caller asks for.
  bool tunable = false;
  /// Values are DTypes (printed by name).
  bool isDType = false;
  std::string doc;
};

Param tunable(std::string name, std::vector<int64_t> values,
              int64_t defaultValue, std::string doc = "");
Param variant(std::string name, std::vector<int64_t> values,
              int64_t defaultValue, std::string doc = "");
Param dtypeVariant(std::string name, std::vector<DType> values,
                   DType defaultValue, std::string doc = "");

/// One dimension of a kernel's launch grid, from the shapes of its arguments:
/// ceil(size of `view` along `dim` / constant `divisor`), times the size of
/// `timesView` along `timesDim` when that is given (a grid dimension that
/// folds two loops, e.g. batch x heads), or 1 when `view` is empty. The
/// generated launchers compute the grid this way.
struct GridDim {
  std::string view;
  int dim = 0;
  std::string divisor;   // a constant of the kernel, or "" for 1
  std::string timesView = ""; // "" for none
  int timesDim = 0;
};

/// One size of a kernel's shape key: the size of `view` along `dim`, times
/// that of `timesView` along `timesDim` when given. A tuned table keys its
/// choices on these sizes (runtime/Tuning.h), as the launchers compute them.
struct KeyDim {
  std::string name; // in the tuned table: "L=65536,bh=80"
  std::string view;
  int dim = 0;
  std::string timesView = "";
  int timesDim = 0;
};

/// A requirement on a kernel's argument shapes that its generated launchers
/// check (an error naming it, before anything is launched): the size of
/// `view` along `dim` is a multiple of constant `multipleOf` ("" for 1),
/// times the size of `timesView` along `timesDim` when that is given. E.g.
/// {"x", 2, "", "B", 2}: the heads are a multiple of the groups.
struct ShapeRule {
  std::string view;
  int dim = 0;
  std::string multipleOf;     // a constant of the kernel, or "" for 1
  std::string timesView = ""; // "" for none
  int timesDim = 0;
};

struct KernelDef {
  std::string name;
  std::string summary;
  std::vector<Param> params;
  /// The launch grid in terms of argument shapes (optional).
  std::vector<GridDim> grid = {};
  /// The sizes a tuned table keys its choices on (optional; none: one
  /// choice per variant and target).
  std::vector<KeyDim> shapeKey = {};
  /// What the launchers require of the argument shapes (optional).
  std::vector<ShapeRule> shapeRules = {};
  /// Defines the kernel for one configuration (calls define()).
  std::function<void(const Config &)> build;
  /// Rejects configurations that make no sense together (returns a reason),
  /// e.g. a block larger than what it tiles.
  std::function<std::string(const Config &)> check = nullptr;
  /// Defaults that depend on the variant (optional; what Triton's
  /// heuristics decorator does): given a configuration whose variant
  /// constants are set, the tunables whose default differs for that variant
  /// and their values there, e.g. {{"BLOCK_M", 128}} at Q = 256. Tunables
  /// not named keep their declared default. defaultConfig applies it to the
  /// tunables a caller does not set; tesselc compiles each variant's
  /// defaults so, and its launchers fall back to them.
  std::function<std::map<std::string, int64_t>(const Config &)>
      variantDefaults = nullptr;
};

/// Registers a kernel at static-initialisation time (`where`: the
/// registration, for registryProblems).
struct Register {
  explicit Register(KernelDef def, Loc where = Loc::current());
};

/// What is wrong with the registered kernels as a whole, one message each
/// (at their registrations): a name registered twice (the second would
/// overwrite the first's outputs), a kernel without a build function, a
/// parameter declared twice, without values, or whose default is not one
/// of its values. tesselc refuses to run while there are any.
std::vector<std::string> registryProblems();
/// The same checks on `kernels`, registered at `where` (one each).
std::vector<std::string>
kernelProblems(const std::vector<const KernelDef *> &kernels,
               const std::vector<Loc> &where);

/// All registered kernels, sorted by name.
std::vector<const KernelDef *> registeredKernels();
const KernelDef *findKernel(const std::string &name);

/// The default configuration with the constants in `assigned` (variants or
/// tunables) set: the assigned values, every other variant constant at its
/// declared default, and every other tunable at its default for the
/// variant this makes (the kernel's variantDefaults, else the declared
/// default).
Config defaultConfig(const KernelDef &kernel,
                     const std::map<std::string, int64_t> &assigned = {});
/// Every variant of `kernel` at its defaults: the constants in `fixed`
/// (variants or tunables) keep those values, the other variant constants
/// take each of theirs (their cartesian product), and the other tunables
/// their default for that variant (defaultConfig); skipping those the
/// kernel's check rejects.
std::vector<Config>
variantConfigs(const KernelDef &kernel,
               const std::map<std::string, int64_t> &fixed = {});
/// `Q=256,BLOCK_H=16,DT=bf16`: a configuration, for messages and file names.
std::string configString(const KernelDef &kernel, const Config &config);
/// Parses `NAME=VALUE` (values of dtype parameters by name) into `config`;
/// returns an error message, empty on success.
std::string parseAssignment(const KernelDef &kernel, const std::string &text,
                            Config &config);
/// Every configuration of the search space (the cartesian product), skipping
/// those the kernel's check rejects.
std::vector<Config> enumerateConfigs(const KernelDef &kernel);
/// How many points enumerateConfigs would give: the valid points of the
/// constants the kernel's check reads, times the combinations of the rest
/// (without listing them).
size_t countConfigs(const KernelDef &kernel);
/// The configurations that keep `base` but take every value of each
/// parameter `vary` selects (their cartesian product), skipping those the
/// kernel's check rejects.
std::vector<Config>
expandConfigs(const KernelDef &kernel, const Config &base,
              const std::function<bool(const Param &)> &vary);

//===----------------------------------------------------------------------===//
// define(): turning a C++ kernel function into a traced kernel
//===----------------------------------------------------------------------===//

/// What a kernel parameter is, from its C++ type.
struct ParamDesc {
  bool isView;
  DType dtype;
  int rank;
  unsigned flags;
};

template <class P> struct ParamTraits;
template <class T, int R, unsigned F> struct ParamTraits<View<T, R, F>> {
  static ParamDesc desc() { return {true, dtypeOf<T>(), R, F}; }
};
template <class T> struct ParamTraits<ScalarOf<T>> {
  static ParamDesc desc() { return {false, dtypeOf<T>(), 0, 0}; }
};

/// Starts the kernel function; returns its arguments.
RawValues beginKernel(const std::vector<ParamDesc> &params,
                      const std::vector<std::string> &names, const Config &cfg,
                      Loc loc);
void endKernel(Loc loc);

/// Defines the kernel from `fn`, whose parameters after the Config are views
/// and scalars; `names` names them (in the IR and the generated launchers).
template <class... Ps>
void define(void (*fn)(const Config &, Ps...), const Config &cfg,
            std::array<std::string, sizeof...(Ps)> names,
            Loc loc = Loc::current()) {
  RawValues args = beginKernel({ParamTraits<std::decay_t<Ps>>::desc()...},
                               {names.begin(), names.end()}, cfg, loc);
  if (args.size() != sizeof...(Ps))
    return;
  [&]<size_t... I>(std::index_sequence<I...>) {
    fn(cfg, std::decay_t<Ps>(args[I])...);
  }
  (std::index_sequence_for<Ps...>());
  endKernel(loc);
}

/// Sets a kernel hint (`num_warps`, `occupancy`, `num_stages`, `wgmma`,
/// `prefetch_registers`: see TileAttrs.td) for
/// `target` (`default`, `sm_90a`, `sm_100a`, `sm_103a`), from inside a kernel
/// body. `wgmma` = 1 asks for warpgroup MMA, which only sm_90a has: set it for
/// `sm_90a` (for another target, or `default`, compiling for sm_100a/sm_103a
/// is an error at the kernel).
void hint(const std::string &target, const std::string &name, int64_t value,
          Loc loc = Loc::current());
/// An array-valued hint (`cluster`: `hint("sm_90a", "cluster",
/// std::vector<int64_t>{2, 1})`). Spell the vector out for one size: a bare
/// `{2}` picks the integer overload, which the `cluster` hint rejects.
void hint(const std::string &target, const std::string &name,
          const std::vector<int64_t> &values, Loc loc = Loc::current());

} // namespace tessel::dsl

#endif // TESSEL_DSL_REGISTRY_H
