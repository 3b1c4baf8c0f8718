#include "release/public_lab_config.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "cudalabs/course/lab_config.hpp"

namespace labgrade {
namespace {

// The entries of a `tests:` or `performance:` list whose visibility is public. The loader has
// already checked every entry, so `visibility` is there and is "public" or "hidden".
YAML::Node public_entries(const YAML::Node& list) {
  YAML::Node kept(YAML::NodeType::Sequence);
  kept.SetStyle(list.Style());
  for (const YAML::Node& entry : list) {
    if (entry["visibility"].as<std::string>() == "public") kept.push_back(entry);
  }
  return kept;
}

}  // namespace

std::string public_lab_yaml(const std::filesystem::path& instructor_lab_yaml) {
  const cudalabs::config::LabConfig lab = cudalabs::config::load_lab_config(instructor_lab_yaml);
  double withheld = 0;
  for (const auto& test : lab.tests) {
    if (test.visibility == cudalabs::config::Visibility::Hidden) withheld += test.points;
  }
  for (const auto& spec : lab.performance) {
    if (spec.visibility == cudalabs::config::Visibility::Hidden) withheld += spec.points;
  }

  const YAML::Node original = YAML::LoadFile(instructor_lab_yaml.string());
  YAML::Node released(YAML::NodeType::Map);
  for (const auto& entry : original) {
    const std::string key = entry.first.as<std::string>();
    // What the reference must reach in the instructor's benchmarks: about the reference, not the
    // students' code, and it names the hidden timed cases.
    if (key == "reference_targets") continue;
    if (key == "sanitizer" && entry.second.IsMap() && entry.second["skip"]) {
      // Only the public tests of `skip:` (a hidden test's name is not the students' to see).
      YAML::Node sanitizer = YAML::Clone(entry.second);
      YAML::Node skip(YAML::NodeType::Sequence);
      for (const YAML::Node& name : entry.second["skip"]) {
        for (const auto& test : lab.tests) {
          if (test.name == name.as<std::string>() && test.visibility == cudalabs::config::Visibility::Public) {
            skip.push_back(name);
          }
        }
      }
      sanitizer.remove("skip");
      if (skip.size() > 0) sanitizer["skip"] = skip;
      if (sanitizer.size() > 0) released[key] = sanitizer;
      continue;
    }
    if (key == "tests" || key == "performance") {
      const YAML::Node kept = public_entries(entry.second);
      if (key == "tests" || kept.size() > 0) released[key] = kept;
    } else {
      released[key] = entry.second;
    }
    if (key == "total_points") released["withheld_points"] = withheld;
  }

  YAML::Emitter out;
  out << released;
  if (!out.good()) throw std::runtime_error(fmt::format("cannot write the release's copy of {}: {}",
                                                        instructor_lab_yaml.string(), out.GetLastError()));
  return fmt::format(
      "# The student release's copy of this lab's configuration, written by `labgrade release`: the\n"
      "# public tests and performance cases only. The grade also counts hidden ones, worth\n"
      "# withheld_points of total_points; their names, sizes and thresholds are not in this release.\n"
      "{}\n",
      out.c_str());
}

}  // namespace labgrade
