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

Register::Register(KernelDef def) {
  storage().push_back(std::make_unique<KernelDef>(std::move(def)));
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

Config defaultConfig(const KernelDef &kernel) {
  Config config;
  for (const Param &p : kernel.params)
    config.set(p.name, p.defaultValue);
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

std::vector<Config>
expandConfigs(const KernelDef &kernel, const Config &base,
              const std::function<bool(const Param &)> &vary) {
  std::vector<Config> configs = {base};
  for (const Param &p : kernel.params) {
    if (!vary(p))
      continue;
    std::vector<Config> next;
    for (const Config &c : configs)
      for (int64_t v : p.values) {
        Config d = c;
        d.set(p.name, v);
        next.push_back(std::move(d));
      }
    configs = std::move(next);
  }
  std::vector<Config> valid;
  for (Config &c : configs)
    if (!kernel.check || kernel.check(c).empty())
      valid.push_back(std::move(c));
  return valid;
}

std::vector<Config> enumerateConfigs(const KernelDef &kernel) {
  return expandConfigs(kernel, Config(), [](const Param &) { return true; });
}

size_t countConfigs(const KernelDef &kernel) {
  // An odometer over the parameters' values, one point at a time (the
  // spaces run to millions of points).
  const std::vector<Param> &params = kernel.params;
  std::vector<size_t> at(params.size(), 0);
  Config c;
  for (const Param &p : params) {
    if (p.values.empty())
      return 0;
    c.set(p.name, p.values[0]);
  }
  size_t count = 0;
  while (true) {
    if (!kernel.check || kernel.check(c).empty())
      ++count;
    size_t i = 0;
    for (; i < params.size(); ++i) {
      if (++at[i] < params[i].values.size()) {
        c.set(params[i].name, params[i].values[at[i]]);
        break;
      }
      at[i] = 0;
      c.set(params[i].name, params[i].values[0]);
    }
    if (i == params.size())
      return count;
  }
}

} // namespace tessel::dsl
