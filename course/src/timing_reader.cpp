#include "timing_reader.hpp"

#include <fmt/format.h>

namespace cudalabs::config::detail {

TimingOverrides read_timing_settings(const MapReader& timing, FileDiagnostics& diagnostics, TimingKeys keys) {
  timing.check_keys({"warmup", "min_samples", "max_samples", "target_relative_ci", "confidence",
                     "time_budget_seconds", "remeasure_attempts"});
  const bool required = keys == TimingKeys::Required;
  const auto number = [&](const char* key, NumberRange range) {
    return required ? timing.require_number(key, range) : timing.optional_number(key, range);
  };
  const auto count = [&](const char* key) -> std::optional<int> {
    const std::optional<std::uint64_t> value =
        required ? timing.require_positive_integer(key) : timing.optional_positive_integer(key);
    if (!value) return std::nullopt;
    return static_cast<int>(*value);
  };
  const auto whole = [](std::optional<double> value) -> std::optional<int> {
    if (!value) return std::nullopt;
    return static_cast<int>(*value);
  };
  TimingOverrides out;
  out.warmup = whole(number("warmup", NumberRange::NonNegative));
  out.min_samples = count("min_samples");
  out.max_samples = count("max_samples");
  out.target_relative_ci = number("target_relative_ci", NumberRange::Positive);
  out.confidence = number("confidence", NumberRange::Positive);
  out.time_budget_seconds = number("time_budget_seconds", NumberRange::Positive);
  out.remeasure_attempts = whole(number("remeasure_attempts", NumberRange::NonNegative));

  const auto complain = [&](const char* key, const std::string& message) {
    if (const auto at = timing.find(key)) diagnostics.add(at->mark, at->field, message);
  };
  if (out.min_samples && out.max_samples && *out.max_samples < *out.min_samples) {
    complain("max_samples",
             fmt::format("must be at least min_samples ({}), got {}", *out.min_samples, *out.max_samples));
  }
  if (out.min_samples && *out.min_samples < 6) {
    complain("min_samples",
             fmt::format("a 95% interval of a median needs at least 6 samples, got {}", *out.min_samples));
  }
  if (out.confidence && *out.confidence >= 1) {
    complain("confidence", fmt::format("must be below 1 (e.g. 0.95), got {}", *out.confidence));
  }
  if (out.target_relative_ci && *out.target_relative_ci >= 1) {
    complain("target_relative_ci", fmt::format("is a fraction (0.01 = 1%), got {}", *out.target_relative_ci));
  }
  return out;
}

}  // namespace cudalabs::config::detail
