// `labgrade batch` end to end on a class of fixture submissions: broken ones (won't unpack,
// won't compile, a missing file, a forbidden header) are graded everywhere; the lab's solution
// is graded on a GPU and recorded as "no CUDA device" (not a score) without one. Resuming,
// skipping unchanged submissions, --regrade and the Slurm flow (with fake sbatch, squeue and
// sacct that run the tasks here) are checked on the real program.
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/child_process.hpp"
#include "cudalabs/gpu_test.hpp"

namespace {

namespace fs = std::filesystem;
using labgrade::ProcessResult;
using labgrade::ProcessSpec;

const fs::path kFixtures = fs::path(LABGRADE_TEST_SUBMISSIONS) / "01_vector_add";
const fs::path kSolution = fs::path(CUDALABS_SOURCE_DIR) / "solutions" / "01_vector_add";
const fs::path kFakeSlurm = LABGRADE_FAKE_SLURM_DIR;

bool has_gpu() { return cudalabs::cuda_device_listed(); }

class BatchCli : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("batch_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(class_dir());
  }
  fs::path class_dir() const { return root_ / "class"; }
  fs::path out() const { return root_ / "out"; }

  // Submissions that need no GPU for their grade, one per way of failing.
  void add_broken_submissions() {
    fs::copy(kFixtures / "syntax_error", class_dir() / "bob");
    std::ofstream(class_dir() / "carol.zip") << "this is not a zip archive";
    ProcessSpec tar;
    tar.argv = {"tar", "czf", (class_dir() / "dave.tar.gz").string(), "-C", (kFixtures / "syntax_error").string(), "."};
    ASSERT_TRUE(labgrade::run_process(tar).succeeded());
    fs::copy(kFixtures / "misnamed_file", class_dir() / "erin");
    fs::copy(kFixtures / "forbidden_header", class_dir() / "frank");
  }
  void add_solution(const std::string& student) { fs::copy(kSolution, class_dir() / student); }

  ProcessResult batch(std::vector<std::string> args, std::vector<std::pair<std::string, std::string>> env = {},
                      std::vector<std::string> global = {}) {
    ProcessSpec spec;
    spec.argv = {LABGRADE_EXECUTABLE};
    spec.argv.insert(spec.argv.end(), global.begin(), global.end());
    for (const std::string& arg : {std::string("batch"), std::string("01_vector_add"), class_dir().string(),
                                   std::string("--out"), out().string()}) {
      spec.argv.push_back(arg);
    }
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.timeout_seconds = 900;
    spec.extra_env = {{"NO_COLOR", "1"}};
    spec.extra_env.insert(spec.extra_env.end(), env.begin(), env.end());
    return labgrade::run_process(spec);
  }

  // student id -> the gradebook's cells by column name.
  std::map<std::string, std::map<std::string, std::string>> gradebook() const {
    std::ifstream in(out() / "gradebook.csv");
    std::vector<std::vector<std::string>> rows;
    for (std::string line; std::getline(in, line);) {
      if (!line.empty() && line.back() == '\r') line.pop_back();
      std::vector<std::string> cells;
      std::string cell;
      bool quoted = false;
      for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
          cell += '"';
          ++i;
        } else if (c == '"') {
          quoted = !quoted;
        } else if (c == ',' && !quoted) {
          cells.push_back(cell);
          cell.clear();
        } else {
          cell += c;
        }
      }
      cells.push_back(cell);
      rows.push_back(cells);
    }
    std::map<std::string, std::map<std::string, std::string>> book;
    for (std::size_t r = 1; r < rows.size(); ++r) {
      for (std::size_t c = 0; c < rows[0].size() && c < rows[r].size(); ++c) book[rows[r][0]][rows[0][c]] = rows[r][c];
    }
    return book;
  }

  // A student's report.json, parsed: not an object when it is missing or unreadable.
  nlohmann::json report_of(const std::string& student) const {
    std::ifstream in(out() / "reports" / student / "report.json");
    return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  }

  // The message a report gives one test ("" when the test is not listed).
  static std::string message_of(const nlohmann::json& report, const std::string& test) {
    for (const auto& entry : report["tests"]) {
      if (entry.value("name", "") == test) return entry.value("message", "");
    }
    return "";
  }

  void expect_broken_ones_graded(const std::map<std::string, std::map<std::string, std::string>>& book) {
    const std::map<std::string, std::string> expected{{"bob", "compile_error"},
                                                      {"carol", "rejected"},
                                                      {"dave", "compile_error"},
                                                      {"erin", "rejected"},
                                                      {"frank", "rule_violation"}};
    for (const auto& [student, status] : expected) {
      ASSERT_EQ(book.count(student), 1u) << student << " is not in the gradebook";
      EXPECT_EQ(book.at(student).at("status"), status) << student;
      EXPECT_EQ(book.at(student).at("total"), "0") << student;
      EXPECT_EQ(book.at(student).at("points_possible"), "100") << student;
      EXPECT_EQ(book.at(student).at("VectorAdd.LargePrime"), "0") << student;
    }
  }

  fs::path root_;
};

