#include "cudalabs/compare.hpp"

#include "cudalabs/compare_rule.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <fmt/format.h>

namespace cudalabs {
namespace {

template <class T>
CompareReport compare_values(const std::vector<T>& expected, const std::vector<T>& actual,
                             Tolerance tolerance, std::size_t max_listed, ValueKind kind) {
  CompareReport report;
  report.tolerance = tolerance;
  report.kind = kind;
  report.expected_size = expected.size();
  report.actual_size = actual.size();
  report.checked = std::min(expected.size(), actual.size());

  for (std::size_t i = 0; i < report.checked; ++i) {
    const T e = expected[i];
    const T a = actual[i];
    const rule::Verdict verdict = rule::judge(e, a, tolerance.abs, tolerance.rel);
    if (verdict.pass) continue;
    ++report.mismatches;
    if (verdict.never_written && report.never_written++ == 0) report.first_never_written = i;
    if (report.first.size() < max_listed) {
      report.first.push_back(Mismatch{i, static_cast<double>(e), static_cast<double>(a), verdict.never_written});
    }
  }
  return report;
}

std::string format_value(double value, ValueKind kind) {
  switch (kind) {
    case ValueKind::Float: return fmt::format("{}", static_cast<float>(value));
    case ValueKind::Int: return fmt::format("{}", static_cast<std::int64_t>(value));
    case ValueKind::Double: break;
  }
  return fmt::format("{}", value);
}

std::string format_tolerance(const CompareReport& report) {
  if (report.kind == ValueKind::Int) return "exact";
  return fmt::format("tolerance abs {}, rel {}", report.tolerance.abs, report.tolerance.rel);
}

std::string format_mismatch(const Mismatch& m, const CompareReport& report) {
  std::string line = fmt::format("  [{}] expected {}, got ", m.index, format_value(m.expected, report.kind));
  if (m.never_written) return line + "<never written (still 0xFF poison)>";
  line += format_value(m.actual, report.kind);
  if (report.kind != ValueKind::Int && std::isfinite(m.expected) && std::isfinite(m.actual)) {
    const double allowed = report.tolerance.abs + report.tolerance.rel * std::fabs(m.expected);
    line += fmt::format(" (difference {:.3g}, allowed {:.3g})", std::fabs(m.actual - m.expected), allowed);
  }
  return line;
}

}  // namespace

bool within_tolerance(double expected, double actual, Tolerance tolerance) {
  return rule::within_tolerance(expected, actual, tolerance.abs, tolerance.rel);
}

CompareReport compare_floats(const std::vector<float>& expected, const std::vector<float>& actual,
                             Tolerance tolerance, std::size_t max_listed) {
  return compare_values(expected, actual, tolerance, max_listed, ValueKind::Float);
}

CompareReport compare_doubles(const std::vector<double>& expected, const std::vector<double>& actual,
                              Tolerance tolerance, std::size_t max_listed) {
  return compare_values(expected, actual, tolerance, max_listed, ValueKind::Double);
}

CompareReport compare_ints(const std::vector<int>& expected, const std::vector<int>& actual,
                           std::size_t max_listed) {
  return compare_values(expected, actual, Tolerance{}, max_listed, ValueKind::Int);
}

std::string CompareReport::to_string(std::string_view what) const {
  std::string out;
  if (!sizes_match()) {
    out += fmt::format("{}: expected {} elements, got {}\n", what, expected_size, actual_size);
  }
  if (mismatches == 0) {
    out += fmt::format("{}: {} {} elements match ({})", what, sizes_match() ? "all" : "the first",
                       checked, format_tolerance(*this));
    return out;
  }
  out += fmt::format("{}: {} of {} elements differ ({})", what, mismatches, checked, format_tolerance(*this));
  if (never_written > 0) out += fmt::format("; {} never written", never_written);
  if (never_written == checked) {
    out += " (nothing was written: did the kernel run?)";
  } else if (never_written > 0 && never_written == checked - first_never_written) {
    // Exactly the tail is missing: the classic bounds or grid-size mistake.
    out += fmt::format(" (every element from index {} on: the last {} were not written; check that the grid "
                       "covers all n elements and the bound is i < n)",
                       first_never_written, never_written);
  } else if (never_written > 0) {
    out += " (some elements in the middle were not written: check the index computation and the grid-stride step)";
  }
  for (const Mismatch& m : first) out += "\n" + format_mismatch(m, *this);
  if (mismatches > first.size()) out += fmt::format("\n  ... and {} more", mismatches - first.size());
  return out;
}

}  // namespace cudalabs
