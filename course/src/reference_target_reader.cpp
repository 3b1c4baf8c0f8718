#include "reference_target_reader.hpp"

namespace cudalabs::config::detail {

std::vector<ReferenceTarget> read_reference_targets(const MapReader& top, FileDiagnostics& diagnostics) {
  std::vector<ReferenceTarget> targets;
  if (!top.find("reference_targets")) return targets;
  for (const Located& item : top.require_list("reference_targets", "targets")) {
    const std::optional<MapReader> entry =
        MapReader::open(item, diagnostics, "a map {case, baseline, at_least}");
    if (!entry) continue;
    entry->check_keys({"case", "baseline", "at_least"});
    const std::optional<std::string> name = entry->require_string("case");
    const std::optional<std::string> baseline = entry->require_choice("baseline", kReferenceBaselines);
    const std::optional<double> at_least = entry->require_number("at_least", NumberRange::Positive);
    if (name && baseline && at_least) targets.push_back(ReferenceTarget{*name, *baseline, *at_least});
  }
  return targets;
}

}  // namespace cudalabs::config::detail
