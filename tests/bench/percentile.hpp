// Percentiles for the benchmarks' figures.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace plateau::bench {

// The p-th percentile (p in percent) of `sorted`, in ascending order: the value at rank
// p / 100 × n, the last one at most; 0 when there is none.
inline double percentile_of_sorted(const std::vector<double>& sorted, double p) {
  if (sorted.empty()) return 0;
  return sorted[std::min(sorted.size() - 1,
                         static_cast<std::size_t>(p / 100.0 * static_cast<double>(sorted.size())))];
}

// The same, of values in any order.
inline double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return percentile_of_sorted(v, p);
}

}  // namespace plateau::bench