// "labgrade batch: 3 to grade, 2 unchanged ..." -> {3, 2}
std::pair<int, int> counts(const std::string& output) {
  const std::string marker = "labgrade batch: ";
  const auto at = output.find(marker);
  if (at == std::string::npos) return {-1, -1};
  std::istringstream in(output.substr(at + marker.size()));
  int to_grade = -1, kept = -1;
  std::string word;
  in >> to_grade >> word >> word >> kept;
  return {to_grade, kept};
}

TEST(BatchCliHelp, ListsItsOptions) {
  ProcessSpec spec;
  spec.argv = {LABGRADE_EXECUTABLE, "batch", "--help"};
  const ProcessResult help = labgrade::run_process(spec);
  EXPECT_TRUE(help.succeeded()) << help.output;
  for (const char* option : {"--out", "--jobs", "--regrade", "--slurm", "--partition", "--gres", "--chunk",
                             "--no-wait", "--collect", "--leaderboard", "--sanitize"}) {
    EXPECT_NE(help.output.find(option), std::string::npos) << option;
  }
}

TEST_F(BatchCli, GradesAClassWithoutStoppingAtBrokenSubmissions) {
  add_broken_submissions();
  add_solution("alice");
  const ProcessResult run = batch({"--jobs", "3"});
  const bool gpu = has_gpu();
  ASSERT_TRUE(run.exited) << run.output;
  EXPECT_EQ(run.exit_code, gpu ? 0 : 5) << run.output;
  EXPECT_EQ(counts(run.output), std::make_pair(6, 0)) << run.output;
  EXPECT_NE(run.output.find("[6/6]"), std::string::npos) << "one log line per submission when piped:\n" << run.output;

  const auto book = gradebook();
  EXPECT_EQ(book.size(), 6u);
  expect_broken_ones_graded(book);
  if (gpu) {
    EXPECT_EQ(book.at("alice").at("status"), "graded");
    EXPECT_EQ(book.at("alice").at("VectorAdd.LargePrime"), "6");
  } else {
    // Compiled, but without a GPU there is no grade: recorded as such, not as a zero.
    EXPECT_EQ(book.at("alice").at("status"), "no_cuda_device");
    EXPECT_EQ(book.at("alice").at("total"), "");
    EXPECT_EQ(book.at("alice").at("VectorAdd.LargePrime"), "");
  }
  for (const char* student : {"alice", "bob", "carol", "dave", "erin", "frank"}) {
    for (const char* file : {"report.txt", "report.json", "report.junit.xml", "report.html"}) {
      EXPECT_TRUE(fs::exists(out() / "reports" / student / file)) << student << "/" << file;
    }
    // Gradescope would read a results.json as the grade: none for a submission that was not graded.
    const bool graded = book.at(student).at("status") != "no_cuda_device";
    EXPECT_EQ(fs::exists(out() / "reports" / student / "results.json"), graded) << student;
  }
  std::ifstream summary(out() / "summary.html");
  const std::string html((std::istreambuf_iterator<char>(summary)), std::istreambuf_iterator<char>());
  EXPECT_NE(html.find("Most failed tests"), std::string::npos);
  EXPECT_NE(html.find("<div class=\"value\">2</div>compile errors"), std::string::npos) << html;
  EXPECT_NE(html.find("frank"), std::string::npos) << "the rule breaker is listed among those that need a look";
}

