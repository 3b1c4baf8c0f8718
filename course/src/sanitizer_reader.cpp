#include "sanitizer_reader.hpp"

#include <fmt/format.h>

namespace cudalabs::config::detail {

SanitizerPolicy read_sanitizer_policy(const MapReader& top, FileDiagnostics& diagnostics) {
  SanitizerPolicy policy;
  const std::optional<MapReader> section = top.optional_map("sanitizer", "a map {required}");
  if (!section) return policy;
  section->check_keys({"required"});
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

}  // namespace cudalabs::config::detail
