//===- Registry.cpp - kernel registry and search spaces -------------------===//

#include "dsl/Registry.h"

#include <algorithm>
#include <map>
#include <memory>

namespace tessel::dsl {

namespace {
std::vector<std::unique_ptr<KernelDef>> &storage() {
  static std::vector<std::unique_ptr<KernelDef>> kernels;
  return kernels;
}

std::string valueString(const Param &p, int64_t v) {
  return p.isDType ? dtypeName(static_cast<DType>(v)) : std::to_string(v);
}
} // namespace

Param tunable(std::string name, std::vector<int64_t> values,
              int64_t defaultValue, std::string doc) {
  return {std::move(name), std::move(values), defaultValue, true,
          false,           std::move(doc)};
}

Param variant(std::string name, std::vector<int64_t> values,
              int64_t defaultValue, std::string doc) {
  return {std::move(name), std::move(values), defaultValue, false,
          false,           std::move(doc)};
}

Param dtypeVariant(std::string name, std::vector<DType> values,
                   DType defaultValue, std::string doc) {
  std::vector<int64_t> ints;
  for (DType d : values)
    ints.push_back(static_cast<int64_t>(d));
  return {std::move(name),
          std::move(ints),
          static_cast<int64_t>(defaultValue),
          false,
          true,
          std::move(doc)};
}

namespace {
std::vector<Loc> &registrations() {
  static std::vector<Loc> where;
  return where;
}
std::string locText(const Loc &l) {
  return std::string(l.file_name()) + ":" + std::to_string(l.line());
}
} // namespace

Register::Register(KernelDef def, Loc where) {
  storage().push_back(std::make_unique<KernelDef>(std::move(def)));
  registrations().push_back(where);
}

std::vector<std::string> registryProblems() {
  std::vector<const KernelDef *> kernels;
  for (const auto &k : storage())
    kernels.push_back(k.get());
  return kernelProblems(kernels, registrations());
}

std::vector<std::string>
kernelProblems(const std::vector<const KernelDef *> &kernels,
               const std::vector<Loc> &where) {
  std::vector<std::string> problems;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const KernelDef &k = *kernels[i];
    const std::string at = locText(where[i]) + ": error: ";
    for (size_t j = 0; j < i; ++j)
      if (kernels[j]->name == k.name)
        problems.push_back(at + "kernel '" + k.name +
                           "' is registered again (first at " +
                           locText(where[j]) + ")");
    if (!k.build)
      problems.push_back(at + "kernel '" + k.name + "' has no build function");
    for (size_t p = 0; p < k.params.size(); ++p) {
      const Param &param = k.params[p];
      for (size_t q = 0; q < p; ++q)
        if (k.params[q].name == param.name)
          problems.push_back(at + "kernel '" + k.name +
                             "' declares the constant '" + param.name +
                             "' twice");
      if (param.values.empty())
        problems.push_back(at + "kernel '" + k.name + "': the constant '" +
                           param.name + "' has no values");
      else if (std::find(param.values.begin(), param.values.end(),
                         param.defaultValue) == param.values.end())
        problems.push_back(at + "kernel '" + k.name + "': the default " +
                           std::to_string(param.defaultValue) +
                           " of the constant '" + param.name +
                           "' is not one of its values");
    }
  }
  return problems;
}

std::vector<const KernelDef *> registeredKernels() {
  std::vector<const KernelDef *> out;
  for (const auto &k : storage())
    out.push_back(k.get());
  std::sort(out.begin(), out.end(), [](const KernelDef *a, const KernelDef *b) {
    return a->name < b->name;
  });
  return out;
}

const KernelDef *findKernel(const std::string &name) {
  for (const auto &k : storage())
    if (k->name == name)
      return k.get();
  return nullptr;
}

Config defaultConfig(const KernelDef &kernel,
                     const std::map<std::string, int64_t> &assigned) {
  Config config;
  for (const Param &p : kernel.params) {
    auto it = assigned.find(p.name);
    config.set(p.name, it != assigned.end() ? it->second : p.defaultValue);
  }
  if (kernel.variantDefaults)
    for (const auto &[name, value] : kernel.variantDefaults(config))
      if (!assigned.count(name) && config.has(name))
        config.set(name, value);
  return config;
}

std::string configString(const KernelDef &kernel, const Config &config) {
  std::string out;
  for (const Param &p : kernel.params) {
    if (!config.has(p.name))
      continue;
    out += (out.empty() ? "" : ",") + p.name + "=" +
           valueString(p, config.all().at(p.name));
  }
  return out;
}