// A kernel that never returns for one size: its harness, quiet beside the other grades' tests, is
// ended in the first part, and the test it hung in runs again after every first part with its
// whole time-out (session/stages.cpp, rerun_deferred_tests): charged as the time-out it is, the
// tests after it graded, the solution beside it untouched. A call that only waits 7 s, mistaken
// for a hang the same way, passes its test when run again: it scores as it does alone.
TEST_F(BatchCli, AHangRunsAgainAfterTheFirstPartsAndCostsOnlyItsTest) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device: a hang needs a GPU to spin on";
  add_solution("alice");
  fs::copy(kFixtures / "never_returns", class_dir() / "hung");
  fs::copy(kFixtures / "stalls_then_answers", class_dir() / "stalled");
  const ProcessResult run = batch({});
  ASSERT_TRUE(run.exited) << run.output;
  EXPECT_EQ(run.exit_code, 0) << run.output;
  const auto book = gradebook();
  ASSERT_EQ(book.count("hung"), 1u) << run.output;
  EXPECT_EQ(book.at("alice").at("VectorAdd.LargePrime"), "6");
  EXPECT_EQ(book.at("alice").at("Saxpy.OneWarpMinusOne"), "4");
  EXPECT_EQ(book.at("hung").at("status"), "graded");
  EXPECT_EQ(book.at("hung").at("Saxpy.OneWarpMinusOne"), "0");  // n = 31: the hang
  for (const char* after : {"Saxpy.LargePrime", "Saxpy.SeveralSeeds", "Saxpy.SpecialAlphas"}) {
    EXPECT_NE(book.at("hung").at(after), "0") << after << " comes after the hang and passes";
  }
  EXPECT_EQ(book.at("stalled").at("status"), "graded");
  for (const char* test : {"Saxpy.OneWarpMinusOne", "Saxpy.LargePrime", "VectorAdd.LargePrime"}) {
    EXPECT_EQ(book.at("stalled").at(test), book.at("alice").at(test)) << test << ": the stall passes when run again";
  }
  const auto has_deferred_stage = [](const nlohmann::json& report) {
    for (const auto& stage : report["timing"]["stages"]) {
      if (stage.value("stage", "") == "deferred tests") return true;
    }
    return false;
  };
  const nlohmann::json stalled = report_of("stalled");
  ASSERT_TRUE(stalled.is_object());
  EXPECT_TRUE(has_deferred_stage(stalled)) << stalled["timing"].dump();
  const nlohmann::json report = report_of("hung");
  ASSERT_TRUE(report.is_object());
  EXPECT_TRUE(has_deferred_stage(report)) << report["timing"].dump();
  EXPECT_NE(message_of(report, "Saxpy.OneWarpMinusOne").find("timed out"), std::string::npos) << report["tests"].dump();
}

// Five grades go quiet in their first parts, so their deferred tests run beside each other with
// lab 01's 20-s time-out stretched to 25 s (counting_slots.hpp, deferred_timeout_stretch): four
// that wait 7 s and one that waits 22 s. The four pass, as alone. The fifth would pass too, on a
// time-out the others' quiet code widened: not believed, it runs again alone with the lab's
// time-out and times out, as alone (suite_runner.hpp, hold_to_the_labs_time_out).
TEST_F(BatchCli, AClassCannotStretchATimeOutForOneOfItsStudents) {
  if (!has_gpu()) GTEST_SKIP() << "no CUDA device: the tests must run to go quiet";
  const std::vector<std::string> quiet = {"quiet1", "quiet2", "quiet3", "quiet4"};
  for (const std::string& student : quiet) fs::copy(kFixtures / "stalls_then_answers", class_dir() / student);
  fs::copy(kFixtures / "stalls_past_the_time_out", class_dir() / "late");
  const ProcessResult run = batch({});
  ASSERT_TRUE(run.exited) << run.output;
  EXPECT_EQ(run.exit_code, 0) << run.output;
  const auto book = gradebook();
  ASSERT_EQ(book.count("late"), 1u) << run.output;
  for (const std::string& student : quiet) {
    EXPECT_EQ(book.at(student).at("status"), "graded") << student;
    EXPECT_EQ(book.at(student).at("Saxpy.OneWarpMinusOne"), "4") << student << ": 7 s passes";
  }
  EXPECT_EQ(book.at("late").at("status"), "graded");
  EXPECT_EQ(book.at("late").at("Saxpy.OneWarpMinusOne"), "0") << "22 s is past the lab's 20 s, beside others or not";
  EXPECT_EQ(book.at("late").at("Saxpy.LargePrime"), "6");
  const nlohmann::json report = report_of("late");
  ASSERT_TRUE(report.is_object());
  EXPECT_GE(report["timing"].value("tests_rerun_alone", 0), 1) << report["timing"].dump();
  EXPECT_NE(message_of(report, "Saxpy.OneWarpMinusOne").find("timed out"), std::string::npos) << report["tests"].dump();
}

