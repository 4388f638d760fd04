//===- Images.h - choosing a cubin for the device ---------------*- C++ -*-===//
//
// An AOT package carries one cubin per target; this picks the one the device
// can run. Pure logic (no driver calls), tested without a GPU.
//
// Which device a cubin for `sm_XY…` runs on (compute capability M.m):
//   - sm_XYa (arch-specific: wgmma, tcgen05, setmaxnreg): exactly X.Y;
//   - sm_XYf (family-specific):                            X == M and Y <= m;
//   - sm_XY  (SASS is compatible within a major version):  X == M and Y <= m.
// An exact `a` match is preferred, then an `f`, then a plain one, and among
// the last two the highest minor version.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_IMAGES_H
#define TESSEL_RUNTIME_IMAGES_H

#include "runtime/Status.h"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tessel::rt {

/// A compiled kernel module for one target. `cubin` is borrowed: it must stay
/// alive until Module::load returns (the driver copies it).
struct Image {
  std::string target; // "sm_90a", "sm_100a", "sm_103a", …
  const void *cubin = nullptr;
  size_t size = 0;
};

/// A parsed target name.
struct Target {
  enum Kind { Plain, ArchSpecific, FamilySpecific };
  int major = 0, minor = 0;
  Kind kind = Plain;
};

/// Parses "sm_90a", "sm_100f", "sm_120"; false for anything else.
bool parseTarget(std::string_view name, Target *out);

/// The name of the arch-specific target of compute capability major.minor:
/// 9.0 -> "sm_90a", 10.3 -> "sm_103a".
std::string archSpecificTarget(int major, int minor);

/// Whether a cubin for `target` runs on a device of compute capability
/// major.minor.
bool runsOn(const Target &target, int major, int minor);

/// Sets `*index` to the image to load on a device of compute capability
/// major.minor. Fails, listing the available targets and the device's
/// capability, when none runs there, and when any image has a malformed
/// target or no bytes (a packaging bug better caught on every device).
Status selectImage(const std::vector<Image> &images, int major, int minor,
                   size_t *index);

} // namespace tessel::rt

#endif // TESSEL_RUNTIME_IMAGES_H
