#include "slurm_batch.hpp"

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include "batch_outputs.hpp"
#include "sandbox/child_process.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "report/report_common.hpp"
#include "results_store.hpp"
#include "slurm_commands.hpp"

namespace labgrade::batch {
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using slurm::poll_seconds;
using slurm::self_executable;
using slurm::single_quoted;
using slurm::tasks_in_queue;

fs::path slurm_folder(const fs::path& out) { return out / "slurm"; }
fs::path state_file(const fs::path& out) { return slurm_folder(out) / "state.json"; }

json read_state(const fs::path& out) {
  std::ifstream in(state_file(out));
  if (!in) throw UsageError(fmt::format("{} is not the output folder of a Slurm batch (no {})", out.string(),
                                        state_file(out).string()));
  json state = json::parse(in, nullptr, false);
  if (state.is_discarded() || !state.is_object()) {
    throw std::runtime_error(fmt::format("{} is not valid JSON", state_file(out).string()));
  }
  return state;
}

void write_state(const fs::path& out, const json& state) {
  write_report_file(state_file(out), state.dump(2) + "\n", "Slurm state");
}

// One job array for `students`: chunk files, the task script, sbatch. Returns the attempt's record.
json submit_attempt(const json& state, const std::vector<std::string>& students, std::ostream& log) {
  const fs::path out = state.at("out").get<std::string>();
  const std::size_t chunk = state.at("chunk").get<std::size_t>();
  const std::size_t number = state.at("attempts").size() + 1;
  const fs::path dir = slurm_folder(out) / fmt::format("attempt-{}", number);
  fs::create_directories(dir);
  const std::size_t tasks = (students.size() + chunk - 1) / chunk;
  for (std::size_t task = 0; task < tasks; ++task) {
    std::string ids;
    for (std::size_t i = task * chunk; i < std::min(students.size(), (task + 1) * chunk); ++i) ids += students[i] + "\n";
    write_report_file(dir / fmt::format("chunk-{}.txt", task), ids, "Slurm chunk");
  }
  std::string command = "exec";
  for (const std::string& arg : {state.at("labgrade").get<std::string>(), std::string("--root"),
                                 state.at("root").get<std::string>(), std::string("--build-dir"),
                                 state.at("build_dir").get<std::string>(), std::string("batch"),
                                 state.at("lab").get<std::string>(), state.at("submissions").get<std::string>(),
                                 std::string("--out"), out.string(), std::string("--no-outputs"),
                                 std::string("--jobs"), std::to_string(state.at("jobs").get<unsigned>())}) {
    command += " " + single_quoted(arg);
  }
  const std::string task_file = single_quoted((dir / "task-").string()) + "\"${SLURM_ARRAY_TASK_ID}\"";
  const std::string chunk_file = single_quoted((dir / "chunk-").string()) + "\"${SLURM_ARRAY_TASK_ID}\"";
  if (state.value("sanitize", false)) command += " --sanitize";
  command += " --database " + task_file + ".sqlite --only " + chunk_file + ".txt";
  const fs::path script = dir / "task.sh";
  write_report_file(script,
                    "#!/bin/sh\n# Written by labgrade batch --slurm: each task of the job array grades one chunk of "
                    "submissions\n# into its own database shard, which labgrade merges when the job is done.\n" +
                        command + "\n",
                    "Slurm task script");
  fs::permissions(script, fs::perms::owner_exec, fs::perm_options::add);

  std::vector<std::string> sbatch{"sbatch", "--parsable", fmt::format("--array=0-{}", tasks - 1),
                                  "--job-name=labgrade-" + state.at("lab").get<std::string>(),
                                  "--output=" + (dir / "task-%a.log").string()};
  for (const auto& [key, flag] : {std::pair{"partition", "--partition="}, std::pair{"gres", "--gres="},
                                  std::pair{"time_limit", "--time="}}) {
    if (!state.at(key).get<std::string>().empty()) sbatch.push_back(flag + state.at(key).get<std::string>());
  }
  sbatch.push_back(script.string());
  const std::string job_id = slurm::submitted_job_id(slurm::run_command(sbatch));
  log << fmt::format("slurm: submitted job {} (attempt {}): {} submissions in {} tasks of up to {}\n", job_id,
                     number, students.size(), tasks, chunk);
  log.flush();
  return json{{"job_id", job_id}, {"dir", dir.string()}, {"tasks", tasks}, {"students", students}};
}

void wait_for(const std::string& job_id, std::ostream& log) {
  std::size_t shown = static_cast<std::size_t>(-1);
  for (std::size_t left; (left = tasks_in_queue(job_id)) > 0;) {
    if (left != shown) log << fmt::format("slurm: job {}: {} tasks queued or running\n", job_id, left) << std::flush;
    shown = left;
    std::this_thread::sleep_for(std::chrono::duration<double>(poll_seconds()));
  }
}

// The tasks that sacct says did not complete, for the log ("3 FAILED, 7 TIMEOUT").
void report_failed_tasks(const std::string& job_id, std::ostream& log) {
  const ProcessResult accounting = slurm::run_command({"sacct", "-n", "-P", "-j", job_id, "-o", "JobID,State"});
  if (!accounting.succeeded()) return;
  std::istringstream lines(accounting.output);
  for (std::string line; std::getline(lines, line);) {
    const auto bar = line.find('|');
    if (bar == std::string::npos) continue;
    const std::string id = line.substr(0, bar), state = line.substr(bar + 1);
    if (id.find('.') != std::string::npos || state.rfind("COMPLETED", 0) == 0) continue;  // steps; good tasks
    log << fmt::format("slurm: task {} ended {}\n", id, state);
  }
}

// Merges every shard of every attempt, in order, so a later attempt's result wins.
void merge_shards(const json& state, ResultsStore& store, std::ostream& log) {
  std::size_t merged = 0;
  for (const json& attempt : state.at("attempts")) {
    for (std::size_t task = 0; task < attempt.at("tasks").get<std::size_t>(); ++task) {
      const fs::path shard = fs::path(attempt.at("dir").get<std::string>()) / fmt::format("task-{}.sqlite", task);
      if (fs::exists(shard)) merged += store.merge_from(shard);
    }
  }
  log << fmt::format("slurm: merged {} results from the tasks' shards\n", merged);
}

std::vector<std::string> missing_students(const json& state, const ResultsStore& store) {
  std::vector<std::string> missing;
  const std::string config_hash = state.at("config_hash");
  for (const auto& [student, files_hash] : state.at("pending").items()) {
    if (!store.has_final_result(student, files_hash.get<std::string>(), config_hash)) missing.push_back(student);
  }
  return missing;
}

int finish(json state, bool wait, std::ostream& log) {
  const fs::path out = state.at("out").get<std::string>();
  const CoursePaths paths{state.at("root").get<std::string>(), state.at("build_dir").get<std::string>()};
  const auto lab = cudalabs::config::load_lab_config(paths.lab_config(state.at("lab")));
  ResultsStore store(out / "results.sqlite", lab.id);
  for (;;) {
    const json& last = state.at("attempts").back();
    if (!wait && tasks_in_queue(last.at("job_id")) > 0) {
      log << fmt::format("slurm: job {} is still running; run `labgrade batch --collect {}` later\n",
                         last.at("job_id").get<std::string>(), out.string());
      return 0;
    }
    wait_for(last.at("job_id"), log);
    report_failed_tasks(last.at("job_id"), log);
    merge_shards(state, store, log);
    const std::vector<std::string> missing = missing_students(state, store);
    if (missing.empty()) break;
    if (static_cast<int>(state.at("attempts").size()) >= state.at("max_attempts").get<int>()) {
      log << fmt::format("slurm: {} submissions still have no result after {} jobs; giving up on them:", missing.size(),
                         state.at("attempts").size());
      for (const auto& student : missing) log << " " << student;
      log << "\n";
      break;
    }
    log << fmt::format("slurm: {} submissions have no result yet; submitting them again\n", missing.size());
    state["attempts"].push_back(submit_attempt(state, missing, log));
    write_state(out, state);
    if (!wait) return 0;
  }
  const WrittenOutputs written = write_batch_outputs(lab, store, out, {state.value("leaderboard", false), {}});
  log << fmt::format("labgrade batch: {} students in {}; summary in {}\n", written.students,
                     written.gradebook.string(), written.summary.string());
  return 0;
}

}  // namespace

