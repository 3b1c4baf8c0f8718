#include "cudalabs/config/course_config.hpp"

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
  defaults->check_keys({"test_timeout_seconds", "build_timeout_seconds", "max_source_bytes", "max_output_bytes"});
  course.test_timeout_seconds = defaults->require_number("test_timeout_seconds", NumberRange::Positive).value_or(0);
  course.build_timeout_seconds = defaults->require_number("build_timeout_seconds", NumberRange::Positive).value_or(0);
  course.max_source_bytes = defaults->require_positive_integer("max_source_bytes").value_or(0);
  course.max_output_bytes = defaults->require_positive_integer("max_output_bytes").value_or(0);
}

}  // namespace

CourseConfig load_course_config(const std::filesystem::path& file) {
  CourseConfig course;
  course.source_path = file.string();
  FileDiagnostics diagnostics(course.source_path);
  if (const std::optional<YAML::Node> root = detail::load_yaml_file(file, diagnostics)) {
    const Located whole_file{*root, "", root->Mark()};
    if (const std::optional<MapReader> top = MapReader::open(whole_file, diagnostics, "a map of course settings")) {
      top->check_keys({"course", "defaults"});
      course.course = top->require_string("course").value_or("");
      read_defaults(*top, course);
    }
  }
  diagnostics.throw_if_any();
  return course;
}

}  // namespace cudalabs::config
