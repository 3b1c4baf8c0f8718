#include "cudalabs/generators.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

#include "cudalabs/generator_elements.hpp"

namespace cudalabs {
namespace element {
namespace {

template <class Real>
void require_finite_range(Real lo, Real hi, const char* function) {
  if (!(lo <= hi) || !std::isfinite(lo) || !std::isfinite(hi) ||
      !std::isfinite(static_cast<double>(hi) - static_cast<double>(lo))) {
    throw std::invalid_argument(std::string(function) + ": need finite lo <= hi, got [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
}

}  // namespace

FloatRange float_range(float lo, float hi, const char* function) {
  require_finite_range(lo, hi, function);
  const double span = static_cast<float>(static_cast<double>(hi) - static_cast<double>(lo));
  if (!std::isfinite(span)) {
    throw std::invalid_argument(std::string(function) + ": hi - lo must fit in a float, got [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return FloatRange{lo, hi, span};
}

DoubleRange double_range(double lo, double hi, const char* function) {
  require_finite_range(lo, hi, function);
  return DoubleRange{lo, hi};
}

IntRange int_range(std::int64_t lo, std::int64_t hi, const char* function) {
  if (lo > hi) {
    throw std::invalid_argument(std::string(function) + ": lo " + std::to_string(lo) + " > hi " +
                                std::to_string(hi));
  }
  // Unsigned arithmetic wraps, so span is right even for the full int64 range (span 0 = 2^64).
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1u;
  const std::uint64_t reject_below = span == 0 ? 0 : (0 - span) % span;
  return IntRange{lo, span, reject_below};
}

}  // namespace element

float SplitMix64::next_unit_float() noexcept { return element::unit_float(next()); }

double SplitMix64::next_unit_double() noexcept { return element::unit_double(next()); }

std::int64_t SplitMix64::next_int(std::int64_t lo, std::int64_t hi) {
  const element::IntRange range = element::int_range(lo, hi, "SplitMix64::next_int");
  if (range.span == 0) return static_cast<std::int64_t>(next());
  std::uint64_t value = next();
  while (value < range.reject_below) value = next();
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + value % range.span);
}

std::vector<float> uniform_floats(std::size_t n, std::uint64_t seed, float lo, float hi) {
  const element::FloatRange range = element::float_range(lo, hi, "uniform_floats");
  std::vector<float> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = element::uniform_float(range, seed, i);
  return values;
}

std::vector<double> uniform_doubles(std::size_t n, std::uint64_t seed, double lo, double hi) {
  const element::DoubleRange range = element::double_range(lo, hi, "uniform_doubles");
  std::vector<double> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = element::uniform_double(range, seed, i);
  return values;
}

std::vector<int> uniform_ints(std::size_t n, std::uint64_t seed, int lo, int hi) {
  const element::IntRange range = element::int_range(lo, hi, "uniform_ints");
  std::vector<int> values(n);
  for (std::size_t i = 0; i < n; ++i) values[i] = static_cast<int>(element::uniform_int(range, seed, i));
  return values;
}

std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed) {
  std::vector<unsigned char> bytes(n);
  // Whole draws at a time: the same bytes as element::random_byte, an eighth of the mixing.
  std::size_t i = 0;
  for (std::uint64_t d = 0; i < n; ++d) {
    std::uint64_t word = element::draw(seed, d);
    for (int k = 0; k < 8 && i < n; ++k, ++i, word >>= 8) bytes[i] = static_cast<unsigned char>(word);
  }
  return bytes;
}

}  // namespace cudalabs
