#pragma once
// Distribution-free summaries of timing samples: the median and a confidence interval for it.
//
// Kernel times are skewed (a long right tail of preemptions, clock changes, page faults), so a
// mean and a normal-theory interval would be pulled by outliers. The median's interval from order
// statistics assumes only independent samples from one continuous distribution.
//
// Host-only: no CUDA.
#include <cstddef>
#include <vector>

namespace cudalabs::timing {

struct Interval {
  double low = 0;
  double high = 0;
};

struct SampleSummary {
  double median = 0;
  Interval ci;              // confidence interval for the median
  std::size_t samples = 0;

  // Half the interval's width relative to the median, e.g. 0.01 for "median +-1%".
  // +inf when median == 0 or samples < 2 (no spread can be known), so such a summary never
  // satisfies a precision target.
  double relative_halfwidth() const;
};

// Median of the values (mean of the two middle ones for an even count).
// Throws std::invalid_argument when values is empty.
double median(std::vector<double> values);

// Confidence interval for the population median from order statistics: [x(l), x(n+1-l)] of the
// sorted values (1-based), where l is the largest rank with 2 * P(B <= l-1) <= 1 - confidence for
// B ~ Binomial(n, 1/2). Its coverage is therefore at least `confidence` (never less).
// The binomial tail is computed exactly (log-space recurrence) for every n, no normal
// approximation.
// When n is too small for any pair of order statistics to reach the confidence (n <
// min_samples_for_confidence), the full range [min, max] is returned: its coverage is only
// 1 - 2^(1-n), below what was asked; use min_samples_for_confidence to avoid relying on it.
// Throws std::invalid_argument for empty values or confidence outside (0, 1).
Interval median_confidence_interval(const std::vector<double>& values, double confidence);

// Smallest n for which median_confidence_interval truly reaches `confidence`
// (2 * 0.5^n <= 1 - confidence); e.g. 6 for 0.95, 8 for 0.99.
// Throws std::invalid_argument for confidence outside (0, 1).
std::size_t min_samples_for_confidence(double confidence);

// Median, its interval at `confidence` and the sample count. Empty values give a zero summary
// (samples == 0, relative_halfwidth() == +inf) rather than throwing, so a loop can summarise
// before its first sample.
SampleSummary summarize(const std::vector<double>& values, double confidence);

}  // namespace cudalabs::timing
