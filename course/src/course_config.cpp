#include "cudalabs/course/course_config.hpp"

#include "forbid_rules_reader.hpp"
#include "timing_reader.hpp"
#include "yaml_fields.hpp"

namespace cudalabs::config {

using detail::FileDiagnostics;
using detail::Located;
using detail::MapReader;
using detail::NumberRange;

namespace {

// Used when course.yaml leaves the key out.
constexpr std::uint64_t kDefaultCpuSeconds = 600;  // a backstop: CUDA may spin a core while it waits
constexpr std::uint64_t kDefaultMaxOpenFiles = 1024;
constexpr std::uint64_t kDefaultMaxFileBytes = 64ull << 20;
constexpr std::uint64_t kDefaultCompilerMemoryBytes = 8ull << 30;
constexpr double kDefaultHostMemoryGib = 16;

void read_defaults(const MapReader& top, CourseConfig& course) {
  const std::optional<MapReader> defaults = top.require_map("defaults", "a map of default limits");
  if (!defaults) return;
  defaults->check_keys({"test_timeout_seconds", "build_timeout_seconds", "max_source_bytes", "max_output_bytes",
                        "cpu_seconds", "max_open_files", "max_file_bytes", "max_compiler_memory_bytes",
                        "host_memory_gib"});
  course.test_timeout_seconds = defaults->require_number("test_timeout_seconds", NumberRange::Positive).value_or(0);
  course.build_timeout_seconds = defaults->require_number("build_timeout_seconds", NumberRange::Positive).value_or(0);
  course.max_source_bytes = defaults->require_positive_integer("max_source_bytes").value_or(0);
  course.max_output_bytes = defaults->require_positive_integer("max_output_bytes").value_or(0);
  ResourceLimits common;
  common.cpu_seconds = defaults->optional_positive_integer("cpu_seconds").value_or(kDefaultCpuSeconds);
  common.max_open_files = defaults->optional_positive_integer("max_open_files").value_or(kDefaultMaxOpenFiles);
  common.max_file_bytes = defaults->optional_positive_integer("max_file_bytes").value_or(kDefaultMaxFileBytes);
  course.compiler_limits = common;
  course.compiler_limits.max_address_space_bytes =
      defaults->optional_positive_integer("max_compiler_memory_bytes").value_or(kDefaultCompilerMemoryBytes);
  course.test_limits = common;
  course.test_limits.max_data_bytes =
      gib_to_bytes(defaults->optional_number("host_memory_gib", NumberRange::Positive).value_or(kDefaultHostMemoryGib));
}

void read_timing(const MapReader& top, FileDiagnostics& diagnostics, CourseConfig& course) {
  const std::optional<MapReader> timing = top.require_map("timing", "a map of timing settings");
  if (!timing) return;
  const TimingOverrides read = detail::read_timing_settings(*timing, diagnostics, detail::TimingKeys::Required);
  course.timing = with_overrides(TimingSettings{}, read);
}

}  // namespace

TimingSettings with_overrides(TimingSettings settings, const TimingOverrides& overrides) {
  settings.warmup = overrides.warmup.value_or(settings.warmup);
  settings.min_samples = overrides.min_samples.value_or(settings.min_samples);
  settings.max_samples = overrides.max_samples.value_or(settings.max_samples);
  settings.target_relative_ci = overrides.target_relative_ci.value_or(settings.target_relative_ci);
  settings.confidence = overrides.confidence.value_or(settings.confidence);
  settings.time_budget_seconds = overrides.time_budget_seconds.value_or(settings.time_budget_seconds);
  settings.remeasure_attempts = overrides.remeasure_attempts.value_or(settings.remeasure_attempts);
  return settings;
}

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
