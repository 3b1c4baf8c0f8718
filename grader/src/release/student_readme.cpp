#include "release/student_readme.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace labgrade {
namespace config = cudalabs::config;

namespace {

std::string describe_threshold(const config::PerformanceThreshold& threshold) {
  switch (threshold.kind) {
    case config::ThresholdKind::MinFractionOfPeakBandwidth:
      return fmt::format("at least {:g}% of your GPU's copy bandwidth, measured in the same run",
                         100 * threshold.value);
    case config::ThresholdKind::MinFractionOfPeakFlops:
      return fmt::format("at least {:g}% of your GPU's peak arithmetic rate", 100 * threshold.value);
    case config::ThresholdKind::MaxMs:
      return "a time limit in milliseconds per GPU model";
    case config::ThresholdKind::MaxRatioToSlowestStage:  // a preview's stages are the self-check's own
      return fmt::format("at most {:g}x the slowest of its stages (the copies and your own kernel) timed alone "
                         "in the same run",
                         threshold.value);
    case config::ThresholdKind::MaxRatioToSolution:
      break;  // the loader refuses it on a public case
  }
  return "against the reference";
}

// What a preview times: the student's code alone, or against the stages it is made of.
std::string preview_subject(const config::PerformanceThreshold& threshold) {
  return threshold.kind == config::ThresholdKind::MaxRatioToSlowestStage ? "your whole pipeline"
                                                                         : "your code alone";
}

}  // namespace

std::string timing_preview(const config::LabConfig& released) {
  std::string preview;
  for (const auto& spec : released.performance) {
    if (spec.visibility != config::Visibility::Public) continue;
    if (!preview.empty()) preview += "; ";
    preview += spec.preview ? fmt::format("`{}`: {}, {} (a preview, no points)", spec.test_name(),
                                          preview_subject(spec.threshold), describe_threshold(spec.threshold))
                            : fmt::format("`{}` ({:g} points): {}", spec.test_name(), spec.points,
                                          describe_threshold(spec.threshold));
  }
  if (!preview.empty()) return "device-relative: " + preview;
  return "none: its timed cases compare your code with the reference solution, which this release "
         "does not include; they are graded only";
}

std::string student_readme(const std::string& readme_template, const std::vector<config::LabConfig>& released_labs) {
  std::string table =
      "| lab | title | points in the self-check | timing preview in the self-check |\n|---|---|---|---|\n";
  for (const config::LabConfig& lab : released_labs) {
    const double withheld = lab.withheld_points.value_or(0);
    table += fmt::format("| `{}` | {} | {:g} of {:g} | {} |\n", lab.id, lab.title, lab.total_points - withheld,
                         lab.total_points, timing_preview(lab));
  }
  const std::string marker = "@LABS@\n";
  const std::size_t at = readme_template.find(marker);
  if (at == std::string::npos) throw std::runtime_error("the release's README template has no @LABS@ line");
  return readme_template.substr(0, at) + table + readme_template.substr(at + marker.size());
}

}  // namespace labgrade
