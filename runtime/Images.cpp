//===- Images.cpp - choosing a cubin for the device -----------------------===//

#include "runtime/Images.h"

namespace tessel::rt {

bool parseTarget(std::string_view name, Target *out) {
  if (!name.starts_with("sm_"))
    return false;
  name.remove_prefix(3);
  Target target;
  if (name.ends_with('a') || name.ends_with('f')) {
    target.kind =
        name.back() == 'a' ? Target::ArchSpecific : Target::FamilySpecific;
    name.remove_suffix(1);
  }
  // Two or three digits: the last is the minor version.
  if (name.size() < 2 || name.size() > 3 || name.front() == '0')
    return false;
  for (char c : name)
    if (c < '0' || c > '9')
      return false;
  target.minor = name.back() - '0';
  for (char c : name.substr(0, name.size() - 1))
    target.major = target.major * 10 + (c - '0');
  *out = target;
  return true;
}

std::string archSpecificTarget(int major, int minor) {
  return "sm_" + std::to_string(major) + std::to_string(minor) + "a";
}

bool runsOn(const Target &target, int major, int minor) {
  if (target.kind == Target::ArchSpecific)
    return target.major == major && target.minor == minor;
  return target.major == major && target.minor <= minor;
}

/// Higher is better; only meaningful for targets that run on the device.
static int preference(const Target &target) {
  switch (target.kind) {
  case Target::ArchSpecific:
    return 100;
  case Target::FamilySpecific:
    return 50 + target.minor;
  case Target::Plain:
    return target.minor;
  }
  return 0;
}

Status selectImage(const std::vector<Image> &images, int major, int minor,
                   size_t *index) {
  const std::string device = "compute capability " + std::to_string(major) +
                             "." + std::to_string(minor);
  if (images.empty())
    return Status::error("no cubin images to choose from for a device of " +
                         device);
  std::string available;
  bool found = false;
  size_t best = 0;
  int bestPreference = -1;
  for (size_t i = 0; i < images.size(); ++i) {
    const Image &image = images[i];
    Target target;
    if (!parseTarget(image.target, &target))
      return Status::error("image " + std::to_string(i) +
                           " has a malformed target '" + image.target +
                           "' (expected sm_<major><minor>[a|f], e.g. sm_90a)");
    if (!image.cubin || image.size == 0)
      return Status::error("image " + std::to_string(i) + " (" + image.target +
                           ") has no bytes");
    available += (i ? ", " : "") + image.target;
    // Strictly better only: the first of equal images wins.
    if (runsOn(target, major, minor) && preference(target) > bestPreference) {
      found = true;
      best = i;
      bestPreference = preference(target);
    }
  }
  if (!found)
    return Status::error("no cubin image runs on this device (" + device +
                         ": it runs " + archSpecificTarget(major, minor) +
                         ", or sm_" + std::to_string(major) + "<m> and sm_" +
                         std::to_string(major) +
                         "<m>f with m <= " + std::to_string(minor) +
                         "); available targets: " + available);
  *index = best;
  return Status::success();
}

} // namespace tessel::rt
