#pragma once
// Seeded test data. The same (n, seed, range) gives the same values on every platform, compiler
// and standard library: we use our own generator (SplitMix64) and our own integer-to-value
// mapping, not std::uniform_*_distribution, whose output differs between standard libraries.
// So a failing case can be reproduced anywhere from its seed alone.
//
// Element i of uniform_floats(n, seed, ...) (and of every generator below) is a pure function of
// (seed, i), defined once in generator_elements.hpp: so a shorter vector is a prefix of a longer
// one, and the device generators (device_generators.hpp) produce bit-identical values on the GPU.
// Use different seeds for different inputs of one test (e.g. seed and seed + 1).
#include <cstddef>
#include <cstdint>
#include <vector>

#include "cudalabs/generator_elements.hpp"

namespace cudalabs {

// SplitMix64 (Steele, Lea, Flood 2014): 64-bit state, one add and a mixing function per value.
// Small, fast, and statistically good enough for test inputs.
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(std::uint64_t seed) noexcept : state_(seed) {}

  constexpr std::uint64_t next() noexcept { return element::mix(state_ += element::kGamma); }

  // Uniform in [0, 1) with 24 random bits: every value is exactly a float.
  float next_unit_float() noexcept;
  // Uniform in [0, 1) with 53 random bits: every value is exactly a double.
  double next_unit_double() noexcept;
  // Uniform in [lo, hi], both inclusive, without modulo bias. Requires lo <= hi. Sequential:
  // a rejected draw consumes one more from this stream (use uniform_ints for random access).
  std::int64_t next_int(std::int64_t lo, std::int64_t hi);

 private:
  std::uint64_t state_;
};

// n floats uniform in [lo, hi) (hi itself can appear only through rounding). Requires lo <= hi,
// both finite and hi - lo finite; otherwise throws std::invalid_argument.
std::vector<float> uniform_floats(std::size_t n, std::uint64_t seed, float lo = -1.0f, float hi = 1.0f);

// n doubles uniform in [lo, hi), same rules as uniform_floats.
std::vector<double> uniform_doubles(std::size_t n, std::uint64_t seed, double lo = -1.0, double hi = 1.0);

// n ints uniform in [lo, hi], both inclusive, without modulo bias. Requires lo <= hi; otherwise
// throws std::invalid_argument.
std::vector<int> uniform_ints(std::size_t n, std::uint64_t seed, int lo, int hi);

// n bytes uniform in [0, 255]: byte i is byte i % 8 (little-endian) of draw i / 8 of the stream,
// so a byte buffer is the stream's raw draws laid out in memory.
std::vector<unsigned char> random_bytes(std::size_t n, std::uint64_t seed);

}  // namespace cudalabs
