#pragma once
// Element i of every seeded generator, as a pure function of (seed, i): the one definition that
// the host generators (generators.hpp) and the device generators (device_generators.hpp) both
// compile, so the two produce bit-identical values and a GPU thread can make element i without
// the i - 1 before it.
//
// SplitMix64's state after k steps is seed + k * gamma, so draw i of the stream started at `seed`
// is mix(seed + (i + 1) * gamma): the stream is already random-access. The mappings from a draw
// to a value use only exact or correctly rounded IEEE operations (no library functions whose last
// bit may differ between host and device).
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define CUDALABS_HOST_DEVICE __host__ __device__
#else
#define CUDALABS_HOST_DEVICE
#endif

#if defined(__CUDA_ARCH__)
#include <cuda_runtime.h>  // fma(double, double, double) for device code
#else
#include <cmath>
#endif

namespace cudalabs::element {

inline constexpr std::uint64_t kGamma = 0x9E3779B97F4A7C15ull;

// SplitMix64's output function (Steele, Lea, Flood 2014).
CUDALABS_HOST_DEVICE constexpr std::uint64_t mix(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Draw i (0-based) of the SplitMix64 stream started at `seed`: what the (i + 1)-th next() returns.
CUDALABS_HOST_DEVICE constexpr std::uint64_t draw(std::uint64_t seed, std::uint64_t i) noexcept {
  return mix(seed + (i + 1) * kGamma);
}

// Uniform in [0, 1) with 24 random bits: every value is exactly a float.
CUDALABS_HOST_DEVICE constexpr float unit_float(std::uint64_t bits) noexcept {
  return static_cast<float>(bits >> 40) * 0x1.0p-24f;
}

// Uniform in [0, 1) with 53 random bits: every value is exactly a double.
CUDALABS_HOST_DEVICE constexpr double unit_double(std::uint64_t bits) noexcept {
  return static_cast<double>(bits >> 11) * 0x1.0p-53;
}

// Plain comparisons: fmin/fmax are library calls on the host, and the values are never NaN.
template <class Real>
CUDALABS_HOST_DEVICE constexpr Real clamp(Real x, Real lo, Real hi) noexcept {
  return x < lo ? lo : (x > hi ? hi : x);
}

// --- floats in [lo, hi) ----------------------------------------------------------------------

// `span` is hi - lo rounded to float precision, held as a double: then span * u (24 x 24 bits) is
// exact in double, so lo + span * u has a single rounding whether or not the compiler fuses it
// into an fma (nvcc does by default, the host compiler may not). Build it with float_range().
struct FloatRange {
  float lo;
  float hi;
  double span;
};

CUDALABS_HOST_DEVICE inline float uniform_float(const FloatRange& range, std::uint64_t seed, std::uint64_t i) noexcept {
  const double x = static_cast<double>(range.lo) + range.span * static_cast<double>(unit_float(draw(seed, i)));
  // Rounding may land on hi or, for a tiny range, just outside it: clamp into [lo, hi].
  return clamp(static_cast<float>(x), range.lo, range.hi);
}

// --- doubles in [lo, hi) ---------------------------------------------------------------------

struct DoubleRange {
  double lo;
  double hi;
};

// lo + (hi - lo) * u with a single rounding: an explicit fma, correctly rounded on both sides.
CUDALABS_HOST_DEVICE inline double uniform_double(const DoubleRange& range, std::uint64_t seed, std::uint64_t i) noexcept {
  const double u = unit_double(draw(seed, i));
#if defined(__CUDA_ARCH__)
  const double x = ::fma(range.hi - range.lo, u, range.lo);
#else
  const double x = std::fma(range.hi - range.lo, u, range.lo);
#endif
  return clamp(x, range.lo, range.hi);
}

// --- integers in [lo, hi] --------------------------------------------------------------------

// span = hi - lo + 1 (0 stands for 2^64); draws below reject_below = 2^64 mod span are rejected,
// so every residue mod span is equally likely. Build it with int_range().
struct IntRange {
  std::int64_t lo;
  std::uint64_t span;
  std::uint64_t reject_below;
};

// Element i starts from draw i of the stream. In the rare case it is rejected (probability
// reject_below / 2^64, below 2^-32 for any int range) element i continues with its own SplitMix64
// stream seeded by that rejected draw, so element i stays a pure function of (seed, i) and the
// elements after it do not shift.
CUDALABS_HOST_DEVICE inline std::int64_t uniform_int(const IntRange& range, std::uint64_t seed, std::uint64_t i) noexcept {
  std::uint64_t value = draw(seed, i);
  if (range.span == 0) return static_cast<std::int64_t>(value);
  std::uint64_t retry_state = value;
  while (value < range.reject_below) value = mix(retry_state += kGamma);
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(range.lo) + value % range.span);
}

// --- bytes -----------------------------------------------------------------------------------

// Byte i is byte i % 8 (little-endian) of draw i / 8: eight bytes from each draw.
CUDALABS_HOST_DEVICE constexpr unsigned char random_byte(std::uint64_t seed, std::uint64_t i) noexcept {
  return static_cast<unsigned char>(draw(seed, i / 8) >> (8 * (i % 8)));
}

// --- validated ranges (host only: they throw std::invalid_argument naming `function`) ---------

// Requires lo <= hi, both finite and hi - lo finite in float.
FloatRange float_range(float lo, float hi, const char* function);
// Requires lo <= hi, both finite and hi - lo finite.
DoubleRange double_range(double lo, double hi, const char* function);
// Requires lo <= hi.
IntRange int_range(std::int64_t lo, std::int64_t hi, const char* function);

}  // namespace cudalabs::element
