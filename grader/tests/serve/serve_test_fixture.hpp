// The fixture of the service's end-to-end tests: `labgrade serve` started on localhost with a
// fresh data folder and two students' tokens (alice, bob), and the CLI to drive it.
#pragma once

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "sandbox/child_process.hpp"

namespace serve_test {

namespace fs = std::filesystem;
using labgrade::ProcessResult;
using labgrade::ProcessSpec;
using nlohmann::json;

inline const fs::path kFixtures = fs::path(LABGRADE_TEST_SUBMISSIONS) / "01_vector_add";
inline constexpr const char* kLab = "01_vector_add";

inline std::string read_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// `labgrade serve` in the background, its output in a log file; SIGTERM at the end of the scope.
class RunningService {
 public:
  RunningService(const fs::path& data, const fs::path& log, std::vector<std::string> options,
                 std::vector<std::string> global = {}) {
    const std::size_t start_size = read_file(log).size();
    std::vector<std::string> argv{LABGRADE_EXECUTABLE};
    argv.insert(argv.end(), global.begin(), global.end());
    for (const char* arg : {"serve", "--data"}) argv.emplace_back(arg);
    argv.push_back(data.string());
    argv.emplace_back("--port");
    argv.emplace_back("0");
    argv.insert(argv.end(), options.begin(), options.end());
    // Its grades' work directories beside its log, not in the real $TMPDIR: a service killed
    // mid-grade (as a power cut would) leaves one behind, which the next run of the test removes.
    const fs::path temp = log.parent_path() / "tmp";
    fs::create_directories(temp);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::setenv("TMPDIR", temp.c_str(), 1);
      const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0600);
      ::dup2(out, STDOUT_FILENO);
      ::dup2(out, STDERR_FILENO);
      std::vector<char*> args;
      for (std::string& arg : argv) args.push_back(arg.data());
      args.push_back(nullptr);
      ::execv(args[0], args.data());
      ::_exit(127);
    }
    const std::regex listening(R"(listening on (http://127\.0\.0\.1:\d+))");
    for (int i = 0; i < 500 && url_.empty(); ++i) {
      // This start's line: a restarted service appends to the same log.
      const std::string text = read_file(log);
      std::smatch match;
      if (text.size() > start_size && std::regex_search(text.begin() + static_cast<std::ptrdiff_t>(start_size),
                                                        text.end(), match, listening)) {
        url_ = match[1];
      } else {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
    }
    if (url_.empty()) ADD_FAILURE() << "labgrade serve did not start:\n" << read_file(log);
  }
  ~RunningService() { stop(SIGTERM); }
  RunningService(const RunningService&) = delete;
  RunningService& operator=(const RunningService&) = delete;

  const std::string& url() const { return url_; }
  int stop(int signal) {
    if (pid_ <= 0) return -1;
    ::kill(pid_, signal);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
    return status;
  }

 private:
  pid_t pid_ = -1;
  std::string url_;
};

class ServeCli : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("serve_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_);
    std::ofstream(root_ / "roster.csv") << "student_id,name\nalice,Alice\nbob,Bob\ncarol,Carol\n";
    const ProcessResult issued = labgrade({"tokens", "issue", "--data", data().string(), "--roster",
                                           (root_ / "roster.csv").string(), "--out", (root_ / "tokens.csv").string()});
    ASSERT_EQ(issued.exit_code, 0) << issued.output;
    std::istringstream tokens(read_file(root_ / "tokens.csv"));
    for (std::string line; std::getline(tokens, line);) {
      const auto comma = line.find(',');
      if (line.rfind("alice,", 0) == 0) alice_ = line.substr(comma + 1);
      if (line.rfind("bob,", 0) == 0) bob_ = line.substr(comma + 1);
      if (line.rfind("carol,", 0) == 0) carol_ = line.substr(comma + 1);
    }
    ASSERT_FALSE(alice_.empty());
    ASSERT_FALSE(bob_.empty());
  }

  fs::path data() const { return root_ / "data"; }
  fs::path log() const { return root_ / "serve.log"; }

  std::unique_ptr<RunningService> serve(std::vector<std::string> options = {}, std::vector<std::string> global = {}) {
    return std::make_unique<RunningService>(data(), log(), std::move(options), std::move(global));
  }

  ProcessResult labgrade(std::vector<std::string> args, std::vector<std::pair<std::string, std::string>> env = {}) {
    ProcessSpec spec;
    spec.argv = {LABGRADE_EXECUTABLE};
    spec.argv.insert(spec.argv.end(), args.begin(), args.end());
    spec.working_dir = root_;
    spec.timeout_seconds = 300;
    spec.extra_env = {{"NO_COLOR", "1"}};
    spec.extra_env.insert(spec.extra_env.end(), env.begin(), env.end());
    return labgrade::run_process(spec);
  }

  // `labgrade submit 01_vector_add --server URL --from FOLDER` with `token`.
  ProcessResult submit(const std::string& url, const std::string& token, const fs::path& from,
                       std::vector<std::string> more = {}) {
    std::vector<std::string> args{"submit", kLab, "--server", url, "--from", from.string()};
    args.insert(args.end(), more.begin(), more.end());
    return labgrade(args, {{"LABGRADE_TOKEN", token}});
  }

  // The archive `labgrade submit` packs for a folder, as bytes.
  std::string packed(const fs::path& from) {
    const fs::path archive = root_ / ("packed-" + std::to_string(packed_++) + ".tar.gz");
    const ProcessResult run = labgrade({"submit", kLab, "--from", from.string(), "-o", archive.string()});
    EXPECT_EQ(run.exit_code, 0) << run.output;
    return read_file(archive);
  }

  static httplib::Headers bearer(const std::string& token) { return {{"Authorization", "Bearer " + token}}; }

  fs::path root_;
  std::string alice_, bob_, carol_;
  int packed_ = 0;
};

}  // namespace serve_test
