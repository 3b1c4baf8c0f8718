#pragma once
// Nsight Compute's command line for the profile pass: where ncu is, and the words that run a
// program under it collecting the lab's metrics into a CSV log.
#include <filesystem>
#include <string>
#include <vector>

namespace labgrade {

// CUDALABS_NCU when set (an instructor's own install; it must name an executable, or the reason
// says it does not), else ncu next to the recipe's nvcc (bin/ncu, or the toolkit's
// nsight-compute folder), else on PATH. Empty with `why_not` filled when there is none.
std::filesystem::path find_ncu(const std::string& nvcc, std::string& why_not);

// ncu's words before the program: CSV of the raw page in base units, kernel names as symbols,
// `metrics`, every tool message and the table into `log_file` (which may hold the judge's
// "{test}" placeholder). `whole_program`: the program is the self-check's harness, whose timed
// call sits between cudaProfilerStart/Stop, so only that range is profiled; otherwise the
// program is a runner, and all its kernels are the side's.
std::vector<std::string> ncu_launcher(const std::filesystem::path& ncu, const std::vector<std::string>& metrics,
                                      const std::filesystem::path& log_file, bool whole_program);

}  // namespace labgrade
