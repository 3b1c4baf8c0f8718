#include "sanitizer_reader.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "spelling.hpp"

namespace cudalabs::config::detail {

SanitizerPolicy read_sanitizer_policy(const MapReader& top, FileDiagnostics& diagnostics) {
  SanitizerPolicy policy;
  const std::optional<MapReader> section = top.optional_map("sanitizer", "a map {required, skip}");
  if (!section) return policy;
  section->check_keys({"required", "skip"});
  if (section->find("skip")) {
    policy.skip_line = static_cast<int>(section->key_mark("skip")->line) + 1;
    for (StringItem& item : section->require_string_list("skip", "test names")) policy.skip.push_back(std::move(item.value));
  }
  const std::optional<Located> required = section->find("required");
  if (!required) return policy;
  // yaml-cpp also reads "yes"/"on" as true; only plain true/false are accepted, so intent is clear.
  const std::string text = required->node.IsScalar() ? required->node.Scalar() : "";
  if (text == "true" || text == "false") {
    policy.required = text == "true";
  } else {
    diagnostics.add(required->mark, required->field,
                    fmt::format("expected true or false, got {}",
                                required->node.IsScalar() ? "'" + text + "'" : std::string("a non-scalar value")));
  }
  return policy;
}

void check_sanitizer_skips(const MapReader& top, const LabConfig& lab, FileDiagnostics& diagnostics) {
  const std::optional<MapReader> section = top.optional_map("sanitizer", "a map {required, skip}");
  if (!section || !section->find("skip")) return;
  std::vector<std::string> tests;
  for (const TestSpec& test : lab.tests) tests.push_back(test.name);
  for (const StringItem& item : section->require_string_list("skip", "test names")) {
    if (std::find(tests.begin(), tests.end(), item.value) != tests.end()) continue;
    diagnostics.add(item.mark, item.field,
                    fmt::format("'{}' is not one of this lab's tests (tests:){}", item.value, did_you_mean(item.value, tests, 3)));
  }
}

}  // namespace cudalabs::config::detail
