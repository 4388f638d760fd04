//===- Tuning.h - the shape-keyed choice among tuned configurations -*- C++ -*-===//
//
// A tuned table (written by tessel-tune, compiled in by `tesselc --tuned`)
// holds, per kernel variant and target, the configuration that was fastest
// at each measured shape. A shape is the kernel's shape key: a few sizes of
// its arguments (the kernel declares which). At launch, the generated
// launcher takes the row of the current target and variant whose shape is
// nearest to the launch's in log2 distance (the sum over the key's sizes of
// |log2 a - log2 b|; sizes below 1 count as 1); ties go to the first row.
// No row for the target and variant: the kernel's defaults (its documented
// heuristic). Pure logic, tested without a GPU.
//
//===----------------------------------------------------------------------===//

#ifndef TESSEL_RUNTIME_TUNING_H
#define TESSEL_RUNTIME_TUNING_H

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace tessel::rt {

/// One row of a tuned table, as the generated launchers embed it.
struct TunedRow {
  const char *target;          // "sm_90a"
  const int64_t *variant;      // the variant's key (its values, in order)
  const double *logShape;      // log2 of the shape key's sizes
  int entry;                   // the compiled configuration to launch
};

/// Shape keys have at most this many sizes.
inline constexpr size_t kMaxShapeDims = 8;

/// The index of the row of `target` and `variant` (variantDims values)
/// nearest to `shape` (shapeDims <= kMaxShapeDims sizes), or -1 when there
/// is none. (The rows carry log2 sizes, so a launch takes shapeDims
/// logarithms, not one per row.)
int nearestTunedRow(const TunedRow *rows, size_t count, std::string_view target,
                    const int64_t *variant, size_t variantDims,
                    const int64_t *shape, size_t shapeDims);

} // namespace tessel::rt

#endif // TESSEL_RUNTIME_TUNING_H