TEST_F(BatchCli, SkipsUnchangedRegradesChangedAndForcedOnes) {
  add_broken_submissions();
  ASSERT_EQ(batch({}).exit_code, 0);
  const auto first = gradebook();

  ProcessResult again = batch({});
  EXPECT_EQ(again.exit_code, 0) << again.output;
  EXPECT_EQ(counts(again.output), std::make_pair(0, 5)) << again.output;
  EXPECT_EQ(gradebook(), first);

  // bob fixes his syntax error... into a forbidden header.
  fs::copy_file(kFixtures / "forbidden_header" / "vector_add.cu", class_dir() / "bob" / "vector_add.cu",
                fs::copy_options::overwrite_existing);
  again = batch({});
  EXPECT_EQ(counts(again.output), std::make_pair(1, 4)) << again.output;
  EXPECT_EQ(gradebook().at("bob").at("status"), "rule_violation");

  again = batch({"--regrade"});
  EXPECT_EQ(counts(again.output), std::make_pair(5, 0)) << again.output;
  EXPECT_EQ(again.exit_code, 0) << again.output;
}

TEST_F(BatchCli, ResumesAfterBeingKilled) {
  add_broken_submissions();
  fs::copy(kFixtures / "syntax_error", class_dir() / "gina");
  fs::copy(kFixtures / "syntax_error", class_dir() / "hugo");
  const fs::path log = root_ / "first.log";
  // Both batches' temp directory: what the killed one leaves there is seen, and never left in the
  // real $TMPDIR (issue 30: a labgrade-01_vector_add-XXXXXX folder after every ctest run).
  const fs::path temp = root_ / "tmp";
  fs::create_directories(temp);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::setpgid(0, 0);
    ::setenv("TMPDIR", temp.c_str(), 1);
    std::freopen(log.c_str(), "w", stdout);
    ::dup2(STDOUT_FILENO, STDERR_FILENO);
    ::execl(LABGRADE_EXECUTABLE, LABGRADE_EXECUTABLE, "batch", "01_vector_add", class_dir().c_str(), "--out",
            out().c_str(), "--jobs", "1", static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  // Kill it, without warning, once the first submission is in the database.
  bool saw_one = false;
  for (int i = 0; i < 6000 && !saw_one; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    std::ifstream in(log);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    saw_one = text.find("[1/7]") != std::string::npos;
    if (text.find("[7/7]") != std::string::npos) break;
  }
  ::kill(-pid, SIGKILL);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ASSERT_TRUE(saw_one) << "the batch did not get through a first submission";

  const auto work_dirs = [&] {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(temp)) {
      if (entry.path().filename().string().rfind("labgrade-01_vector_add-", 0) == 0) {
        names.push_back(entry.path().filename().string());
      }
    }
    return names;
  };
  const ProcessResult resumed = batch({}, {{"TMPDIR", temp.string()}});
  EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
  EXPECT_EQ(work_dirs(), std::vector<std::string>{}) << "the killed batch's work directory is removed by the next one";
  const auto [to_grade, kept] = counts(resumed.output);
  EXPECT_GE(kept, 1) << resumed.output;
  EXPECT_GE(to_grade, 1) << "killed before the end: " << resumed.output;
  EXPECT_EQ(to_grade + kept, 7) << resumed.output;
  const auto book = gradebook();
  EXPECT_EQ(book.size(), 7u);
  expect_broken_ones_graded(book);
  EXPECT_EQ(book.at("gina").at("status"), "compile_error");
}

