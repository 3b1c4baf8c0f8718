#include "cudalabs/generators.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace cudalabs {
namespace {

template <class Real>
void require_finite_range(Real lo, Real hi, const char* function) {
  if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi) ||
      !std::isfinite(static_cast<double>(hi) - static_cast<double>(lo))) {
    throw std::invalid_argument(std::string(function) + ": need finite lo <= hi, got [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
}

// lo + (hi - lo) * u with a single rounding, written as an explicit fma so the result does not
// depend on whether the compiler contracts a*b+c on this platform.
double scale_unit(double u, double lo, double hi) { return std::fma(hi - lo, u, lo); }

// Plain comparisons: std::fmin/fmax are library calls here, and the values are never NaN.
template <class Real>
Real clamp(Real x, Real lo, Real hi) {
  return x < lo ? lo : (x > hi ? hi : x);
}

}  // namespace

float SplitMix64::next_unit_float() noexcept {
  return static_cast<float>(next() >> 40) * 0x1.0p-24f;
}

double SplitMix64::next_unit_double() noexcept {
  return static_cast<double>(next() >> 11) * 0x1.0p-53;
}

std::int64_t SplitMix64::next_int(std::int64_t lo, std::int64_t hi) {
  if (lo > hi) {
    throw std::invalid_argument("SplitMix64::next_int: lo " + std::to_string(lo) + " > hi " + std::to_string(hi));
  }
  // Unsigned arithmetic wraps, so span is right even for the full int64 range (span 0 = 2^64).
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1u;
  if (span == 0) return static_cast<std::int64_t>(next());
  // Reject the lowest (2^64 mod span) draws so every residue is equally likely.
  const std::uint64_t reject_below = (0 - span) % span;
  std::uint64_t draw = next();
  while (draw < reject_below) draw = next();
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + draw % span);
}

std::vector<float> uniform_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
  require_finite_range(lo, hi, "uniform_floats");
  // span rounded to float precision makes span * u (24 x 24 bits) exact in double, so
  // lo + span * u has one rounding with or without fma contraction, and needs no slow std::fma.
  const double span = static_cast<float>(static_cast<double>(hi) - static_cast<double>(lo));
  if (!std::isfinite(span)) {
    throw std::invalid_argument("uniform_floats: hi - lo must fit in a float, got [" + std::to_string(lo) +
                                ", " + std::to_string(hi) + "]");
  }
  SplitMix64 rng(seed);
  std::vector<float> values(n);
  for (float& v : values) {
    const double x = static_cast<double>(lo) + span * static_cast<double>(rng.next_unit_float());
    // Rounding may land on hi or, for a tiny range, just outside it: clamp into [lo, hi].
    v = clamp(static_cast<float>(x), lo, hi);
  }
  return values;
}

std::vector<double> uniform_doubles(std::size_t n, std::uint64_t seed, double lo, double hi) {
  require_finite_range(lo, hi, "uniform_doubles");
  SplitMix64 rng(seed);
  std::vector<double> values(n);
  for (double& v : values) v = clamp(scale_unit(rng.next_unit_double(), lo, hi), lo, hi);
  return values;
}

std::vector<int> uniform_ints(std::size_t n, std::uint64_t seed, int lo, int hi) {
  if (lo > hi) {
    throw std::invalid_argument("uniform_ints: lo " + std::to_string(lo) + " > hi " + std::to_string(hi));
  }
  SplitMix64 rng(seed);
  std::vector<int> values(n);
  for (int& v : values) v = static_cast<int>(rng.next_int(lo, hi));
  return values;
}

}  // namespace cudalabs
