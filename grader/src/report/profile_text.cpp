#include "report/profile_text.hpp"

#include <cmath>
#include <vector>

#include <fmt/format.h>

namespace labgrade {
namespace {

std::string kernel_list(const std::vector<ProfiledKernel>& kernels) {
  if (kernels.empty()) return "none";
  std::string text;
  for (const ProfiledKernel& kernel : kernels) {
    if (!text.empty()) text += ", ";
    text += kernel.name;
    if (kernel.launches > 1) text += fmt::format(" ({} launches)", kernel.launches);
  }
  return text;
}

// Thousands separated, so that a count of sectors reads at a glance.
std::string grouped(double whole) {
  std::string digits = fmt::format("{:.0f}", std::fabs(whole));
  for (int at = static_cast<int>(digits.size()) - 3; at > 0; at -= 3) digits.insert(static_cast<std::size_t>(at), ",");
  return (whole < 0 ? "-" : "") + digits;
}

}  // namespace

std::string format_profile_figure(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::fabs(value) >= 1000) return grouped(std::round(value));
  return fmt::format("{:.3g}", value);
}

std::string profile_value(const std::optional<double>& value, const std::string& unit) {
  if (!value) return "n/a";
  return unit.empty() ? format_profile_figure(*value) : format_profile_figure(*value) + " " + unit;
}

std::string profiled_kernels(const ProfiledCase& profiled, const ReportView& view) {
  std::string text = "your kernels: " + kernel_list(profiled.student_kernels);
  if (view.show_hidden_details && !profiled.reference_kernels.empty()) {
    text += "; the reference's: " + kernel_list(profiled.reference_kernels);
  }
  return text;
}

std::string profile_heading(const ProfileReport& profile) {
  if (!profile.ran) return "Profile (Nsight Compute): " + profile.unavailable;
  return fmt::format("Profile (Nsight Compute, each timed call once{}; {:.1f} s; not scored):",
                     profile.with_reference ? ", yours and the reference's" : "", profile.seconds);
}

std::string profile_text(const GradeResult& report, const ReportView& view) {
  if (!report.profile) return "";
  const ProfileReport& profile = *report.profile;
  std::string text = profile_heading(profile) + "\n";
  for (const ProfiledCase& profiled : profile.cases) {
    text += fmt::format("  {}  {}\n", profiled.test, profiled_kernels(profiled, view));
    if (!profiled.problem.empty()) text += "    " + profiled.problem + "\n";
    for (const ProfiledMetric& metric : profiled.metrics) {
      text += fmt::format("    {}: {}", metric.label, profile_value(metric.student, metric.unit));
      if (profile.with_reference) text += " (the reference's: " + profile_value(metric.reference, metric.unit) + ")";
      text += "\n";
      if (!metric.missing.empty() && profiled.problem.empty()) text += "      " + metric.missing + "\n";
      if (!metric.hint.empty()) text += fmt::format("      -> {}: {}\n", metric.hint_because, metric.hint);
    }
  }
  return text;
}

}  // namespace labgrade
