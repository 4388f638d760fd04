//===- Stats.h - summarising timings ----------------------------*- C++ -*-===//

#ifndef TESSEL_RUNTIME_STATS_H
#define TESSEL_RUNTIME_STATS_H

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <vector>

namespace tessel::rt {

/// The median of `values` (the mean of the middle two for an even count); NaN
/// for none. The median, not the mean, because a timed run's outliers (a
/// clock change, another process) are one-sided.
inline float median(std::vector<float> values) {
  if (values.empty())
    return NAN;
  const std::ptrdiff_t mid = std::ssize(values) / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  const float upper = values[static_cast<size_t>(mid)];
  if (values.size() % 2)
    return upper;
  const float lower = *std::max_element(values.begin(), values.begin() + mid);
  return lower + (upper - lower) / 2;
}

} // namespace tessel::rt

#endif // TESSEL_RUNTIME_STATS_H
