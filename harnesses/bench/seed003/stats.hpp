// Medians with distribution-free 95% confidence intervals (order statistics)
// for the seed-003 benchmarks. For n samples the interval of the median is
// [x_(k), x_(n+1-k)] (1-based order statistics), with k the largest rank such
// that P(Binomial(n, 1/2) < k) <= 0.025; it covers the population median with
// probability at least 95% whatever the distribution of the runs. A ratio of
// two variants is taken run by run (the two ran side by side in one round),
// and its median gets the same interval.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace seed003 {

struct Summary {
  double median = 0, lo = 0, hi = 0;
  std::size_t n = 0;
};

// The rank k (1-based) of the lower end of the 95% interval of the median.
inline std::size_t ci_rank(std::size_t n) {
  // P(B < k) = sum_{i<k} C(n,i) / 2^n, summed in logs to stay finite.
  std::size_t k = 0;
  double cdf = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double logp = std::lgamma(double(n) + 1) - std::lgamma(double(i) + 1) - std::lgamma(double(n - i) + 1) -
                        double(n) * std::log(2.0);
    if (cdf + std::exp(logp) > 0.025) break;
    cdf += std::exp(logp);
    k = i + 1;  // P(B < i+1) = P(B <= i) <= 0.025
  }
  return std::max<std::size_t>(k, 1);
}

inline Summary summarize(std::vector<double> v) {
  Summary s;
  s.n = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  s.median = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  const std::size_t k = ci_rank(n);
  s.lo = v[k - 1];
  s.hi = v[n - k];
  return s;
}

// Run-by-run ratios a[i] / b[i].
inline Summary ratio(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> r;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) r.push_back(a[i] / b[i]);
  return summarize(r);
}

}  // namespace seed003
