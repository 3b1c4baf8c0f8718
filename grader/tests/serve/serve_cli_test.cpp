// `labgrade serve` on localhost, driven with `labgrade tokens` and `labgrade submit --server` end
// to end: a compile-error submission graded (no GPU needed: a build failure is graded without
// running tests), a service killed mid-queue that loses and regrades nothing when started again,
// the lab's service: and late: sections, the gradebook, the Gradescope bridge, the commands' help
// and a second service on the same data refused.
#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>

#include "batch/sqlite_database.hpp"
#include "serve_test_fixture.hpp"

namespace {

using namespace serve_test;

TEST_F(ServeCli, GradesACompileErrorSubmissionEndToEnd) {
  const auto service = serve();
  const ProcessResult run = submit(service->url(), alice_, kFixtures / "syntax_error",
                                   {"--json", (root_ / "alice.json").string(), "--html", (root_ / "alice.html").string()});
  EXPECT_EQ(run.exit_code, 0) << run.output;  // a grade of code that does not compile: 0 points, exit 0
  EXPECT_NE(run.output.find("Score: 0 / 100"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("expected a \";\""), std::string::npos) << "the compiler's message\n" << run.output;
  EXPECT_NE(run.output.find("HTML report in"), std::string::npos) << run.output;
  const json report = json::parse(read_file(root_ / "alice.json"));
  EXPECT_EQ(report["status"], "graded");
  EXPECT_EQ(report["points_earned"], 0);
  EXPECT_EQ(report["points_possible"], 100);
  EXPECT_NE(read_file(root_ / "alice.html").find("<html"), std::string::npos);

  // The same with --check: a self-check of code that does not compile is build_failed (exit 6).
  const ProcessResult check = submit(service->url(), alice_, kFixtures / "syntax_error", {"--check"});
  EXPECT_EQ(check.exit_code, 6) << check.output;
}


TEST_F(ServeCli, ARestartMidQueueLosesAndRegradesNothing) {
  const std::string archive = packed(kFixtures / "syntax_error");
  constexpr int kSubmissions = 6;
  std::vector<std::int64_t> ids;
  std::string first_report;
  {
    auto service = serve();
    // One graded before the kill: it must keep its grade, never be graded again.
    ASSERT_EQ(submit(service->url(), alice_, kFixtures / "syntax_error").exit_code, 0);
    httplib::Client client(service->url());
    for (int i = 0; i < kSubmissions; ++i) {
      const auto queued = client.Post("/api/v1/labs/01_vector_add/submissions?mode=grade", bearer(i % 2 ? bob_ : alice_),
                                      archive, "application/gzip");
      ASSERT_TRUE(queued);
      ASSERT_EQ(queued->status, 202) << queued->body;
      ids.push_back(json::parse(queued->body)["id"]);
    }
    const auto last = client.Get("/api/v1/submissions/" + std::to_string(ids.back()), bearer(bob_));
    ASSERT_TRUE(last);
    ASSERT_EQ(json::parse(last->body)["state"], "queued") << "the queue emptied before the kill: " << last->body;
    // Killed at once, as a power cut would: nothing gets to finish.
    const int status = service->stop(SIGKILL);
    ASSERT_TRUE(WIFSIGNALED(status));
  }
  std::map<std::int64_t, std::int64_t> finished_before;
  {
    labgrade::batch::SqliteDatabase database(data() / "service.sqlite");
    labgrade::batch::SqliteStatement rows(database, "SELECT id, finished_at FROM jobs WHERE state = 'done'");
    while (rows.step()) finished_before[rows.integer(0)] = rows.integer(1);
  }
  ASSERT_EQ(finished_before.count(1), 1u) << "the submission graded before the kill is not done";
  auto service = serve();
  httplib::Client client(service->url());
  for (std::size_t i = 0; i < ids.size(); ++i) {
    const std::string& token = i % 2 ? bob_ : alice_;
    json state;
    for (int poll = 0; poll < 600; ++poll) {
      const auto got = client.Get("/api/v1/submissions/" + std::to_string(ids[i]), bearer(token));
      ASSERT_TRUE(got);
      ASSERT_EQ(got->status, 200) << got->body;
      state = json::parse(got->body);
      if (state["state"] == "done") break;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    EXPECT_EQ(state["state"], "done") << state.dump();
    EXPECT_EQ(state["exit_code"], 0) << state.dump();
    EXPECT_EQ(state["points_earned"], 0) << state.dump();
  }
  labgrade::batch::SqliteDatabase database(data() / "service.sqlite");
  labgrade::batch::SqliteStatement rows(database, "SELECT id, attempts, finished_at FROM jobs ORDER BY id");
  int count = 0;
  while (rows.step()) {
    ++count;
    const std::int64_t id = rows.integer(0);
    if (finished_before.count(id)) {
      EXPECT_EQ(rows.integer(1), 1) << "#" << id << " was done before the kill and was graded again";
      EXPECT_EQ(rows.integer(2), finished_before[id]) << "#" << id;
    } else {
      EXPECT_LE(rows.integer(1), 2) << "#" << id;  // at most the run the kill cut short, then one
    }
  }
  EXPECT_EQ(count, kSubmissions + 1) << "a submission was lost or duplicated";
}



// --slurm on the tests' fake cluster (grader/tests/batch/fake_slurm: sbatch runs the job here,
// in a session of its own): the submission is graded by a job running `labgrade serve
// --grade-spooled`, with the same report as a local grade; a service killed while its job runs
// collects that job's outcome when started again instead of submitting it twice.
class SlurmEnvironment {
 public:
  explicit SlurmEnvironment(const fs::path& state) {
    fs::create_directories(state);
    const char* path = std::getenv("PATH");
    saved_path_ = path ? path : "/usr/bin:/bin";
    ::setenv("PATH", (std::string(LABGRADE_FAKE_SLURM) + ":" + saved_path_).c_str(), 1);
    ::setenv("FAKE_SLURM_STATE", state.c_str(), 1);
    ::setenv("LABGRADE_SLURM_POLL_SECONDS", "0.2", 1);
  }
  ~SlurmEnvironment() {
    ::setenv("PATH", saved_path_.c_str(), 1);
    ::unsetenv("FAKE_SLURM_STATE");
    ::unsetenv("LABGRADE_SLURM_POLL_SECONDS");
  }
  SlurmEnvironment(const SlurmEnvironment&) = delete;
  SlurmEnvironment& operator=(const SlurmEnvironment&) = delete;

 private:
  std::string saved_path_;
};

std::vector<std::string> lines_of(const fs::path& file) {
  std::vector<std::string> lines;
  std::istringstream text(read_file(file));
  for (std::string line; std::getline(text, line);) lines.push_back(line);
  return lines;
}

TEST_F(ServeCli, GradesThroughSlurmAndCollectsAJobThatOutlivedTheService) {
  const fs::path state = root_ / "slurm-state";
  const SlurmEnvironment cluster(state);
  {
    const auto service = serve({"--slurm", "--partition", "gpu", "--gres", "gpu:1", "--slurm-jobs", "2"});
    const ProcessResult run = submit(service->url(), alice_, kFixtures / "syntax_error", {"--json", (root_ / "alice.json").string()});
    EXPECT_EQ(run.exit_code, 0) << run.output << read_file(log());
    EXPECT_NE(run.output.find("Score: 0 / 100"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("expected a \";\""), std::string::npos) << "the compiler's message\n" << run.output;
    EXPECT_EQ(json::parse(read_file(root_ / "alice.json"))["status"], "graded");
    const auto calls = lines_of(state / "sbatch.log");
    ASSERT_EQ(calls.size(), 1u);
    EXPECT_NE(calls[0].find("--partition=gpu"), std::string::npos) << calls[0];
    EXPECT_NE(calls[0].find("--gres=gpu:1"), std::string::npos) << calls[0];
    EXPECT_TRUE(fs::exists(data() / "slurm" / "1" / "outcome.json"));
    EXPECT_NE(read_file(log()).find("Slurm job"), std::string::npos) << read_file(log());
  }
  std::int64_t id = 0;
  {
    auto service = serve({"--slurm"});
    httplib::Client client(service->url());
    const auto queued = client.Post("/api/v1/labs/01_vector_add/submissions?mode=grade", bearer(bob_),
                                    packed(kFixtures / "syntax_error"), "application/gzip");
    ASSERT_TRUE(queued);
    ASSERT_EQ(queued->status, 202) << queued->body;
    id = json::parse(queued->body)["id"];
    for (int i = 0; i < 300 && lines_of(state / "sbatch.log").size() < 2; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    ASSERT_EQ(lines_of(state / "sbatch.log").size(), 2u) << read_file(log());
    service->stop(SIGKILL);  // its job goes on in its own session, as on a cluster
  }
  const fs::path outcome = data() / "slurm" / std::to_string(id) / "outcome.json";
  for (int i = 0; i < 1500 && !fs::exists(outcome); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  ASSERT_TRUE(fs::exists(outcome)) << "the job never finished";
  auto service = serve({"--slurm"});
  httplib::Client client(service->url());
  json got;
  for (int poll = 0; poll < 300; ++poll) {
    const auto answer = client.Get("/api/v1/submissions/" + std::to_string(id), bearer(bob_));
    ASSERT_TRUE(answer);
    got = json::parse(answer->body);
    if (got["state"] == "done") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_EQ(got["state"], "done") << got.dump() << read_file(log());
  EXPECT_EQ(got["exit_code"], 0) << got.dump();
  EXPECT_EQ(lines_of(state / "sbatch.log").size(), 2u) << "the finished job was submitted again";
}

TEST_F(ServeCli, SlurmOptionsWithoutSlurmAreRefused) {
  const ProcessResult run = labgrade({"serve", "--data", data().string(), "--partition", "gpu"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("go with --slurm"), std::string::npos) << run.output;
}

// The Gradescope bridge (gradescope/run_autograder) on a fake /autograder: it forwards the
// submission with a bridge token for the student Gradescope names, and writes a valid results.json.
TEST_F(ServeCli, GradescopeBridgeWritesAValidResultsJson) {
  ProcessSpec python;
  python.argv = {"python3", "--version"};
  if (labgrade::run_process(python).exit_code != 0) GTEST_SKIP() << "no python3";
  const fs::path token = root_ / "bridge_token";
  const ProcessResult issued =
      labgrade({"tokens", "bridge", "--data", data().string(), "--out", token.string()});
  ASSERT_EQ(issued.exit_code, 0) << issued.output;
  const auto service = serve();
  const fs::path autograder = root_ / "autograder";
  fs::create_directories(autograder / "source");
  fs::create_directories(autograder / "submission" / "my_folder");
  fs::copy_file(kFixtures / "syntax_error" / "vector_add.cu", autograder / "submission" / "my_folder" / "vector_add.cu");
  std::ofstream(autograder / "submission" / "notes.txt") << "not a student file: not sent\n";
  std::ofstream(autograder / "submission_metadata.json")
      << R"({"created_at": "2026-10-01T12:00:00.0-07:00", "users": [{"email": "s@x.edu", "name": "S", "sid": "s123"}]})";
  std::ofstream(autograder / "source" / "bridge.conf") << "SERVER=" << service->url() << "\nLAB=01_vector_add\n";
  fs::copy_file(token, autograder / "source" / "bridge_token");

  ProcessSpec bridge;
  bridge.argv = {"python3", std::string(LABGRADE_GRADESCOPE_BRIDGE) + "/run_autograder"};
  bridge.extra_env = {{"AUTOGRADER_ROOT", autograder.string()}};
  bridge.timeout_seconds = 300;
  const ProcessResult run = labgrade::run_process(bridge);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("01_vector_add of s123 queued as #1"), std::string::npos) << run.output;
  const json results = json::parse(read_file(autograder / "results" / "results.json"));
  EXPECT_EQ(results["score"], 0.0);
  EXPECT_EQ(results["max_score"], 100.0);
  ASSERT_TRUE(results["tests"].is_array());
  EXPECT_EQ(results["tests"].size(), 20u);
  for (const json& test : results["tests"]) {
    EXPECT_TRUE(test.contains("name") && test.contains("score") && test.contains("max_score")) << test.dump();
  }
  labgrade::batch::SqliteDatabase database(data() / "service.sqlite");
  labgrade::batch::SqliteStatement row(database, "SELECT student_id FROM jobs WHERE id = 1");
  ASSERT_TRUE(row.step());
  EXPECT_EQ(row.text(0), "@gradescope/s123");

  // A student's token cannot submit for someone else: the header is ignored.
  httplib::Client client(service->url());
  httplib::Headers as_bob = bearer(alice_);
  as_bob.emplace("X-Labgrade-Student", "bob");
  const auto lab = client.Get("/api/v1/labs/01_vector_add", as_bob);
  ASSERT_TRUE(lab);
  EXPECT_EQ(json::parse(lab->body)["student_id"], "alice");

  // No service: no results.json (Gradescope shows a failed run, not a score of 0), and why.
  fs::remove(autograder / "results" / "results.json");
  std::ofstream(autograder / "source" / "bridge.conf", std::ios::trunc) << "SERVER=http://127.0.0.1:1\nLAB=01_vector_add\n";
  const ProcessResult offline = labgrade::run_process(bridge);
  EXPECT_EQ(offline.exit_code, 1) << offline.output;
  EXPECT_NE(offline.output.find("cannot reach http://127.0.0.1:1"), std::string::npos) << offline.output;
  EXPECT_FALSE(fs::exists(autograder / "results" / "results.json"));
}



// The lab's YAML decides its modes: here a course tree whose lab 01 allows one graded run per
// student and no self-checks (service: in config/labs/01_vector_add.yaml), with a deadline long
// past (late:).
TEST_F(ServeCli, TheLabYamlLimitsGradedRunsAndClosesSelfChecks) {
  const fs::path course = root_ / "course";
  fs::create_directories(course / "config" / "labs");
  fs::create_directories(course / "labs");
  fs::copy_file(fs::path(CUDALABS_SOURCE_DIR) / "config" / "course.yaml", course / "config" / "course.yaml");
  fs::copy(fs::path(CUDALABS_SOURCE_DIR) / "labs" / "01_vector_add", course / "labs" / "01_vector_add",
           fs::copy_options::recursive);
  fs::copy_file(fs::path(CUDALABS_SOURCE_DIR) / "config" / "labs" / "01_vector_add.yaml",
                course / "config" / "labs" / "01_vector_add.yaml");
  std::ofstream(course / "config" / "labs" / "01_vector_add.yaml", std::ios::app)
      << "\nservice: {self_checks: false, graded_runs_max: 1}\n"
      << "late: {due: \"2020-01-01T00:00:00Z\", penalty_percent_per_day: 10}\n";
  const auto service = serve({}, {"--root", course.string()});

  const ProcessResult first =
      submit(service->url(), alice_, kFixtures / "syntax_error", {"--json", (root_ / "first.json").string()});
  EXPECT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("graded runs of 01_vector_add left after this one: 0"), std::string::npos) << first.output;
  // The late policy, from the time the service received it.
  const json report = json::parse(read_file(root_ / "first.json"));
  ASSERT_TRUE(report.contains("late")) << report.dump(2);
  EXPECT_GT(report["late"]["days_late"].get<int>(), 365);
  EXPECT_EQ(report["late"]["due"], "2020-01-01T00:00:00Z");
  const ProcessResult second = submit(service->url(), alice_, kFixtures / "syntax_error");
  EXPECT_EQ(second.exit_code, 2) << second.output;
  EXPECT_NE(second.output.find("(HTTP 403): you have used your 1 graded runs of 01_vector_add"), std::string::npos)
      << second.output;
  const ProcessResult check = submit(service->url(), alice_, kFixtures / "syntax_error", {"--check"});
  EXPECT_EQ(check.exit_code, 2) << check.output;
  EXPECT_NE(check.output.find("01_vector_add takes no self-checks on this server"), std::string::npos) << check.output;
  // bob has his own graded run.
  EXPECT_EQ(submit(service->url(), bob_, kFixtures / "syntax_error").exit_code, 0);

  // Eight uploads of one student at the same moment: the limit of one graded run still holds.
  const std::string archive = packed(kFixtures / "syntax_error");
  std::vector<int> statuses(8, 0);
  std::vector<std::thread> uploads;
  for (std::size_t i = 0; i < statuses.size(); ++i) {
    uploads.emplace_back([&, i] {
      httplib::Client client(service->url());
      const auto posted = client.Post("/api/v1/labs/01_vector_add/submissions?mode=grade", bearer(carol_), archive,
                                      "application/gzip");
      statuses[i] = posted ? posted->status : -1;
    });
  }
  for (std::thread& upload : uploads) upload.join();
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 202), 1) << fmt::format("{}", fmt::join(statuses, " "));
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 403), 7) << fmt::format("{}", fmt::join(statuses, " "));

  // The instructor's gradebook of the lab, while the service runs.
  const ProcessResult book = labgrade({"serve", "--data", data().string(), "--gradebook", kLab});
  EXPECT_EQ(book.exit_code, 0) << book.output;
  EXPECT_NE(book.output.find("student_id,last_graded_points,points_possible,last_graded_status,last_graded_at,"
                             "best_graded_points,graded_runs,self_checks,pending\r\n"),
            std::string::npos)
      << book.output;
  EXPECT_NE(book.output.find("\nalice,0,100,compile_error,20"), std::string::npos) << book.output;
  EXPECT_NE(book.output.find(",0,1,0,0\r\nbob,0,100,compile_error,"), std::string::npos) << book.output;
}



TEST_F(ServeCli, CommandsHaveHelpWithExamples) {
  for (const std::vector<std::string>& command : std::vector<std::vector<std::string>>{
           {"serve"}, {"tokens"}, {"tokens", "issue"}, {"tokens", "bridge"}, {"submit"}}) {
    std::vector<std::string> args = command;
    args.emplace_back("--help");
    const ProcessResult run = labgrade(args);
    EXPECT_EQ(run.exit_code, 0) << run.output;
    for (const char* noise : {"TEXT", "(existing)", "PATH(", "DIR(", ":{"}) {
      EXPECT_EQ(run.output.find(noise), std::string::npos) << noise << " in:\n" << run.output;
    }
    if (command.size() == 1) {
      EXPECT_NE(run.output.find("Examples:\n  labgrade " + command[0]), std::string::npos) << run.output;
    }
  }
  const ProcessResult top = labgrade({"--help"});
  EXPECT_NE(top.output.find("serve --data /srv/labgrade"), std::string::npos) << top.output;
  const ProcessResult stray = labgrade({"submit", "01_vector_add", "--check"});
  EXPECT_EQ(stray.exit_code, 2) << stray.output;
  EXPECT_NE(stray.output.find("go with --server URL"), std::string::npos) << stray.output;
}



// A second service on the same data folder would queue the first one's running grade again.
TEST_F(ServeCli, ASecondServiceOnTheSameDataIsRefused) {
  const auto service = serve();
  const ProcessResult second = labgrade({"serve", "--data", data().string(), "--port", "0"});
  EXPECT_EQ(second.exit_code, 2) << second.output;
  EXPECT_NE(second.output.find("another labgrade serve uses"), std::string::npos) << second.output;
}


}  // namespace
