#pragma once
// The per-element rule of compare.hpp, as one definition that the host comparison (compare.cpp)
// and the device comparison (device_compare.cu) both compile, so an element passes on the GPU
// exactly when it would pass on the host.
#include <cstddef>
#include <type_traits>

#include "cudalabs/generator_elements.hpp"  // CUDALABS_HOST_DEVICE

#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

namespace cudalabs::rule {

CUDALABS_HOST_DEVICE inline bool is_nan(double x) noexcept { return x != x; }
CUDALABS_HOST_DEVICE inline bool is_inf(double x) noexcept { return !is_nan(x) && is_nan(x - x); }

CUDALABS_HOST_DEVICE inline double magnitude(double x) noexcept {
#if defined(__CUDA_ARCH__)
  return ::fabs(x);
#else
  return std::fabs(x);
#endif
}

// abs + rel * m rounded twice, as the host computes it: nvcc would otherwise fuse it into an fma
// on the device and an element on the boundary could pass on one side and fail on the other.
CUDALABS_HOST_DEVICE inline double allowed_difference(double abs, double rel, double m) noexcept {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(abs, __dmul_rn(rel, m));
#else
  return abs + rel * m;
#endif
}

// |actual - expected| <= abs + rel * |expected|; NaN expected requires NaN actual; infinities
// must match exactly (abs + rel * inf would accept anything).
CUDALABS_HOST_DEVICE inline bool within_tolerance(double expected, double actual, double abs, double rel) noexcept {
  if (is_nan(expected)) return is_nan(actual);
  if (is_nan(actual)) return false;
  if (is_inf(expected) || is_inf(actual)) return expected == actual;
  return magnitude(actual - expected) <= allowed_difference(abs, rel, magnitude(expected));
}

// True when every byte of the value is `poison` (0xFF: what suites fill outputs with).
template <class T>
CUDALABS_HOST_DEVICE inline bool is_poison(const T& value, unsigned char poison = 0xFF) noexcept {
  const unsigned char* bytes = reinterpret_cast<const unsigned char*>(&value);
  for (std::size_t i = 0; i < sizeof(T); ++i) {
    if (bytes[i] != poison) return false;
  }
  return true;
}

// One element of a comparison: whether it passes and, when it does not, whether it still holds
// the poison. Floating point: the poison is a NaN, so it is caught before the NaN rule could
// accept it. Integers: exact, and -1 counts as never written only where something else was due.
struct Verdict {
  bool pass;
  bool never_written;
};

template <class T>
CUDALABS_HOST_DEVICE inline Verdict judge(T expected, T actual, double abs, double rel) noexcept {
  if constexpr (std::is_floating_point_v<T>) {
    const bool unwritten = is_poison(actual) && !is_poison(expected);
    return Verdict{!unwritten && within_tolerance(static_cast<double>(expected), static_cast<double>(actual), abs, rel),
                   unwritten};
  } else {
    // Integers match exactly unless a tolerance allows a difference (8-bit images: +-1).
    const double difference = static_cast<double>(expected) - static_cast<double>(actual);
    const bool pass = expected == actual || (difference <= abs && -difference <= abs);
    return Verdict{pass, !pass && is_poison(actual)};
  }
}

}  // namespace cudalabs::rule
