#pragma once
// GoogleTest adapter for CompareReport, so a suite writes
//   EXPECT_TRUE(cudalabs::matches(cudalabs::compare_floats(expected, actual, tol), "vector c"));
// and a failure prints the report (counts, first mismatching indices, never-written elements).
#include <string_view>

#include <gtest/gtest.h>

#include "cudalabs/compare.hpp"

namespace cudalabs {

inline ::testing::AssertionResult matches(const CompareReport& report, std::string_view what) {
  if (report.ok()) return ::testing::AssertionSuccess() << report.to_string(what);
  return ::testing::AssertionFailure() << report.to_string(what);
}

}  // namespace cudalabs