std::string parseAssignment(const KernelDef &kernel, const std::string &text,
                            Config &config) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    return "expected NAME=VALUE, got '" + text + "'";
  std::string name = text.substr(0, eq), value = text.substr(eq + 1);
  auto it = std::find_if(kernel.params.begin(), kernel.params.end(),
                         [&](const Param &p) { return p.name == name; });
  if (it == kernel.params.end()) {
    std::string known;
    for (const Param &p : kernel.params)
      known += (known.empty() ? "" : ", ") + p.name;
    return "kernel '" + kernel.name + "' has no constant '" + name +
           "' (known: " + (known.empty() ? "none" : known) + ")";
  }
  for (int64_t v : it->values) {
    if (valueString(*it, v) == value) {
      config.set(name, v);
      return "";
    }
  }
  std::string allowed;
  for (int64_t v : it->values)
    allowed += (allowed.empty() ? "" : ", ") + valueString(*it, v);
  return "constant '" + name + "' of kernel '" + kernel.name + "' cannot be '" +
         value + "' (allowed: " + allowed + ")";
}

/// Calls `visit` on each configuration that keeps `base` but takes every
/// value of each parameter `vary` selects (their cartesian product) and that
/// the kernel's check accepts: an odometer, one point at a time (the spaces
/// run to millions of points), shared by the lists and the count.
static void
forEachConfig(const KernelDef &kernel, const Config &base,
              const std::function<bool(const Param &)> &vary,
              const std::function<void(const Config &)> &visit) {
  std::vector<const Param *> varied;
  for (const Param &p : kernel.params)
    if (vary(p))
      varied.push_back(&p);
  Config c = base;
  for (const Param *p : varied) {
    if (p->values.empty())
      return;
    c.set(p->name, p->values[0]);
  }
  std::vector<size_t> at(varied.size(), 0);
  while (true) {
    if (!kernel.check || kernel.check(c).empty())
      visit(c);
    // The last parameter turns fastest (the order of the lists the
    // variants' and sweeps' file numbers follow).
    size_t i = varied.size();
    for (; i > 0; --i) {
      const Param &p = *varied[i - 1];
      if (++at[i - 1] < p.values.size()) {
        c.set(p.name, p.values[at[i - 1]]);
        break;
      }
      at[i - 1] = 0;
      c.set(p.name, p.values[0]);
    }
    if (i == 0)
      return;
  }
}

std::vector<Config>
expandConfigs(const KernelDef &kernel, const Config &base,
              const std::function<bool(const Param &)> &vary) {
  std::vector<Config> valid;
  forEachConfig(kernel, base, vary,
                [&](const Config &c) { valid.push_back(c); });
  return valid;
}

std::vector<Config>
variantConfigs(const KernelDef &kernel,
               const std::map<std::string, int64_t> &fixed) {
  // The variants are walked unchecked: the check judges each at its own
  // defaults, not at the defaults of another variant.
  KernelDef unchecked = kernel;
  unchecked.check = nullptr;
  std::vector<Config> out;
  forEachConfig(
      unchecked, defaultConfig(kernel, fixed),
      [&](const Param &p) { return !p.tunable && !fixed.count(p.name); },
      [&](const Config &v) {
        std::map<std::string, int64_t> assigned = fixed;
        for (const Param &p : kernel.params)
          if (!p.tunable)
            assigned[p.name] = v.all().at(p.name);
        Config c = defaultConfig(kernel, assigned);
        if (!kernel.check || kernel.check(c).empty())
          out.push_back(std::move(c));
      });
  return out;
}

std::vector<Config> enumerateConfigs(const KernelDef &kernel) {
  return expandConfigs(kernel, Config(), [](const Param &) { return true; });
}

size_t countConfigs(const KernelDef &kernel) {
  // The check's verdict depends only on the constants it reads: the valid
  // points of those, times every combination of the others (compute_out's
  // space has over a billion points, its check reads eight constants).
  // Which it reads is learnt on the way: a walk that finds the check reading
  // a constant it does not vary starts over varying that one too.
  KernelDef unchecked = kernel;
  unchecked.check = nullptr;
  Config base;
  for (const Param &p : kernel.params)
    if (!p.values.empty())
      base.set(p.name, p.values[0]);
  std::set<std::string> read;
  while (true) {
    const size_t known = read.size();
    size_t valid = 0;
    forEachConfig(
        unchecked, base, [&](const Param &p) { return read.count(p.name); },
        [&](const Config &c) {
          if (read.size() != known)
            return; // starting over
          Config probe = c;
          probe.recordReads(&read);
          if (!kernel.check || kernel.check(probe).empty())
            ++valid;
        });
    if (read.size() != known)
      continue;
    for (const Param &p : kernel.params)
      if (!read.count(p.name))
        valid *= p.values.size();
    return valid;
  }
}

} // namespace tessel::dsl
