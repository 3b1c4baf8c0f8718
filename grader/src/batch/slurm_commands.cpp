#include "slurm_commands.hpp"

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace labgrade::slurm {

double poll_seconds() {
  if (const char* text = std::getenv("LABGRADE_SLURM_POLL_SECONDS")) {
    char* end = nullptr;
    const double value = std::strtod(text, &end);
    if (end != text && value > 0) return value;
  }
  return 30;
}

std::string self_executable() {
  std::error_code error;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", error);
  if (error) throw std::runtime_error("cannot find labgrade's own executable (/proc/self/exe): " + error.message());
  return self.string();
}

std::string single_quoted(const std::string& text) {
  std::string quoted = "'";
  for (const char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

ProcessResult run_command(const std::vector<std::string>& argv) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.timeout_seconds = 120;
  ProcessResult result = run_process(spec);
  if (!result.started || (result.exited && result.exit_code == 127 && result.output.find("cannot run") != std::string::npos)) {
    throw std::runtime_error(fmt::format("cannot run {}: is Slurm installed and on PATH? ({})", argv.front(),
                                         result.output));
  }
  return result;
}

std::size_t tasks_in_queue(const std::string& job_id) {
  const ProcessResult queue = run_command({"squeue", "-h", "-j", job_id, "-o", "%i"});
  if (!queue.succeeded()) return 0;  // squeue refuses a job id it no longer knows: the job is over
  std::size_t count = 0;
  std::istringstream lines(queue.output);
  for (std::string line; std::getline(lines, line);) {
    if (line.find_first_not_of(" \t\r") != std::string::npos) ++count;
  }
  return count;
}

std::string submitted_job_id(const ProcessResult& submitted) {
  std::string job_id = submitted.output.substr(0, submitted.output.find_first_of(";\n"));
  if (!submitted.succeeded() || job_id.empty() || job_id.find_first_not_of("0123456789") != std::string::npos) {
    throw std::runtime_error(fmt::format("sbatch failed ({}): {}", submitted.describe_end(120), submitted.output));
  }
  return job_id;
}

}  // namespace labgrade::slurm
