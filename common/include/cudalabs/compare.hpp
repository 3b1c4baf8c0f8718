#pragma once
// Element-wise comparison of a result against its expected values, with a report that tells a
// student what went wrong: how many elements differ, the first few with their index, and which
// ones the kernel never wrote.
//
// Poison: suites fill every output with the byte 0xFF before the code under test runs. An
// element that still has that bit pattern afterwards was never written (for float and double
// the pattern is a NaN no arithmetic produces), and the report says so.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cudalabs {

// An element passes when |actual - expected| <= abs + rel * |expected|.
// NaN expected requires NaN actual; an infinite expected value requires the same infinity.
struct Tolerance {
  double abs = 0;
  double rel = 0;
};

struct Mismatch {
  std::size_t index = 0;
  double expected = 0;
  double actual = 0;
  bool never_written = false;  // actual still holds the 0xFF poison
};

// What kind of values were compared; only affects how to_string prints them.
enum class ValueKind { Float, Double, Int };

struct CompareReport {
  std::size_t checked = 0;        // elements compared (min of the two sizes)
  std::size_t mismatches = 0;     // elements outside the tolerance, never_written included
  std::vector<Mismatch> first;    // the first max_listed mismatches, by index
  Tolerance tolerance;
  std::size_t never_written = 0;  // mismatching elements that still hold the 0xFF poison
  std::size_t first_never_written = 0;  // lowest index among them (meaningful when never_written > 0)
  std::size_t expected_size = 0;
  std::size_t actual_size = 0;
  ValueKind kind = ValueKind::Float;

  bool sizes_match() const { return expected_size == actual_size; }
  bool ok() const { return sizes_match() && mismatches == 0; }

  // e.g. "vector c: 12 of 1000003 elements differ (tolerance abs 0, rel 0); 12 never written
  //         [999991] expected 1.5, got <never written (still 0xFF poison)>"
  std::string to_string(std::string_view what) const;
};

CompareReport compare_floats(const std::vector<float>& expected, const std::vector<float>& actual,
                             Tolerance tolerance, std::size_t max_listed = 10);

CompareReport compare_doubles(const std::vector<double>& expected, const std::vector<double>& actual,
                              Tolerance tolerance, std::size_t max_listed = 10);

// Exact comparison. An int can legitimately be -1 (all 0xFF bytes), so -1 counts as never
// written only where the expected value is something else.
CompareReport compare_ints(const std::vector<int>& expected, const std::vector<int>& actual,
                           std::size_t max_listed = 10);

// The per-element rule above, for callers that check single values.
bool within_tolerance(double expected, double actual, Tolerance tolerance);

}  // namespace cudalabs