int slurm_batch(const CoursePaths& paths, const BatchRequest& request, const SlurmOptions& options, std::ostream& log) {
  if (options.chunk == 0) throw UsageError("--chunk must be at least 1");
  const auto lab = cudalabs::config::load_lab_config(paths.lab_config(request.lab));
  const std::string config_hash = batch_config_hash(paths, request);
  fs::create_directories(slurm_folder(request.out));
  if (fs::exists(state_file(request.out))) {
    const json previous = read_state(request.out);
    const json& last = previous.at("attempts").back();
    if (tasks_in_queue(last.at("job_id")) > 0) {
      throw UsageError(fmt::format("job {} of an earlier Slurm batch into {} is still running: wait for it, or "
                                   "`labgrade batch --collect {}`",
                                   last.at("job_id").get<std::string>(), request.out.string(), request.out.string()));
    }
    // Its shards may hold results that the main database has not seen yet.
    ResultsStore store(request.out / "results.sqlite", request.lab);
    merge_shards(previous, store, log);
  }
  std::size_t kept = 0;
  std::vector<PendingSubmission> pending;
  {
    ResultsStore store(request.out / "results.sqlite", request.lab);
    std::ostringstream notes;
    BatchProgress quiet(notes, false);
    pending = pending_submissions(request, config_hash, store, quiet, kept);
    log << notes.str();
  }
  log << fmt::format("labgrade batch: {} to grade on Slurm, {} unchanged since their last grade (kept)\n",
                     pending.size(), kept);
  json state{{"lab", request.lab},
             {"submissions", fs::absolute(request.submissions).string()},
             {"out", fs::absolute(request.out).string()},
             {"root", fs::absolute(paths.root).string()},
             {"build_dir", fs::absolute(paths.build_dir).string()},
             {"labgrade", self_executable()},
             {"jobs", request.jobs},
             {"partition", options.partition},
             {"gres", options.gres},
             {"time_limit", options.time_limit},
             {"chunk", options.chunk},
             {"max_attempts", std::max(1, options.max_attempts)},
             {"leaderboard", options.leaderboard},
             {"sanitize", request.sanitize},
             {"config_hash", config_hash},
             {"pending", json::object()},
             {"attempts", json::array()}};
  std::vector<std::string> students;
  for (const auto& item : pending) {
    state["pending"][item.submission.student_id] = item.files_hash;
    students.push_back(item.submission.student_id);
  }
  if (students.empty()) {
    ResultsStore store(request.out / "results.sqlite", request.lab);
    const WrittenOutputs written = write_batch_outputs(lab, store, request.out, {options.leaderboard, {}});
    log << fmt::format("labgrade batch: nothing to grade; {} students in {}\n", written.students,
                       written.gradebook.string());
    return 0;
  }
  // Old attempts' folders would be merged again by a later --collect: this run starts afresh.
  for (const auto& entry : fs::directory_iterator(slurm_folder(request.out))) {
    if (entry.path().filename().string().rfind("attempt-", 0) == 0) fs::remove_all(entry.path());
  }
  state["attempts"].push_back(submit_attempt(state, students, log));
  write_state(request.out, state);
  if (!options.wait) {
    log << fmt::format("slurm: not waiting; run `labgrade batch --collect {}` once the job is done\n",
                       request.out.string());
    return 0;
  }
  return finish(state, true, log);
}

int slurm_collect(const fs::path& out, bool wait, std::ostream& log) { return finish(read_state(out), wait, log); }

}  // namespace labgrade::batch
