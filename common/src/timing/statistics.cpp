#include "cudalabs/timing/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace cudalabs::timing {
namespace {

void require_confidence(double confidence) {
  if (!(confidence > 0.0 && confidence < 1.0)) {
    throw std::invalid_argument("confidence must lie strictly between 0 and 1, got " +
                                std::to_string(confidence));
  }
}

// Accepts a tail probability equal to alpha up to rounding, so e.g. n = 5 at confidence 0.9375
// (tail exactly 1/16 each side) counts as reaching it.
bool within_alpha(double two_sided_tail, double alpha) {
  return two_sided_tail <= alpha * (1.0 + 1e-12);
}

// The lower rank l (1-based; 0 when none reaches the confidence): the largest l with
// 2 * P(B <= l-1) <= alpha, B ~ Binomial(n, 1/2). The pmf runs in log space, so no 2^-n
// underflow for large n decides the result: the tiny early terms become 0, which they nearly are.
std::size_t lower_rank(std::size_t n, double alpha) {
  const double dn = static_cast<double>(n);
  double log_pmf = -dn * std::log(2.0);  // P(B = 0)
  double cumulative = 0.0;
  std::size_t rank = 0;
  for (std::size_t k = 0; k < n; ++k) {
    cumulative += std::exp(log_pmf);
    if (!within_alpha(2.0 * cumulative, alpha)) break;
    rank = k + 1;
    const double dk = static_cast<double>(k);
    log_pmf += std::log(dn - dk) - std::log(dk + 1.0);  // P(B = k+1) from P(B = k)
  }
  return rank;
}

}  // namespace

double SampleSummary::relative_halfwidth() const {
  if (samples < 2 || median == 0.0) return std::numeric_limits<double>::infinity();
  return (ci.high - ci.low) / 2.0 / std::abs(median);
}

double median(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("median of an empty sample");
  const std::size_t n = values.size();
  const auto middle = values.begin() + static_cast<std::ptrdiff_t>(n / 2);
  std::nth_element(values.begin(), middle, values.end());
  const double upper = *middle;
  if (n % 2 == 1) return upper;
  // The other middle value is the largest of the lower half, which nth_element left before it.
  const double lower = *std::max_element(values.begin(), middle);
  return lower + (upper - lower) / 2.0;
}

std::size_t min_samples_for_confidence(double confidence) {
  require_confidence(confidence);
  const double alpha = 1.0 - confidence;
  std::size_t n = 1;
  while (!within_alpha(2.0 * std::pow(0.5, static_cast<double>(n)), alpha)) ++n;
  return n;
}

Interval median_confidence_interval(const std::vector<double>& values, double confidence) {
  require_confidence(confidence);
  if (values.empty()) throw std::invalid_argument("confidence interval of an empty sample");
  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  const std::size_t l = lower_rank(n, 1.0 - confidence);
  // Too few samples for any order statistics to reach the confidence: the full range, which
  // covers with probability 1 - 2^(1-n) only (see the header).
  if (l == 0) return {sorted.front(), sorted.back()};
  return {sorted[l - 1], sorted[n - l]};  // x(l) and x(n+1-l), 1-based
}

SampleSummary summarize(const std::vector<double>& values, double confidence) {
  require_confidence(confidence);
  SampleSummary summary;
  if (values.empty()) return summary;
  summary.median = median(values);
  summary.ci = median_confidence_interval(values, confidence);
  summary.samples = values.size();
  return summary;
}

}  // namespace cudalabs::timing
