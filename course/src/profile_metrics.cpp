// The derived profile metrics and the default list (cudalabs/course/profile_spec.hpp). Metric
// names as Nsight Compute 2023-2025 spells them on sm_70 and later (the Memory Workload Analysis,
// Occupancy and Warp State sections use the same ones).
#include <algorithm>

#include "cudalabs/course/profile_spec.hpp"

namespace cudalabs::config {

const std::vector<DerivedMetric>& derived_metrics() {
  static const std::vector<DerivedMetric> metrics{
      {"global_load_sectors_per_request",
       {"l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"},
       {"l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum"},
       "sectors/request",
       "32-byte sectors per global load request (4 when a warp reads 32 consecutive floats)"},
      {"global_store_sectors_per_request",
       {"l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"},
       {"l1tex__t_requests_pipe_lsu_mem_global_op_st.sum"},
       "sectors/request",
       "32-byte sectors per global store request (4 when a warp writes 32 consecutive floats)"},
      // The share of each 32-byte sector a warp's accesses used: 100% when coalesced, whatever the
      // width of the loads (sectors per request is 4 for floats but 16 for float4).
      {"global_load_efficiency",
       {"smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct"},
       {},
       "%",
       "bytes used of each 32-byte sector read from global memory"},
      {"global_store_efficiency",
       {"smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct"},
       {},
       "%",
       "bytes used of each 32-byte sector written to global memory"},
      {"shared_bank_conflicts",
       {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"},
       {},
       "conflicts",
       "shared-memory bank conflicts (loads and stores)"},
      // Per instruction, so it does not grow with the problem size: 31 for a warp reading a
      // column of an unpadded 32x32 float tile, 0 for a padded one.
      {"shared_load_bank_conflicts_per_request",
       {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"},
       {"smsp__inst_executed_op_shared_ld.sum"},
       "conflicts/request",
       "bank conflicts per shared-memory load instruction"},
      {"achieved_occupancy",
       {"sm__warps_active.avg.pct_of_peak_sustained_active"},
       {},
       "%",
       "achieved occupancy (active warps, % of the SM's maximum)"},
      {"dram_throughput",
       {"dram__throughput.avg.pct_of_peak_sustained_elapsed"},
       {},
       "%",
       "DRAM throughput (% of peak)"},
      {"stall_long_scoreboard",
       {"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio"},
       {},
       "warps/issue",
       "warps stalled waiting for global memory, per issued instruction"},
      {"stall_barrier",
       {"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio"},
       {},
       "warps/issue",
       "warps stalled at __syncthreads(), per issued instruction"},
      {"stall_short_scoreboard",
       {"smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio"},
       {},
       "warps/issue",
       "warps stalled waiting for shared memory, per issued instruction"},
  };
  return metrics;
}

const DerivedMetric* find_derived_metric(std::string_view name) {
  const auto& metrics = derived_metrics();
  const auto found = std::find_if(metrics.begin(), metrics.end(), [&](const DerivedMetric& m) { return m.name == name; });
  return found == metrics.end() ? nullptr : &*found;
}

bool is_ncu_metric_name(std::string_view name) {
  const std::size_t unit_end = name.find("__");
  if (unit_end == std::string_view::npos || unit_end == 0 || unit_end + 2 >= name.size()) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
  });
}

const std::vector<ProfileMetricSpec>& default_profile_metrics() {
  static const std::vector<ProfileMetricSpec> metrics{
      {"dram_throughput", "", "", {}, {}, {}, {}, 0},
      {"achieved_occupancy", "", "", {}, {}, {}, {}, 0},
      {"global_load_sectors_per_request", "", "", {}, {}, {}, {}, 0},
      {"global_store_sectors_per_request", "", "", {}, {}, {}, {}, 0},
  };
  return metrics;
}

const std::vector<ProfileMetricSpec>& metrics_of(const ProfileSpec& spec) {
  return spec.metrics.empty() ? default_profile_metrics() : spec.metrics;
}

std::vector<std::string> ncu_metrics_for(const ProfileSpec& spec) {
  std::vector<std::string> needed{std::string(kLaunchDurationMetric)};
  const auto add = [&](std::string_view metric) {
    if (std::find(needed.begin(), needed.end(), metric) == needed.end()) needed.emplace_back(metric);
  };
  for (const ProfileMetricSpec& metric : metrics_of(spec)) {
    if (const DerivedMetric* derived = find_derived_metric(metric.name)) {
      for (std::string_view part : derived->summed) add(part);
      for (std::string_view part : derived->divided_by) add(part);
    } else {
      add(metric.name);
    }
  }
  return needed;
}

}  // namespace cudalabs::config
