#include "cudalabs/course/course_config.hpp"

#include <fmt/format.h>

#include "forbid_rules_reader.hpp"
#include "yaml_fields.hpp"

namespace cudalabs::config {

using detail::FileDiagnostics;
using detail::Located;
using detail::MapReader;
using detail::NumberRange;

namespace {

void read_defaults(const MapReader& top, CourseConfig& course) {
  const std::optional<MapReader> defaults = top.require_map("defaults", "a map of default limits");
  if (!defaults) return;
  defaults->check_keys({"test_timeout_seconds", "build_timeout_seconds", "max_source_bytes", "max_output_bytes",
                        "cpu_seconds", "max_open_files", "max_file_bytes", "max_compiler_memory_bytes"});
  course.test_timeout_seconds = defaults->require_number("test_timeout_seconds", NumberRange::Positive).value_or(0);
  course.build_timeout_seconds = defaults->require_number("build_timeout_seconds", NumberRange::Positive).value_or(0);
  course.max_source_bytes = defaults->require_positive_integer("max_source_bytes").value_or(0);
  course.max_output_bytes = defaults->require_positive_integer("max_output_bytes").value_or(0);
  ProcessLimits& limits = course.limits;
  limits.cpu_seconds = defaults->optional_positive_integer("cpu_seconds").value_or(limits.cpu_seconds);
  limits.max_open_files = defaults->optional_positive_integer("max_open_files").value_or(limits.max_open_files);
  limits.max_file_bytes = defaults->optional_positive_integer("max_file_bytes").value_or(limits.max_file_bytes);
  limits.max_compiler_memory_bytes =
      defaults->optional_positive_integer("max_compiler_memory_bytes").value_or(limits.max_compiler_memory_bytes);
}

void read_timing(const MapReader& top, FileDiagnostics& diagnostics, CourseConfig& course) {
  const std::optional<MapReader> timing = top.require_map("timing", "a map of timing settings");
  if (!timing) return;
  timing->check_keys({"warmup", "min_samples", "max_samples", "target_relative_ci", "confidence",
                      "time_budget_seconds", "remeasure_attempts"});
  TimingSettings& out = course.timing;
  out.warmup = static_cast<int>(timing->require_number("warmup", NumberRange::NonNegative).value_or(0));
  out.min_samples = static_cast<int>(timing->require_positive_integer("min_samples").value_or(0));
  out.max_samples = static_cast<int>(timing->require_positive_integer("max_samples").value_or(0));
  out.target_relative_ci = timing->require_number("target_relative_ci", NumberRange::Positive).value_or(0);
  out.confidence = timing->require_number("confidence", NumberRange::Positive).value_or(0);
  out.time_budget_seconds = timing->require_number("time_budget_seconds", NumberRange::Positive).value_or(0);
  out.remeasure_attempts =
      static_cast<int>(timing->require_number("remeasure_attempts", NumberRange::NonNegative).value_or(0));
  auto complain = [&](const char* key, const std::string& message) {
    const auto at = timing->find(key);
    if (at) diagnostics.add(at->mark, at->field, message);
  };
  if (out.min_samples > 0 && out.max_samples > 0 && out.max_samples < out.min_samples) {
    complain("max_samples", fmt::format("must be at least min_samples ({}), got {}", out.min_samples, out.max_samples));
  }
  if (out.min_samples > 0 && out.min_samples < 6) {
    complain("min_samples", fmt::format("a 95% interval of a median needs at least 6 samples, got {}", out.min_samples));
  }
  if (out.confidence >= 1) complain("confidence", fmt::format("must be below 1 (e.g. 0.95), got {}", out.confidence));
  if (out.target_relative_ci >= 1) {
    complain("target_relative_ci", fmt::format("is a fraction (0.01 = 1%), got {}", out.target_relative_ci));
  }
}

}  // namespace

CourseConfig load_course_config(const std::filesystem::path& file) {
  CourseConfig course;
  course.source_path = file.string();
  FileDiagnostics diagnostics(course.source_path);
  if (const std::optional<YAML::Node> root = detail::load_yaml_file(file, diagnostics)) {
    const Located whole_file{*root, "", root->Mark()};
    if (const std::optional<MapReader> top = MapReader::open(whole_file, diagnostics, "a map of course settings")) {
      top->check_keys({"course", "defaults", "timing", "forbid"});
      course.course = top->require_string("course").value_or("");
      read_defaults(*top, course);
      read_timing(*top, diagnostics, course);
      course.forbid = detail::read_forbid_rules(*top, diagnostics);
    }
  }
  diagnostics.throw_if_any();
  return course;
}

}  // namespace cudalabs::config
