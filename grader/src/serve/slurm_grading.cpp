#include "serve/slurm_grading.hpp"

#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "batch/slurm_commands.hpp"
#include "model/exit_codes.hpp"
#include "report/report_common.hpp"
#include "serve/job_grading.hpp"

namespace labgrade::serve {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// Submitted once and, should that job end without an outcome (a node lost), once more.
constexpr int kMaxSubmissions = 2;

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

json read_json(const fs::path& file) {
  json value = json::parse(read_text(file), nullptr, false);
  if (value.is_discarded() || !value.is_object()) throw std::runtime_error(file.string() + " is not a JSON object");
  return value;
}

json job_json(const Job& job) {
  return {{"id", job.id},           {"student_id", job.student_id}, {"lab", job.lab},
          {"mode", job.mode},       {"archive", job.archive.string()}, {"received_at", job.received_at}};
}

Job job_from(const json& value) {
  Job job;
  job.id = value.at("id").get<std::int64_t>();
  job.student_id = value.at("student_id").get<std::string>();
  job.lab = value.at("lab").get<std::string>();
  job.mode = value.at("mode").get<std::string>();
  job.archive = value.at("archive").get<std::string>();
  job.received_at = value.at("received_at").get<std::int64_t>();
  return job;
}

json outcome_json(const JobOutcome& outcome) {
  return {{"status", outcome.status},
          {"detail", outcome.detail},
          {"points_earned", outcome.points_earned ? json(*outcome.points_earned) : json(nullptr)},
          {"points_possible", outcome.points_possible},
          {"exit_code", outcome.exit_code},
          {"grade_seconds", outcome.grade_seconds},
          {"reports", outcome.reports}};
}

JobOutcome outcome_from(const json& value) {
  JobOutcome outcome;
  outcome.status = value.at("status").get<std::string>();
  outcome.detail = value.at("detail").get<std::string>();
  if (!value.at("points_earned").is_null()) outcome.points_earned = value.at("points_earned").get<double>();
  outcome.points_possible = value.at("points_possible").get<double>();
  outcome.exit_code = value.at("exit_code").get<int>();
  outcome.grade_seconds = value.at("grade_seconds").get<double>();
  outcome.reports = value.at("reports").get<std::map<std::string, std::string>>();
  return outcome;
}

// The last `count` lines of `text`.
std::string last_lines(const std::string& text, std::size_t count) {
  std::size_t start = text.size();
  for (std::size_t found = 0; start > 0 && found <= count;) {
    if (text[--start] == '\n') ++found;
  }
  return text.substr(start == 0 ? 0 : start + 1);
}

}  // namespace

SlurmGrading::SlurmGrading(const CoursePaths& paths, fs::path data, SlurmSettings settings)
    : paths_(paths), data_(std::move(data)), settings_(std::move(settings)) {}

fs::path SlurmGrading::spool(const Job& job) const { return data_ / "slurm" / std::to_string(job.id); }

std::string SlurmGrading::start(const Job& job) const {
  const fs::path dir = spool(job);
  if (fs::exists(dir / "outcome.json")) return "";
  const fs::path id_file = dir / "slurm_job";
  if (fs::exists(id_file)) {
    const std::string earlier = read_text(id_file);
    if (!finished(earlier)) return earlier;  // submitted before a restart, still on the cluster
  }
  const int submissions = fs::exists(dir / "submissions") ? std::stoi(read_text(dir / "submissions")) : 0;
  if (submissions >= kMaxSubmissions) return "";  // collect() says why there is no outcome
  fs::create_directories(dir);
  write_report_file(dir / "job.json", job_json(job).dump(2) + "\n", "Slurm job description");
  std::string command = "exec";
  for (const std::string& word :
       {slurm::self_executable(), std::string("--root"), paths_.root.string(), std::string("--build-dir"),
        paths_.build_dir.string(), std::string("serve"), std::string("--data"), data_.string(),
        std::string("--grade-spooled"), std::to_string(job.id)}) {
    command += " " + slurm::single_quoted(word);
  }
  const fs::path script = dir / "task.sh";
  write_report_file(script,
                    "#!/bin/sh\n# Written by labgrade serve --slurm: grades one queued submission on this node.\n" +
                        command + "\n",
                    "Slurm task script");
  fs::permissions(script, fs::perms::owner_exec, fs::perm_options::add);
  // A job array of one task: the same form `batch --slurm` submits.
  std::vector<std::string> sbatch{"sbatch", "--parsable", "--array=0-0",
                                  fmt::format("--job-name=labgrade-serve-{}", job.id),
                                  "--output=" + (dir / "task.log").string()};
  if (!settings_.partition.empty()) sbatch.push_back("--partition=" + settings_.partition);
  if (!settings_.gres.empty()) sbatch.push_back("--gres=" + settings_.gres);
  if (!settings_.time_limit.empty()) sbatch.push_back("--time=" + settings_.time_limit);
  sbatch.push_back(script.string());
  const std::string slurm_job = slurm::submitted_job_id(slurm::run_command(sbatch));
  write_report_file(id_file, slurm_job, "Slurm job id");
  write_report_file(dir / "submissions", std::to_string(submissions + 1), "Slurm submission count");
  return slurm_job;
}

bool SlurmGrading::finished(const std::string& slurm_job) { return slurm::tasks_in_queue(slurm_job) == 0; }

JobOutcome SlurmGrading::collect(const Job& job) const {
  const fs::path dir = spool(job);
  if (fs::exists(dir / "outcome.json")) {
    try {
      return outcome_from(read_json(dir / "outcome.json"));
    } catch (const std::exception& error) {
      return error_outcome(fmt::format("labgrade could not read the Slurm job's outcome: {}", error.what()),
                           kInternalExitCode);
    }
  }
  const std::string log = fs::exists(dir / "task.log") ? last_lines(read_text(dir / "task.log"), 20) : "";
  return error_outcome(fmt::format("labgrade could not grade it: the Slurm job {} ended without a result{}",
                                   fs::exists(dir / "slurm_job") ? read_text(dir / "slurm_job") : "?",
                                   log.empty() ? " (no log)" : ". The end of its log:\n" + log),
                       kInternalExitCode);
}

int grade_spooled_job(const CoursePaths& paths, const fs::path& data, std::int64_t id) {
  const fs::path dir = data / "slurm" / std::to_string(id);
  if (!fs::exists(dir / "job.json")) {
    throw UsageError(fmt::format("{} holds no queued job {} (no {})", data.string(), id, (dir / "job.json").string()));
  }
  const Job job = job_from(read_json(dir / "job.json"));
  const JobOutcome outcome = grade_job(paths, job);
  // Written whole, then renamed: the service never reads half an outcome.
  write_report_file(dir / "outcome.json.partial", outcome_json(outcome).dump() + "\n", "Slurm job outcome");
  fs::rename(dir / "outcome.json.partial", dir / "outcome.json");
  std::cout << fmt::format("graded #{} ({} of {}): {}\n", job.id, job.lab, job.student_id, outcome.status);
  return 0;
}

}  // namespace labgrade::serve
