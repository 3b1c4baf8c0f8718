#include "cudalabs/course/lab_config.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <regex>
#include <set>

#include <fmt/format.h>

#include "forbid_rules_reader.hpp"
#include "performance_reader.hpp"
#include "reference_target_reader.hpp"
#include "late_policy_reader.hpp"
#include "service_policy_reader.hpp"
#include "kernel_requirement_reader.hpp"
#include "profile_reader.hpp"
#include "sanitizer_reader.hpp"
#include "spelling.hpp"
#include "timing_reader.hpp"
#include "yaml_fields.hpp"

namespace cudalabs::config {

namespace fs = std::filesystem;
using detail::FileDiagnostics;
using detail::Located;
using detail::MapReader;
using detail::NumberRange;

std::string_view to_string(Visibility visibility) {
  return visibility == Visibility::Public ? "public" : "hidden";
}

const TestSpec* LabConfig::find_test(std::string_view name) const {
  const auto found = std::find_if(tests.begin(), tests.end(), [&](const TestSpec& test) { return test.name == name; });
  return found == tests.end() ? nullptr : &*found;
}

const PerformanceSpec* LabConfig::find_performance_test(std::string_view test_name) const {
  const auto found = std::find_if(performance.begin(), performance.end(),
                                  [&](const PerformanceSpec& spec) { return spec.test_name() == test_name; });
  return found == performance.end() ? nullptr : &*found;
}

TimingSettings LabConfig::timing_settings(const CourseConfig& course) const {
  const TimingSettings merged = with_overrides(course.timing, timing);
  if (merged.max_samples < merged.min_samples) {
    throw ConfigError({Diagnostic{source_path, timing_line, 0, "timing",
                                  fmt::format("min_samples {} is above max_samples {} (course.yaml's, unless this "
                                              "file sets it): set max_samples here too",
                                              merged.min_samples, merged.max_samples)}});
  }
  return merged;
}

double LabConfig::timeout_for_tests(const CourseConfig& course) const {
  return test_timeout_seconds.value_or(course.test_timeout_seconds);
}

std::vector<std::string> LabConfig::test_names(bool only_public) const {
  std::vector<std::string> names;
  for (const TestSpec& spec : tests) {
    if (covered(spec.visibility, only_public)) names.push_back(spec.name);
  }
  return names;
}

std::vector<std::string> LabConfig::performance_test_names(bool only_public) const {
  std::vector<std::string> names;
  for (const PerformanceSpec& spec : performance) {
    if (covered(spec, only_public)) names.push_back(spec.test_name());
  }
  return names;
}

double LabConfig::points_possible(bool only_public) const {
  double points = 0;
  for (const TestSpec& spec : tests) {
    if (covered(spec.visibility, only_public)) points += spec.points;
  }
  for (const PerformanceSpec& spec : performance) {
    if (covered(spec.visibility, only_public)) points += spec.points;
  }
  return points;
}

ResourceLimits LabConfig::test_limits(const CourseConfig& course) const {
  ResourceLimits limits = course.test_limits;
  if (host_memory_gib) limits.max_data_bytes = gib_to_bytes(*host_memory_gib);
  return limits;
}

namespace {

int line_of(const YAML::Mark& mark) { return mark.is_null() ? 0 : mark.line + 1; }

// ---- lab, title, total_points --------------------------------------------------------------

// The id names the lab everywhere (folders, targets, the command line), so the file must agree.
void read_id(const MapReader& top, const fs::path& file, FileDiagnostics& diagnostics, LabConfig& lab) {
  const std::optional<std::string> id = top.require_string("lab");
  if (!id) return;
  lab.id = *id;
  const std::string stem = file.stem().string();
  if (*id != stem) {
    diagnostics.add(top.find("lab")->mark, "lab",
                    fmt::format("the lab id '{}' must equal the file name without its extension, '{}' "
                                "(rename the file or change the id)",
                                *id, stem));
  }
}

// ---- student_files -------------------------------------------------------------------------

// Why a student file name is unsafe or unusable, or "" when it is fine. Names are joined to
// the submission and build directories, so anything that could leave them is refused.
std::string student_file_problem(const std::string& name) {
  static const std::array<std::string_view, 5> extensions{".cu", ".cuh", ".h", ".hpp", ".cpp"};
  if (name.find_first_of("/\\") != std::string::npos) return "must be a plain file name, not a path";
  if (name.find("..") != std::string::npos) return "must not contain '..'";
  const auto unprintable = [](unsigned char c) { return c <= ' ' || c == 0x7f; };
  if (std::any_of(name.begin(), name.end(), unprintable)) return "must not contain spaces or control characters";
  if (name.front() == '.') return "must not start with '.' (hidden files are not taken from a submission)";
  const std::string extension = fs::path(name).extension().string();
  if (std::find(extensions.begin(), extensions.end(), extension) == extensions.end()) {
    return "must end in .cu, .cuh, .h, .hpp or .cpp";
  }
  return "";
}

void read_student_files(const MapReader& top, FileDiagnostics& diagnostics, LabConfig& lab) {
  std::map<std::string, int> first_line;
  for (const detail::StringItem& item : top.require_string_list("student_files", "file names")) {
    if (const std::string problem = student_file_problem(item.value); !problem.empty()) {
      diagnostics.add(item.mark, item.field, fmt::format("'{}' {}", item.value, problem));
      continue;
    }
    const auto [previous, inserted] = first_line.emplace(item.value, line_of(item.mark));
    if (!inserted) {
      diagnostics.add(item.mark, item.field,
                      fmt::format("'{}' is listed twice (first on line {})", item.value, previous->second));
      continue;
    }
    lab.student_files.push_back(item.value);
  }
}

// ---- tolerances ----------------------------------------------------------------------------

void read_tolerances(const MapReader& top, FileDiagnostics& diagnostics, LabConfig& lab) {
  const std::optional<MapReader> tolerances =
      top.optional_map("tolerances", "a map from tolerance names to {abs, rel}");
  if (!tolerances) return;
  tolerances->check_duplicate_keys();
  for (const auto& [name, value] : tolerances->entries()) {
    const std::optional<MapReader> entry = MapReader::open(value, diagnostics, "a map {abs, rel}");
    if (!entry) continue;
    entry->check_keys({"abs", "rel"});
    const std::optional<double> abs = entry->require_number("abs", NumberRange::NonNegative);
    const std::optional<double> rel = entry->require_number("rel", NumberRange::NonNegative);
    if (abs && rel) lab.tolerances.emplace(name, Tolerance{*abs, *rel});  // emplace keeps the first of duplicates
  }
}

// ---- tests ---------------------------------------------------------------------------------

// What GoogleTest prints for a plain TEST/TEST_F: "Suite.Test", both C identifiers.
bool is_gtest_name(const std::string& name) {
  static const std::regex pattern(R"([A-Za-z_][A-Za-z0-9_]*\.[A-Za-z_][A-Za-z0-9_]*)");
  return std::regex_match(name, pattern);
}

struct TestsRead {
  bool all_points_read = true;  // false: some points were invalid, so their sum means nothing
  double points = 0;
};

std::optional<std::string> read_test_name(const MapReader& test, FileDiagnostics& diagnostics,
                                          std::map<std::string, int>& first_line) {
  const std::optional<std::string> name = test.require_string("name");
  if (!name) return std::nullopt;
  const Located at = *test.find("name");
  if (!is_gtest_name(*name)) {
    diagnostics.add(at.mark, at.field,
                    fmt::format("expected a GoogleTest name 'Suite.Test' (each part a C identifier: letters, "
                                "digits and '_', not starting with a digit), got '{}'",
                                *name));
    return std::nullopt;
  }
  const auto [previous, inserted] = first_line.emplace(*name, line_of(at.mark));
  if (!inserted) {
    diagnostics.add(at.mark, at.field,
                    fmt::format("test '{}' is listed twice (first on line {})", *name, previous->second));
    return std::nullopt;
  }
  return name;
}

TestsRead read_tests(const MapReader& top, FileDiagnostics& diagnostics, LabConfig& lab) {
  TestsRead read;
  lab.tests_line = line_of(top.key_mark("tests").value_or(YAML::Mark::null_mark()));
  const std::vector<Located> items = top.require_list("tests", "tests {name, points, visibility}");
  if (items.empty()) read.all_points_read = false;
  std::map<std::string, int> first_line;
  for (const Located& item : items) {
    const std::optional<MapReader> test = MapReader::open(item, diagnostics, "a map {name, points, visibility}");
    if (!test) {
      read.all_points_read = false;
      continue;
    }
    test->check_keys({"name", "points", "visibility"});
    const std::optional<std::string> name = read_test_name(*test, diagnostics, first_line);
    const std::optional<double> points = test->require_number("points", NumberRange::NonNegative);
    const std::optional<std::string> visibility = test->require_choice("visibility", {"public", "hidden"});
    if (points) {
      read.points += *points;
    } else {
      read.all_points_read = false;
    }
    if (name && points && visibility) {
      lab.tests.push_back(TestSpec{*name, *points, *visibility == "public" ? Visibility::Public : Visibility::Hidden,
                                   line_of(item.mark)});
    }
  }
  return read;
}

// Checked only when every number involved was read, so one typo does not cause a second error.
void check_points_add_up(const MapReader& top, const TestsRead& tests, const detail::PerformanceRead& performance,
                         const std::optional<double>& total, const LabConfig& lab, FileDiagnostics& diagnostics) {
  if (!total || !tests.all_points_read || !performance.all_points_read) return;
  if (top.find("withheld_points") && !lab.withheld_points) return;  // invalid, already reported
  const double sum = tests.points + performance.points + lab.withheld_points.value_or(0);
  if (std::abs(sum - *total) <= 1e-9) return;
  diagnostics.add(top.find("total_points")->mark, "total_points",
                  lab.withheld_points
                      ? fmt::format("total_points is {}, but the points of tests: ({}), performance: ({}) and "
                                    "withheld_points ({}) add up to {}",
                                    *total, tests.points, performance.points, *lab.withheld_points, sum)
                  : !performance.present
                      ? fmt::format("total_points is {}, but the points of tests: add up to {}", *total, sum)
                      : fmt::format("total_points is {}, but the points of tests: ({}) and performance: ({}) add "
                                    "up to {}",
                                    *total, tests.points, performance.points, sum));
}

// A release's copy keeps only public entries: a hidden one there would give away what the
// release exists to hold back.
void check_release_holds_no_hidden_entry(const MapReader& top, const LabConfig& lab, FileDiagnostics& diagnostics) {
  if (!lab.withheld_points) return;
  const auto hidden_entry = [&](const std::string& kind, const std::string& name, int line) {
    YAML::Mark at;  // the entry's line; its column is not kept
    at.line = line - 1;
    at.column = -1;
    diagnostics.add(at, kind,
                    fmt::format("'{}' is hidden, but a file with withheld_points (a student release's "
                                           "copy, see line {}) may list only public entries",
                                name, line_of(top.find("withheld_points")->mark)));
  };
  for (std::size_t i = 0; i < lab.tests.size(); ++i) {
    if (lab.tests[i].visibility == Visibility::Hidden) {
      hidden_entry(detail::item_path("tests", i) + ".visibility", lab.tests[i].name, lab.tests[i].line);
    }
  }
  for (std::size_t i = 0; i < lab.performance.size(); ++i) {
    if (lab.performance[i].visibility == Visibility::Hidden) {
      hidden_entry(detail::item_path("performance", i) + ".visibility", lab.performance[i].name,
                   lab.performance[i].line);
    }
  }
}

}  // namespace

LabConfig load_lab_config(const fs::path& file) {
  LabConfig lab;
  lab.source_path = file.string();
  FileDiagnostics diagnostics(lab.source_path);
  if (const std::optional<YAML::Node> root = detail::load_yaml_file(file, diagnostics)) {
    const Located whole_file{*root, "", root->Mark()};
    if (const std::optional<MapReader> top = MapReader::open(whole_file, diagnostics, "a map of lab settings")) {
      top->check_keys({"lab", "title", "total_points", "student_files", "test_timeout_seconds", "host_memory_gib",
                       "timing", "tolerances", "tests", "performance", "forbid", "allow", "sanitizer", "kernels",
                       "profile", "reference_targets", "late", "service", "withheld_points"});
      read_id(*top, file, diagnostics, lab);
      lab.title = top->require_string("title").value_or("");
      const std::optional<double> total = top->require_number("total_points", NumberRange::Positive);
      lab.total_points = total.value_or(0);
      read_student_files(*top, diagnostics, lab);
      lab.test_timeout_seconds = top->optional_number("test_timeout_seconds", NumberRange::Positive);
      lab.host_memory_gib = top->optional_number("host_memory_gib", NumberRange::Positive);
      if (const std::optional<MapReader> timing = top->optional_map("timing", "a map of timing settings")) {
        lab.timing = detail::read_timing_settings(*timing, diagnostics, detail::TimingKeys::Optional);
        lab.timing_line = line_of(top->key_mark("timing").value_or(YAML::Mark::null_mark()));
      }
      read_tolerances(*top, diagnostics, lab);
      lab.forbid = detail::read_forbid_rules(*top, diagnostics);
      lab.allow = detail::read_forbid_rules(*top, diagnostics, "allow");
      lab.sanitizer = detail::read_sanitizer_policy(*top, diagnostics);
      lab.kernels = detail::read_kernel_requirements(*top, diagnostics);
      lab.profile = detail::read_profile_spec(*top, diagnostics);
      lab.reference_targets = detail::read_reference_targets(*top, diagnostics);
      lab.late = detail::read_late_policy(*top, diagnostics);
      lab.service = detail::read_service_policy(*top);
      const TestsRead tests = read_tests(*top, diagnostics, lab);
      detail::check_sanitizer_skips(*top, lab, diagnostics);
      lab.performance_line = line_of(top->key_mark("performance").value_or(YAML::Mark::null_mark()));
      detail::PerformanceRead performance = detail::read_performance(*top, diagnostics);
      lab.performance = performance.cases;
      lab.withheld_points = top->optional_number("withheld_points", NumberRange::NonNegative);
      check_points_add_up(*top, tests, performance, total, lab, diagnostics);
      check_release_holds_no_hidden_entry(*top, lab, diagnostics);
    }
  }
  diagnostics.throw_if_any();
  return lab;
}

// ---- consistency with a compiled suite ------------------------------------------------------

std::vector<Diagnostic> check_against_suite(const LabConfig& lab, const std::vector<std::string>& suite_tests,
                                            bool only_public) {
  const std::set<std::string> in_suite(suite_tests.begin(), suite_tests.end());
  const std::string suite = only_public ? "the public self-check suite" : "the suite";
  std::vector<Diagnostic> problems;
  auto report = [&](int line, std::string field, std::string message) {
    problems.push_back(Diagnostic{lab.source_path, line, 0, std::move(field), std::move(message)});
  };

  // A misspelt YAML name is most likely one of the suite's tests that the YAML does not list.
  std::vector<std::string> unlisted;
  for (const std::string& name : suite_tests) {
    if (!lab.find_test(name) && !lab.find_performance_test(name)) unlisted.push_back(name);
  }

  for (std::size_t i = 0; i < lab.tests.size(); ++i) {
    const TestSpec& test = lab.tests[i];
    const bool found = in_suite.count(test.name) > 0;
    if (!covered(test.visibility, only_public)) {
      // Students would see and run a test whose points are meant to stay hidden.
      if (found) {
        report(test.line, detail::item_path("tests", i) + ".visibility",
               fmt::format("test '{}' is declared hidden, but {} contains it (make it public, or move it "
                           "to the hidden suite)",
                           test.name, suite));
      }
      continue;
    }
    if (found) continue;
    std::string hint = detail::did_you_mean(test.name, unlisted, 3);
    if (hint.empty()) hint = detail::did_you_mean(test.name, suite_tests, 3);
    report(test.line, detail::item_path("tests", i) + ".name",
           fmt::format("{} has no test named '{}'{}", suite, test.name, hint));
  }

  for (std::size_t i = 0; i < lab.performance.size(); ++i) {
    const PerformanceSpec& spec = lab.performance[i];
    const bool found = in_suite.count(spec.test_name()) > 0;
    if (!covered(spec.visibility, only_public)) {
      if (found) {
        report(spec.line, detail::item_path("performance", i) + ".visibility",
               fmt::format("performance case '{}' is declared hidden, but {} contains {}", spec.name, suite,
                           spec.test_name()));
      }
      continue;
    }
    if (found) continue;
    report(spec.line, detail::item_path("performance", i) + ".name",
           fmt::format("{} has no test {} for performance case '{}'{}", suite, spec.test_name(), spec.name,
                       detail::did_you_mean(spec.test_name(), unlisted, 3)));
  }

  std::set<std::string> reported;
  for (const std::string& name : unlisted) {
    if (!reported.insert(name).second) continue;
    const bool timed = name.rfind("Performance.", 0) == 0;
    const bool preview = name.rfind("Preview.", 0) == 0;
    std::string message;
    if (timed) {
      message = fmt::format("{} has test '{}', which performance: does not list as case '{}'", suite, name,
                            name.substr(std::string("Performance.").size()));
    } else if (preview) {
      message = fmt::format("{} has test '{}', which performance: does not list as a timing preview '{}' "
                            "(preview: true)",
                            suite, name, name.substr(std::string("Preview.").size()));
    } else {
      message = fmt::format("{} has test '{}', which tests: does not list (give it points, even 0)", suite, name);
    }
    report(timed || preview ? lab.performance_line : lab.tests_line, timed || preview ? "performance" : "tests",
           message);
  }
  return problems;
}

}  // namespace cudalabs::config
