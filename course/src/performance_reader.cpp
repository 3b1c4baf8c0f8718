#include "performance_reader.hpp"

#include <map>
#include <regex>
#include <string>

#include <fmt/format.h>

#include "cudalabs/course/lab_config.hpp"
#include "cudalabs/course/threshold_kinds.hpp"

namespace cudalabs::config::detail {
namespace {

int line_of(const YAML::Mark& mark) { return mark.is_null() ? 0 : mark.line + 1; }

bool is_identifier(const std::string& name) {
  static const std::regex pattern(R"([A-Za-z_][A-Za-z0-9_]*)");
  return std::regex_match(name, pattern);
}

// max_ms: {default: X, "<device name as CUDA reports it>": Y, ...}
bool read_max_ms(const MapReader& threshold, FileDiagnostics& diagnostics, PerformanceThreshold& out) {
  const std::optional<MapReader> limits =
      threshold.require_map("max_ms", "a map of device name (or 'default') to milliseconds");
  if (!limits) return false;
  limits->check_duplicate_keys();
  bool ok = true;
  for (const auto& [device, value] : limits->entries()) {
    const std::optional<double> ms = limits->require_number(device, NumberRange::Positive);
    if (!ms) {
      ok = false;
    } else if (device == "default") {
      out.max_ms_default = *ms;
    } else {
      out.max_ms_by_device.emplace(device, *ms);
    }
  }
  if (ok && !out.max_ms_default && out.max_ms_by_device.empty()) {
    diagnostics.add(threshold.find("max_ms")->mark, threshold.field() + ".max_ms",
                    "expected at least one limit: 'default' or a device name");
    ok = false;
  }
  return ok;
}

std::optional<PerformanceThreshold> read_threshold(const MapReader& entry, FileDiagnostics& diagnostics) {
  const std::string keys = threshold_kind_keys();
  const std::optional<MapReader> threshold = entry.require_map("threshold", "a map with one of " + keys);
  if (!threshold) return std::nullopt;
  std::vector<std::string> known;
  for (const ThresholdKindEntry& kind : threshold_kinds()) known.emplace_back(kind.key);
  threshold->check_keys(known);
  std::vector<std::string> given;
  for (const auto& key : known) {
    if (threshold->find(key)) given.push_back(key);
  }
  if (given.size() != 1) {
    diagnostics.add(entry.find("threshold")->mark, threshold->field(),
                    given.empty() ? "expected one of " + keys : fmt::format("expected exactly one threshold, got {}", given.size()));
    return std::nullopt;
  }
  PerformanceThreshold out;
  out.kind = find_threshold_kind(given.front())->kind;
  if (out.kind == ThresholdKind::MaxMs) {
    if (!read_max_ms(*threshold, diagnostics, out)) return std::nullopt;
    return out;
  }
  const std::optional<double> value = threshold->require_number(given.front(), NumberRange::Positive);
  if (!value) return std::nullopt;
  if (!lower_is_better(out.kind) && *value > 1) {
    const Located at = *threshold->find(given.front());
    diagnostics.add(at.mark, at.field,
                    fmt::format("a fraction of peak is at most 1 (100%), got {}", *value));
    return std::nullopt;
  }
  out.value = *value;
  return out;
}

// zero_at must lie on the bad side of every limit the threshold can apply.
std::optional<PartialCredit> read_partial_credit(const MapReader& entry, const PerformanceThreshold& threshold,
                                                 FileDiagnostics& diagnostics, bool* ok) {
  const std::optional<MapReader> partial = entry.optional_map("partial_credit", "a map {zero_at}");
  if (!partial) {
    if (entry.find("partial_credit")) *ok = false;
    return std::nullopt;
  }
  partial->check_keys({"zero_at"});
  const std::optional<double> zero_at = partial->require_number("zero_at", NumberRange::NonNegative);
  if (!zero_at) {
    *ok = false;
    return std::nullopt;
  }
  std::vector<double> limits;
  if (threshold.kind == ThresholdKind::MaxMs) {
    if (threshold.max_ms_default) limits.push_back(*threshold.max_ms_default);
    for (const auto& [device, ms] : threshold.max_ms_by_device) limits.push_back(ms);
  } else {
    limits.push_back(threshold.value);
  }
  const bool lower_better = lower_is_better(threshold.kind);
  for (const double limit : limits) {
    if (lower_better ? *zero_at > limit : *zero_at < limit) continue;
    const Located at = *partial->find("zero_at");
    diagnostics.add(at.mark, at.field,
                    fmt::format("zero_at must be {} the threshold {} (credit falls from full at the threshold to "
                                "none at zero_at), got {}",
                                lower_better ? "greater than" : "less than", limit, *zero_at));
    *ok = false;
    return std::nullopt;
  }
  return PartialCredit{*zero_at};
}

// A preview (`preview: true`) is the students' own: public, and worth nothing (the grade is the
// hidden case it previews). Its threshold is checked like any public case's.
bool check_preview(const MapReader& entry, const std::optional<double>& points,
                   const std::optional<std::string>& visibility, FileDiagnostics& diagnostics) {
  bool ok = true;
  if (points && *points != 0) {
    const Located at = *entry.find("points");
    diagnostics.add(at.mark, at.field,
                    fmt::format("a timing preview earns no points (the grade is the hidden case it previews): "
                                "leave points out or make it 0, got {:g}",
                                *points));
    ok = false;
  }
  if (visibility && *visibility != "public") {
    const Located at = *entry.find("visibility");
    diagnostics.add(at.mark, at.field,
                    "a timing preview runs in the students' self-check, so it must be public (the hidden case it "
                    "previews stays hidden)");
    ok = false;
  }
  if (const std::optional<Located> partial = entry.find("partial_credit")) {
    diagnostics.add(partial->mark, partial->field,
                    "a timing preview earns no points, so it has no partial credit: leave partial_credit out");
    ok = false;
  }
  return ok;
}

}  // namespace

PerformanceRead read_performance(const MapReader& top, FileDiagnostics& diagnostics) {
  PerformanceRead read;
  if (!top.find("performance")) return read;
  read.present = true;
  const std::vector<Located> items =
      top.require_list("performance", "performance cases {name, points, visibility, threshold}");
  if (items.empty()) read.all_points_read = false;
  std::map<std::string, int> first_line;
  for (const Located& item : items) {
    const std::optional<MapReader> entry =
        MapReader::open(item, diagnostics, "a map {name, points, visibility, threshold, partial_credit}");
    if (!entry) {
      read.all_points_read = false;
      continue;
    }
    entry->check_keys({"name", "points", "visibility", "threshold", "partial_credit", "preview"});
    bool ok = true;
    const std::optional<bool> preview = entry->optional_bool("preview");
    if (entry->find("preview") && !preview) ok = false;
    const bool is_preview = preview.value_or(false);
    std::optional<std::string> name = entry->require_string("name");
    if (name) {
      const Located at = *entry->find("name");
      if (!is_identifier(*name)) {
        diagnostics.add(at.mark, at.field,
                        fmt::format("expected a C identifier (the suite's test is Performance.<name>), got '{}'", *name));
        name.reset();
      } else if (const auto [previous, inserted] = first_line.emplace(*name, line_of(at.mark)); !inserted) {
        diagnostics.add(at.mark, at.field,
                        fmt::format("performance case '{}' is listed twice (first on line {})", *name, previous->second));
        name.reset();
      }
    }
    // A preview earns nothing: its points may be left out, and are 0 when given.
    // (An unreadable `preview:` was reported already; its missing points would only repeat it.)
    const bool preview_asked = is_preview || (entry->find("preview") && !preview);
    const std::optional<double> points = preview_asked && !entry->find("points")
                                             ? std::optional<double>(0.0)
                                             : entry->require_number("points", NumberRange::NonNegative);
    const std::optional<std::string> visibility = entry->require_choice("visibility", {"public", "hidden"});
    const std::optional<PerformanceThreshold> threshold = read_threshold(*entry, diagnostics);
    std::optional<PartialCredit> partial;
    if (threshold) partial = read_partial_credit(*entry, *threshold, diagnostics, &ok);
    if (is_preview) ok = check_preview(*entry, points, visibility, diagnostics) && ok;
    // A public case is timed by the students' self-check too, where there is no solution: a graded
    // case's pipeline stages run the reference's kernels, so both relative kinds are refused there.
    // A preview may compare a pipeline with its slowest stage, since its stages are the
    // self-check's own (cudaMemcpyAsync copies and the student's kernel), but never with the solution.
    const bool compares_with_solution = threshold && threshold->kind == ThresholdKind::MaxRatioToSolution;
    const bool compares_with_stages = threshold && threshold->kind == ThresholdKind::MaxRatioToSlowestStage;
    if (visibility && *visibility == "public" && (compares_with_solution || (compares_with_stages && !is_preview))) {
      const Located at = *entry->find("visibility");
      const std::string message =
          is_preview ? "a timing preview runs in the students' self-check, which has no solution: give it a threshold "
                       "relative to the device (min_fraction_of_peak_bandwidth, min_fraction_of_peak_flops or max_ms) "
                       "or, for a pipeline, max_ratio_to_slowest_stage (its stages are the self-check's own code)"
                     : std::string("a public performance case runs in the students' self-check, which has no "
                                   "solution: give it a threshold relative to the device "
                                   "(min_fraction_of_peak_bandwidth, min_fraction_of_peak_flops or max_ms), or make "
                                   "it hidden") +
                           (compares_with_stages ? " (its stages run the reference's kernels; a timing preview "
                                                   "(preview: true) may compare with stages of the self-check's own)"
                                                 : "");
      diagnostics.add(at.mark, at.field, message);
      ok = false;
    }
    if (points) {
      read.points += *points;
    } else {
      read.all_points_read = false;
    }
    if (name && points && visibility && threshold && ok) {
      read.cases.push_back(PerformanceSpec{*name, *points,
                                           *visibility == "public" ? Visibility::Public : Visibility::Hidden,
                                           *threshold, partial, line_of(item.mark), is_preview});
    }
  }
  return read;
}

}  // namespace cudalabs::config::detail