std::string read_file(const fs::path& file) {
  std::ifstream in(file);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// --canvas-roster: canvas.csv beside gradebook.csv, by the roster's SIS User IDs; a student without
// a submission and submissions not on the roster are listed, never dropped.
TEST_F(BatchCli, WritesACanvasImportFromARoster) {
  add_broken_submissions();
  const fs::path roster = root_ / "roster.csv";
  std::ofstream(roster) << "Student,ID,SIS User ID,SIS Login ID,Section\n"
                           "Bob Builder,11,bob,bob@uni.edu,A\n"
                           "Carol Singer,12,carol,carol@uni.edu,A\n"
                           "Zed Absent,13,zed,zed@uni.edu,B\n";
  const ProcessResult run = batch({"--canvas-roster", roster.string(), "--canvas-assignment", "Lab 1 (4242)"});
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(read_file(out() / "canvas.csv"),
            "Student,ID,SIS User ID,SIS Login ID,Section,Lab 1 (4242)\r\n"
            "Points Possible,,,,,100\r\n"
            "Bob Builder,11,bob,bob@uni.edu,A,0\r\n"
            "Carol Singer,12,carol,carol@uni.edu,A,0\r\n"
            "Zed Absent,13,zed,zed@uni.edu,B,\r\n");
  EXPECT_EQ(read_file(out() / "canvas_unmatched.csv"),
            "kind,sis_user_id,submission,name,section,status,total\r\n"
            "roster student without a submission,zed,,Zed Absent,B,,\r\n"
            "submission not on the roster,dave,dave,,,compile_error,0\r\n"
            "submission not on the roster,erin,erin,,,rejected,0\r\n"
            "submission not on the roster,frank,frank,,,rule_violation,0\r\n");
  EXPECT_NE(run.output.find("canvas.csv: 2 of 3 roster students matched a submission by SIS User ID; no submission "
                            "from: zed (Zed Absent); not on the roster (not in canvas.csv): dave (compile_error, 0), "
                            "erin (rejected, 0), frank (rule_violation, 0)"),
            std::string::npos)
      << run.output;
  EXPECT_NE(read_file(out() / "summary.html").find("<h2>Canvas import</h2>"), std::string::npos);
}

TEST_F(BatchCli, AMalformedRosterStopsTheBatchBeforeAnyGrade) {
  add_broken_submissions();
  const fs::path roster = root_ / "roster.csv";
  std::ofstream(roster) << "Student,SIS User ID\nBob,bob\nSinger, Carol,carol\n";
  const ProcessResult run = batch({"--canvas-roster", roster.string()});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("labgrade: --canvas-roster: " + roster.string() +
                            ":3: 3 fields where the header has 2; expected one field per column"),
            std::string::npos)
      << run.output;
  EXPECT_FALSE(fs::exists(out() / "results.sqlite")) << "nothing was graded";
}

