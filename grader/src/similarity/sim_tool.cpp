#include "similarity/sim_tool.hpp"

#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "sandbox/child_process.hpp"

namespace labgrade::similarity {
namespace {

SimOutcome run_sim(const SimTool& tool, const std::filesystem::path& folder, std::vector<std::string> arguments,
                   std::string& output) {
  ProcessSpec spec;
  spec.argv = {tool.program};
  spec.argv.insert(spec.argv.end(), arguments.begin(), arguments.end());
  spec.working_dir = folder;
  spec.timeout_seconds = 600;
  spec.max_output_bytes = 256ull << 20;
  const ProcessResult process = run_process(spec);
  output = process.output;
  SimOutcome outcome;
  if (!process.started || (process.exited && process.exit_code == 127)) {
    outcome.missing = true;
    outcome.problem = fmt::format("{} could not be started: {}", tool.program, how_to_get_sim());
  } else if (!process.succeeded()) {
    outcome.problem = fmt::format("{} {}: {}", tool.program, process.describe_end(spec.timeout_seconds),
                                  process.output.substr(0, 300));
  } else if (process.output_bytes_dropped > 0) {
    outcome.problem = fmt::format("{}'s output was longer than {} MiB and was cut", tool.program,
                                  spec.max_output_bytes >> 20);
  }
  return outcome;
}

}  // namespace

std::string how_to_get_sim() {
  return "install the similarity tester (Debian/Ubuntu: `sudo apt-get install similarity-tester`, which provides "
         "sim_c++), then run the command again";
}

std::vector<Share> parse_shares(const std::string& output) {
  static const std::regex share(R"(^(\S+) consists for (\d+) % of (\S+) material\s*$)");
  std::vector<Share> shares;
  std::istringstream in(output);
  std::smatch match;
  for (std::string line; std::getline(in, line);) {
    if (std::regex_match(line, match, share)) shares.push_back({match[1], match[3], std::stoi(match[2])});
  }
  return shares;
}

std::vector<Run> parse_runs(const std::string& output) {
  static const std::regex run(R"(^(\S+): line (\d+)-(\d+)\s*\|(\S+): line (\d+)-(\d+)\s*\[(\d+)\]\s*$)");
  std::vector<Run> runs;
  std::istringstream in(output);
  std::smatch match;
  for (std::string line; std::getline(in, line);) {
    if (!std::regex_match(line, match, run)) continue;
    runs.push_back({match[1], std::stoi(match[2]), std::stoi(match[3]), match[4], std::stoi(match[5]),
                    std::stoi(match[6]), std::stoi(match[7])});
  }
  return runs;
}

SimOutcome SimTool::shares(const std::filesystem::path& folder, const std::vector<std::string>& files, int min_percent,
                           std::vector<Share>& out) const {
  // -p percentages, -e every pair on its own, -a in both directions, -s no file against itself,
  // -t the threshold.
  std::vector<std::string> arguments = {"-p", "-e", "-a", "-s", "-t" + std::to_string(min_percent)};
  arguments.insert(arguments.end(), files.begin(), files.end());
  std::string output;
  const SimOutcome outcome = run_sim(*this, folder, arguments, output);
  if (outcome.problem.empty()) out = parse_shares(output);
  return outcome;
}

SimOutcome SimTool::runs(const std::filesystem::path& folder, const std::string& a, const std::string& b,
                         std::vector<Run>& out) const {
  std::string output;
  const SimOutcome outcome = run_sim(*this, folder, {"-n", "-e", "-s", a, b}, output);  // -n: line ranges only
  if (outcome.problem.empty()) out = parse_runs(output);
  return outcome;
}

}  // namespace labgrade::similarity
