//===- Tuning.cpp - the shape-keyed choice among tuned configurations -----===//

#include "runtime/Tuning.h"

#include <algorithm>
#include <cmath>

namespace tessel::rt {

namespace {
double log2Size(int64_t size) {
  return std::log2(static_cast<double>(std::max<int64_t>(size, 1)));
}
} // namespace

int nearestTunedRow(const TunedRow *rows, size_t count, std::string_view target,
                    const int64_t *variant, size_t variantDims,
                    const int64_t *shape, size_t shapeDims) {
  shapeDims = std::min(shapeDims, kMaxShapeDims);
  double logShape[kMaxShapeDims];
  for (size_t i = 0; i < shapeDims; ++i)
    logShape[i] = log2Size(shape[i]);
  int best = -1;
  double bestDistance = 0;
  for (size_t i = 0; i < count; ++i) {
    const TunedRow &r = rows[i];
    if (target != r.target ||
        !std::equal(variant, variant + variantDims, r.variant))
      continue;
    double d = 0;
    for (size_t k = 0; k < shapeDims; ++k)
      d += std::fabs(logShape[k] - r.logShape[k]);
    if (best < 0 || d < bestDistance) {
      best = static_cast<int>(i);
      bestDistance = d;
    }
  }
  return best;
}

} // namespace tessel::rt