TEST_F(BatchCli, LatePolicyAppliesFromGradescopeSubmissionTimes) {
  // This course tree's configuration, its lab 01 with a late policy.
  const fs::path course = root_ / "course";
  fs::create_directories(course / "config" / "labs");
  const fs::path source = CUDALABS_SOURCE_DIR;
  fs::copy_file(source / "config" / "course.yaml", course / "config" / "course.yaml");
  std::ofstream(course / "config" / "labs" / "01_vector_add.yaml")
      << read_file(source / "config" / "labs" / "01_vector_add.yaml")
      << "late: {due: \"2026-10-01T23:59:00-07:00\", grace_minutes: 10, penalty_percent_per_day: 10, "
         "max_penalty_percent: 50}\n";
  fs::copy(kFixtures / "syntax_error", class_dir() / "submission_1");
  fs::copy(kFixtures / "syntax_error", class_dir() / "submission_2");
  fs::copy(kSolution, class_dir() / "submission_3");
  std::ofstream(class_dir() / "submission_metadata.yml") << R"(submission_1:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1815'
  :created_at: 2026-10-02 00:05:00.000000000 -07:00
submission_2:
  :submitters:
  - :name: Alan Turing
    :sid: '1912'
  :created_at: 2026-10-03 20:00:00.000000000 -07:00
submission_3:
  :submitters:
  - :name: Grace Hopper
    :sid: '1906'
  :created_at: 2026-10-05 09:00:00.000000000 -07:00
)";
  const ProcessResult run =
      batch({}, {}, {"--root", course.string(), "--build-dir", std::string(CUDALABS_BINARY_DIR)});
  ASSERT_TRUE(run.exited) << run.output;
  const bool gpu = has_gpu();
  EXPECT_EQ(run.exit_code, gpu ? 0 : 5) << run.output;
  const auto book = gradebook();
  ASSERT_EQ(book.size(), 3u);
  // Six minutes after the deadline, within the ten of grace: on time.
  EXPECT_EQ(book.at("1815").at("name"), "Ada Lovelace");
  EXPECT_EQ(book.at("1815").at("submitted_at"), "2026-10-02T07:05:00Z");
  EXPECT_EQ(book.at("1815").at("late_days"), "0");
  EXPECT_EQ(book.at("1815").at("late_penalty_percent"), "0");
  // 44 hours late: two days started, 20% of nothing.
  EXPECT_EQ(book.at("1912").at("late_days"), "2");
  EXPECT_EQ(book.at("1912").at("late_penalty_percent"), "20");
  EXPECT_EQ(book.at("1912").at("late_penalty_points"), "0");
  EXPECT_EQ(book.at("1912").at("total"), "0");
  const std::string text = read_file(out() / "reports" / "1912" / "report.txt");
  EXPECT_NE(text.find("Late: submitted 2026-10-04T03:00:00Z, 2 days after the deadline 2026-10-02T06:59:00Z: -20%"),
            std::string::npos)
      << text;
  EXPECT_NE(read_file(out() / "reports" / "1912" / "report.json").find("\"days_late\": 2"), std::string::npos);
  EXPECT_NE(read_file(out() / "reports" / "1912" / "results.json").find("2 days after the deadline"),
            std::string::npos);
  EXPECT_NE(read_file(out() / "reports" / "1912" / "report.html").find("2 days after the deadline"),
            std::string::npos);
  // 3 days and 9 hours late: four days started, 40% off what the tests earned.
  if (gpu) {
    const double raw = std::stod(book.at("1906").at("points_before_late_penalty"));
    EXPECT_EQ(book.at("1906").at("late_days"), "4");
    EXPECT_EQ(book.at("1906").at("late_penalty_percent"), "40");
    EXPECT_NEAR(std::stod(book.at("1906").at("total")), raw * 0.6, 0.01);
  } else {
    EXPECT_EQ(book.at("1906").at("status"), "no_cuda_device");
    EXPECT_EQ(book.at("1906").at("late_days"), "") << "no grade, so no penalty";
  }
}

TEST_F(BatchCli, GradesThroughSlurmAndResubmitsAFailedTask) {
  add_broken_submissions();
  const fs::path state = root_ / "slurm-state";
  fs::create_directories(state);
  std::ofstream(state / "fail_task_once") << "1";  // the second task's node dies in the first job
  const char* path = std::getenv("PATH");
  const ProcessResult run = batch({"--slurm", "--chunk", "2", "--partition", "gpu", "--gres", "gpu:1", "--jobs", "2"},
                                  {{"PATH", kFakeSlurm.string() + ":" + (path ? path : "/usr/bin:/bin")},
                                   {"FAKE_SLURM_STATE", state.string()},
                                   {"LABGRADE_SLURM_POLL_SECONDS", "0.2"}});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("task 1001_1 ended NODE_FAIL"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("2 submissions have no result yet; submitting them again"), std::string::npos)
      << run.output;

  std::ifstream calls(state / "sbatch.log");
  std::vector<std::string> sbatch;
  for (std::string line; std::getline(calls, line);) sbatch.push_back(line);
  ASSERT_EQ(sbatch.size(), 2u);
  EXPECT_NE(sbatch[0].find("--array=0-2"), std::string::npos) << sbatch[0];  // 5 submissions, 2 a task
  EXPECT_NE(sbatch[0].find("--partition=gpu"), std::string::npos) << sbatch[0];
  EXPECT_NE(sbatch[0].find("--gres=gpu:1"), std::string::npos) << sbatch[0];
  EXPECT_NE(sbatch[1].find("--array=0-0"), std::string::npos) << "only the missing two again: " << sbatch[1];

  const auto book = gradebook();
  EXPECT_EQ(book.size(), 5u);
  expect_broken_ones_graded(book);
  EXPECT_TRUE(fs::exists(out() / "reports" / "erin" / "report.json"));
}

