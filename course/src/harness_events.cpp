#include "cudalabs/course/harness_events.hpp"

#include <cmath>
#include <stdexcept>

namespace cudalabs::events {

void to_json(nlohmann::json& json, const Environment& event) {
  json = {{"cuda_device", event.cuda_device}};
  if (event.cuda_device && !event.device.empty()) json["device"] = event.device;
  if (!event.cuda_device) json["reason"] = event.reason;
  if (event.cuda_device && !event.device_wide_memory_reason.empty()) {
    json["device_wide_memory"] = event.device_wide_memory_reason;
  }
}

void from_json(const nlohmann::json& json, Environment& event) {
  event.cuda_device = json.value("cuda_device", false);
  event.device = json.value("device", "");
  event.reason = json.value("reason", "");
  event.device_wide_memory_reason = json.value("device_wide_memory", "");
}

void to_json(nlohmann::json& json, const TestStart& event) { json = {{"test", event.test}}; }

void from_json(const nlohmann::json& json, TestStart& event) { event.test = json.value("test", ""); }

void to_json(nlohmann::json& json, const GpuAloneWanted& event) {
  json = {{"test", event.test}, {"at_once", event.at_once}};
}

void from_json(const nlohmann::json& json, GpuAloneWanted& event) {
  event.test = json.value("test", "");
  event.at_once = json.value("at_once", false);
}

void to_json(nlohmann::json& json, const TestEnd& event) {
  json = {{"test", event.test}, {"status", event.status}, {"ms", event.ms}, {"message", event.message}};
  if (event.trusted_runner_failed) json["trusted_runner_failed"] = true;
}

void from_json(const nlohmann::json& json, TestEnd& event) {
  event.test = json.value("test", "");
  event.status = json.value("status", "");
  event.ms = json.value("ms", 0.0);
  event.message = json.value("message", "");
  event.trusted_runner_failed = json.value("trusted_runner_failed", false);
}

void to_json(nlohmann::json& json, const ContextLost& event) {
  json = {{"test", event.test}, {"error", event.error}};
}

void from_json(const nlohmann::json& json, ContextLost& event) {
  event.test = json.value("test", "");
  event.error = json.value("error", "");
}

void to_json(nlohmann::json& json, const Leaked& event) {
  json = {{"test", event.test},
          {"bytes", event.bytes},
          {"free_before", event.free_before},
          {"free_after", event.free_after},
          {"total", event.total}};
}

void from_json(const nlohmann::json& json, Leaked& event) {
  event.test = json.value("test", "");
  event.bytes = json.value("bytes", std::uint64_t{0});
  event.free_before = json.value("free_before", std::uint64_t{0});
  event.free_after = json.value("free_after", std::uint64_t{0});
  event.total = json.value("total", std::uint64_t{0});
}

namespace {
void require_finite_numbers_at(const nlohmann::json& json, const std::string& path, const std::string& event_name) {
  if (json.is_number_float() && !std::isfinite(json.get<double>())) {
    throw std::invalid_argument("harness event '" + event_name + "': field '" + path + "' is " +
                                std::to_string(json.get<double>()) + ", not a finite number");
  }
  if (json.is_object()) {
    for (const auto& [key, value] : json.items()) require_finite_numbers_at(value, path.empty() ? key : path + "." + key, event_name);
  } else if (json.is_array()) {
    for (std::size_t i = 0; i < json.size(); ++i) require_finite_numbers_at(json[i], path + "[" + std::to_string(i) + "]", event_name);
  }
}
}  // namespace

void require_finite_numbers(const nlohmann::json& json, const std::string& event_name) {
  require_finite_numbers_at(json, "", event_name);
}

void to_json(nlohmann::json& json, const Interval& value) {
  json = {{"median", value.median}, {"low", value.low}, {"high", value.high}};
}

void from_json(const nlohmann::json& json, Interval& value) {
  value.median = json.at("median").get<double>();
  value.low = json.at("low").get<double>();
  value.high = json.at("high").get<double>();
}

void to_json(nlohmann::json& json, const Summary& value) {
  json = {{"median", value.median}, {"low", value.low}, {"high", value.high}, {"samples", value.samples}};
}

void from_json(const nlohmann::json& json, Summary& value) {
  value.median = json.at("median").get<double>();
  value.low = json.at("low").get<double>();
  value.high = json.at("high").get<double>();
  value.samples = json.at("samples").get<std::size_t>();
}

void to_json(nlohmann::json& json, const Clocks& value) {
  json = {{"sm_mhz_measured", value.sm_mhz_measured},
          {"sm_mhz_max", value.sm_mhz_max},
          {"memory_mhz", value.memory_mhz},
          {"note", value.note}};
}

void to_json(nlohmann::json& json, const HostMemory& event) {
  json = {{"test", event.test}, {"peak_bytes", event.peak_bytes}, {"limit_bytes", event.limit_bytes}};
}

void from_json(const nlohmann::json& json, HostMemory& event) {
  event.test = json.value("test", "");
  event.peak_bytes = json.value("peak_bytes", std::uint64_t{0});
  event.limit_bytes = json.value("limit_bytes", std::uint64_t{0});
}

void to_json(nlohmann::json& json, const Measurement& event) {
  json = {{"test", event.test},
          {"device", event.device},
          {"threshold_kind", event.threshold_kind},
          {"figure", event.figure},
          {"student_ms", event.student_ms},
          {"solution_ms", event.solution_ms},
          {"ratio", event.ratio},
          {"target_met", event.target_met},
          {"points_settled", event.points_settled},
          {"rounds", event.rounds},
          {"remeasured", event.remeasured},
          {"kept_best", event.kept_best},
          {"gated", event.gated},
          {"ungated_because", event.ungated_because},
          {"seconds", event.seconds},
          {"bytes", event.bytes},
          {"flops", event.flops},
          {"achieved_gbs", event.achieved_gbs},
          {"achieved_gflops", event.achieved_gflops},
          {"peak_bandwidth_gbs", event.peak_bandwidth_gbs},
          {"peak_gflops", event.peak_gflops},
          {"fp32_peak_gflops", event.fp32_peak_gflops},
          {"clocks", event.clocks},
          {"implausible", event.implausible},
          {"implausible_reason", event.implausible_reason},
          {"machine_busy", event.machine_busy},
          {"bandwidth_limit_gbs", event.bandwidth_limit_gbs},
          {"flops_limit_gflops", event.flops_limit_gflops},
          {"verified_samples", event.verified_samples},
          {"timing_seed", event.timing_seed},
          {"case_seed", event.case_seed},
          {"compared_with", event.compared_with},
          {"stages", event.stages}};
}

void to_json(nlohmann::json& json, const StageTime& value) { json = {{"name", value.name}, {"ms", value.ms}}; }

void from_json(const nlohmann::json& json, StageTime& value) {
  value.name = json.at("name").get<std::string>();
  value.ms = json.at("ms").get<Summary>();
}

// Required: what the verdict and the report are drawn from. Optional: what labgrade only echoes.
void from_json(const nlohmann::json& json, Measurement& event) {
  event.test = json.value("test", "");
  event.device = json.at("device").get<std::string>();
  event.threshold_kind = json.value("threshold_kind", "");
  if (json.contains("figure")) event.figure = json.at("figure").get<Interval>();
  event.student_ms = json.at("student_ms").get<Summary>();
  event.solution_ms = json.at("solution_ms").get<Summary>();
  event.ratio = json.at("ratio").get<Summary>();
  event.target_met = json.at("target_met").get<bool>();
  event.points_settled = json.value("points_settled", false);
  event.rounds = json.at("rounds").get<int>();
  event.remeasured = json.at("remeasured").get<int>();
  event.kept_best = json.value("kept_best", false);
  event.gated = json.value("gated", false);
  event.ungated_because = json.value("ungated_because", "");
  event.seconds = json.at("seconds").get<double>();
  event.bytes = json.at("bytes").get<double>();
  event.flops = json.at("flops").get<double>();
  event.achieved_gbs = json.at("achieved_gbs").get<double>();
  event.achieved_gflops = json.at("achieved_gflops").get<double>();
  event.peak_bandwidth_gbs = json.at("peak_bandwidth_gbs").get<double>();
  event.peak_gflops = json.at("peak_gflops").get<double>();
  event.fp32_peak_gflops = json.value("fp32_peak_gflops", 0.0);
  const nlohmann::json& clocks = json.at("clocks");
  event.clocks.sm_mhz_measured = clocks.at("sm_mhz_measured").get<double>();
  event.clocks.sm_mhz_max = clocks.value("sm_mhz_max", 0.0);
  event.clocks.memory_mhz = clocks.value("memory_mhz", 0.0);
  event.clocks.note = clocks.at("note").get<std::string>();
  event.implausible = json.at("implausible").get<bool>();
  event.implausible_reason = json.value("implausible_reason", "");
  event.machine_busy = json.value("machine_busy", "");
  event.bandwidth_limit_gbs = json.value("bandwidth_limit_gbs", 0.0);
  event.flops_limit_gflops = json.value("flops_limit_gflops", 0.0);
  event.verified_samples = json.value("verified_samples", 0);
  event.timing_seed = json.value("timing_seed", "");
  event.case_seed = json.value("case_seed", "");
  event.compared_with = json.value("compared_with", "solution");
  if (json.contains("stages")) event.stages = json.at("stages").get<std::vector<StageTime>>();
}

void to_json(nlohmann::json& json, const Done&) { json = nlohmann::json::object(); }

std::string name_of(const nlohmann::json& event) { return event.value("event", ""); }

std::string ungated_note(const std::string& ungated_because) {
  if (ungated_because.empty()) return "";
  return "; each window timed from the request to the reply, since in gated windows " + ungated_because;
}

std::string remeasured_note(int remeasured, bool kept_best) {
  if (remeasured <= 0) return "";
  return ", measured " + std::to_string(remeasured) + " more times, the " + (kept_best ? "best" : "last") + " kept";
}

}  // namespace cudalabs::events