TEST_F(BatchCli, SlurmWithoutWaitingIsCollectedLater) {
  add_broken_submissions();
  const fs::path state = root_ / "slurm-state";
  fs::create_directories(state);
  const char* path = std::getenv("PATH");
  const std::vector<std::pair<std::string, std::string>> env{
      {"PATH", kFakeSlurm.string() + ":" + (path ? path : "/usr/bin:/bin")},
      {"FAKE_SLURM_STATE", state.string()},
      {"LABGRADE_SLURM_POLL_SECONDS", "0.2"}};
  const ProcessResult submitted = batch({"--slurm", "--chunk", "3", "--no-wait"}, env);
  EXPECT_EQ(submitted.exit_code, 0) << submitted.output;
  EXPECT_NE(submitted.output.find("--collect"), std::string::npos) << submitted.output;
  EXPECT_TRUE(fs::exists(out() / "slurm" / "state.json"));

  // canvas.csv, too, when the batch is collected.
  const fs::path roster = root_ / "roster.csv";
  std::ofstream(roster) << "Student,SIS User ID\nBob,bob\n";
  ProcessSpec collect;
  collect.argv = {LABGRADE_EXECUTABLE, "batch", "--collect", out().string(), "--canvas-roster", roster.string()};
  collect.extra_env = env;
  collect.timeout_seconds = 900;
  const ProcessResult collected = labgrade::run_process(collect);
  EXPECT_EQ(collected.exit_code, 0) << collected.output;
  const auto book = gradebook();
  EXPECT_EQ(book.size(), 5u);
  expect_broken_ones_graded(book);
  EXPECT_EQ(read_file(out() / "canvas.csv"),
            "Student,ID,SIS User ID,SIS Login ID,Section,01_vector_add\r\nPoints Possible,,,,,100\r\nBob,,bob,,,0\r\n");
  EXPECT_NE(collected.output.find("canvas.csv: 1 of 1 roster students matched"), std::string::npos)
      << collected.output;
}

TEST_F(BatchCli, SlurmTasksRunTheSanitizerWhenAsked) {
  add_broken_submissions();
  const fs::path state = root_ / "slurm-state";
  fs::create_directories(state);
  const char* path = std::getenv("PATH");
  const ProcessResult submitted =
      batch({"--slurm", "--chunk", "3", "--no-wait", "--sanitize"},
            {{"PATH", kFakeSlurm.string() + ":" + (path ? path : "/usr/bin:/bin")}, {"FAKE_SLURM_STATE", state.string()}});
  ASSERT_EQ(submitted.exit_code, 0) << submitted.output;
  const std::string task = read_file(out() / "slurm" / "attempt-1" / "task.sh");
  EXPECT_NE(task.find(" --sanitize "), std::string::npos) << task;
  const std::string saved = read_file(out() / "slurm" / "state.json");
  EXPECT_NE(saved.find("\"sanitize\": true"), std::string::npos) << saved;
  // A grade made with the sanitizer is not the same grade as one without: the state's fingerprint says so.
  EXPECT_NE(saved.find("+sanitize"), std::string::npos) << saved;
}

// Through a real Slurm cluster: ctest's batch_through_real_slurm starts a single-node one
// (tests/slurm/with_local_slurm.sh, slurm-wlm and munge) and runs this test in it. The class of
// broken submissions needs no GPU, so CI grades it end to end: job array, tasks, merge, gradebook.
TEST_F(BatchCli, GradesThroughARealSlurmCluster) {
  if (std::getenv("CUDALABS_REAL_SLURM") == nullptr) {
    GTEST_SKIP() << "no Slurm cluster here: ctest's batch_through_real_slurm runs this test in one it starts";
  }
  add_broken_submissions();
  const ProcessResult run = batch({"--slurm", "--chunk", "2"}, {{"LABGRADE_SLURM_POLL_SECONDS", "0.5"}});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("slurm: submitted job"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("slurm: merged 5 results"), std::string::npos) << run.output;
  const auto book = gradebook();
  EXPECT_EQ(book.size(), 5u) << run.output;
  expect_broken_ones_graded(book);
  EXPECT_TRUE(fs::exists(out() / "reports" / "erin" / "report.json"));
}

}  // namespace
