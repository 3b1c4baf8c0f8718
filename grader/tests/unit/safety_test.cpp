// Containment of untrusted code, host side: kernel limits and the secret pipe (child_process),
// forged result lines (suite_runner with the fake harness in test_child.cpp), and submission
// limits (staging: binary and non-UTF-8 files, archives).
#include <csignal>
#include <cstdlib>
#include <fstream>

#include <gtest/gtest.h>

#include "test_child_spec.hpp"

#include "run/suite_runner.hpp"
#include "run/trusted_events.hpp"
#include "sandbox/child_process.hpp"
#include "stage/archive_extract.hpp"
#include "stage/staging.hpp"
#include "text/text_check.hpp"

namespace labgrade {
namespace {
namespace fs = std::filesystem;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "'" << (needle) << "' not in:\n" << (haystack)

fs::path scratch_dir() {
  const fs::path dir = fs::path(::testing::TempDir()) /
                       ("safety_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// ---- resource limits -------------------------------------------------------------------------

TEST(ResourceLimits, AreAppliedAndCoreDumpsAreOff) {
  ProcessSpec spec = child({"limits"});
  spec.limits.cpu_seconds = 30;
  spec.limits.max_open_files = 100;
  spec.limits.max_file_bytes = 123456;
  const ProcessResult result = run_process(spec);
  ASSERT_TRUE(result.succeeded()) << result.output;
  EXPECT_CONTAINS(result.output, "cpu=30 ");
  EXPECT_CONTAINS(result.output, "nofile=100 ");
  EXPECT_CONTAINS(result.output, "fsize=123456 ");
  EXPECT_CONTAINS(result.output, "core=0 ");
}

TEST(ResourceLimits, AddressSpaceIsCappedOnlyWhenAsked) {
  ProcessSpec spec = child({"limits"});
  EXPECT_CONTAINS(run_process(spec).output, "as=unlimited");
  spec.limits.max_address_space_bytes = 8ull << 30;
  EXPECT_CONTAINS(run_process(spec).output, "as=" + std::to_string(8ull << 30));
}

TEST(ResourceLimits, HostMemoryIsCappedOnlyWhenAsked) {
  ProcessSpec spec = child({"limits"});
  EXPECT_CONTAINS(run_process(spec).output, "data=unlimited");
  spec.limits.max_data_bytes = 16ull << 30;
  EXPECT_CONTAINS(run_process(spec).output, "data=" + std::to_string(16ull << 30));
}

TEST(ResourceLimits, AFileTooLargeIsStoppedAndExplained) {
  ProcessSpec spec = child({"write-file", "1000000"});
  spec.working_dir = scratch_dir();
  spec.limits.max_file_bytes = 64 * 1024;
  const ProcessResult result = run_process(spec);
  EXPECT_FALSE(result.exited);
  EXPECT_EQ(result.signal, SIGXFSZ);
  EXPECT_LE(fs::file_size(spec.working_dir / "big.out"), 64u * 1024);
  EXPECT_CONTAINS(result.describe_end(10), "SIGXFSZ");
  EXPECT_CONTAINS(result.describe_end(10), "tried to write a file larger than the course allows");
}

TEST(ResourceLimits, ABusyLoopIsStoppedAtItsCpuLimit) {
  ProcessSpec spec = child({"spin"}, 30);
  spec.limits.cpu_seconds = 1;
  const ProcessResult result = run_process(spec);
  EXPECT_FALSE(result.timed_out);
  EXPECT_TRUE(result.cpu_limit_exceeded);
  EXPECT_TRUE(result.signal == SIGXCPU || result.signal == SIGKILL) << result.signal;
  // The kernel checks RLIMIT_CPU against tick-sampled time, which on a loaded machine runs ahead
  // of the precise figure rusage reports (0.87 s seen with 2 cores busy): about its limit, not less.
  EXPECT_GE(result.cpu_seconds, 0.75);
  EXPECT_LT(result.wall_seconds, 10);
  EXPECT_CONTAINS(result.describe_end(30), "more CPU time than the course allows");
}

// ---- the secret pipe -------------------------------------------------------------------------

TEST(SecretPipe, DeliversTheSecretThenEndOfFile) {
  ProcessSpec spec = child({"read-secret"});
  spec.secret = "0123abcd";
  spec.secret_fd = 4;
  spec.secret_fd_env = "CUDALABS_RESULT_TOKEN_FD";
  EXPECT_EQ(run_process(spec).output, "[0123abcd]");
}

TEST(SecretPipe, RefusesClashingDescriptors) {
  ProcessSpec spec = child({"exit", "0"});
  spec.result_fd = 3;
  spec.secret_fd = 3;
  EXPECT_FALSE(run_process(spec).started);
  spec.secret_fd = 2;
  EXPECT_FALSE(run_process(spec).started);
}

TEST(TrustedEvents, OnlyLinesWithTheTokenCount) {
  const std::string token = new_result_token();
  EXPECT_EQ(token.size(), 32u);
  EXPECT_NE(token, new_result_token());
  EXPECT_TRUE(trusted_event(R"({"token":")" + token + R"(","event":"done"})", token));
  EXPECT_FALSE(trusted_event(R"({"event":"done"})", token));
  EXPECT_FALSE(trusted_event(R"({"token":"00","event":"done"})", token));
  EXPECT_FALSE(trusted_event(R"({"token":")" + token + R"("})", token));  // no event
  EXPECT_FALSE(trusted_event("[PASSED] " + token, token));
  EXPECT_FALSE(trusted_event(R"({"event":"done"})", ""));
}

// ---- forged results --------------------------------------------------------------------------

SuiteRun run_fake(const std::string& script, const std::vector<std::string>& tests) {
  HarnessInvocation invocation;
  invocation.harness = LABGRADE_TEST_CHILD;
  invocation.env = {{"FAKE_SCRIPT", script}};
  invocation.test_timeout_seconds = 5;
  return run_tests(invocation, tests);
}

TEST(ForgedResults, LinesWithoutTheTokenAreIgnored) {
  const SuiteRun run = run_fake("A.one=forge", {"A.one", "B.two"});
  ASSERT_EQ(run.outcomes.size(), 2u);
  EXPECT_EQ(run.outcomes[0].status, TestStatus::Failed);  // its genuine result, not the forged pass
  EXPECT_EQ(run.outcomes[1].status, TestStatus::Passed);  // the forged "done" did not end the run
  EXPECT_EQ(run.processes, 1);
  EXPECT_EQ(run.untrusted_lines, 4);  // no token, wrong token, a test not asked for, a tokenless done
}

TEST(ForgedResults, AForgedPassFollowedByAnExitIsNotAPass) {
  const SuiteRun run = run_fake("A.one=forge-then-exit", {"A.one", "B.two"});
  EXPECT_EQ(run.outcomes[0].status, TestStatus::Crashed);
  EXPECT_CONTAINS(run.outcomes[0].message, "exited with code 0 in the middle of this test");
  EXPECT_EQ(run.outcomes[1].status, TestStatus::Passed);  // still run, in a fresh process
  EXPECT_EQ(run.processes, 2);
}

TEST(ForgedResults, AnEndWithoutItsStartIsIgnored) {
  const SuiteRun run = run_fake("A.one=claim-others-then-exit;B.two=fail", {"A.one", "B.two", "C.three"});
  EXPECT_EQ(run.outcomes[0].status, TestStatus::Passed);
  EXPECT_EQ(run.outcomes[1].status, TestStatus::Failed);  // its claimed pass was ignored; it ran again
  EXPECT_EQ(run.outcomes[2].status, TestStatus::Passed);
  EXPECT_EQ(run.processes, 2);
  EXPECT_EQ(run.untrusted_lines, 2);
}

// ---- submissions -----------------------------------------------------------------------------

TEST(TextCheck, AcceptsUtf8AndRefusesBinaries) {
  EXPECT_EQ(text_problem("int main() {}\n// caf\xc3\xa9, \xe2\x82\xac, \xf0\x9f\x98\x80\n"), "");
  EXPECT_EQ(text_problem(std::string("line one\nbinary\0here", 20)), "it holds a NUL byte at line 2 (a binary file?)");
  EXPECT_EQ(text_problem("// caf\xe9 in Latin-1\n"), "it holds bytes that are not UTF-8 at line 1");
  EXPECT_NE(text_problem("\xc0\xaf"), "");          // overlong '/'
  EXPECT_NE(text_problem("\xed\xa0\x80"), "");      // a surrogate
  EXPECT_NE(text_problem("\xe2\x82"), "");          // cut off
}

class ArchiveStaging : public ::testing::Test {
 protected:
  void SetUp() override { root_ = scratch_dir(); }
  void TearDown() override { fs::remove_all(root_); }
  // A .tar.gz needs GNU tar; a .zip only the CMake that built labgrade (no unzip).
  static bool archive_tools_missing(std::string* which) {
    if (std::system("command -v tar >/dev/null 2>&1") != 0) {
      *which = "tar";
      return true;
    }
    return false;
  }
  static fs::path fixture(const std::string& name) { return fs::path(LABGRADE_UNIT_FIXTURES) / "archives" / name; }
  StagedSubmission stage(const std::string& name) {
    return stage_submission(fixture(name), {"vector_add.cu"}, root_ / "src", 1 << 20);
  }
  std::string error_of(const std::string& name) {
    try {
      stage(name);
    } catch (const SubmissionError& error) {
      return error.what();
    }
    return "";
  }
  fs::path root_;
};

TEST_F(ArchiveStaging, StagesFromAZipAndATarGz) {
  if (std::string tool; archive_tools_missing(&tool)) GTEST_SKIP() << tool << " is not installed (Debian package " << tool << ")";
  for (const char* name : {"good.zip", "good.tar.gz"}) {
    SCOPED_TRACE(name);
    const StagedSubmission staged = stage(name);
    ASSERT_EQ(staged.files.size(), 1u);
    EXPECT_EQ(staged.taken_from[0], "my_lab/vector_add.cu");
    std::ifstream in(staged.files[0]);
    EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "// student code\n");
    EXPECT_EQ(staged.ignored, std::vector<std::string>{"notes.txt"});
    fs::remove_all(root_);
  }
}

TEST_F(ArchiveStaging, RefusesTraversalAbsolutePathsAndLinksBeforeUnpacking) {
  if (std::string tool; archive_tools_missing(&tool)) GTEST_SKIP() << tool << " is not installed (Debian package " << tool << ")";
  EXPECT_CONTAINS(error_of("traversal.tar.gz"), "'../evil.cu' contains '..'");
  EXPECT_CONTAINS(error_of("traversal.zip"), "'../evil_zip.cu' contains '..'");
  EXPECT_CONTAINS(error_of("absolute.tar.gz"), "is an absolute path");
  EXPECT_CONTAINS(error_of("symlink.tar.gz"), "is a link");
  EXPECT_CONTAINS(error_of("symlink.zip"), "is a link");
  EXPECT_CONTAINS(error_of("absolute.zip"), "'/tmp/arch/evil_zip.cu' is an absolute path");
  EXPECT_FALSE(fs::exists(root_ / "src-unpacked" / "passwd"));
  EXPECT_FALSE(fs::exists(root_ / "evil.cu"));
}

// Sets PATH for one scope: what a machine without some tools looks like to labgrade's children.
class ScopedPath {
 public:
  explicit ScopedPath(const std::string& path) : saved_(std::getenv("PATH") ? std::getenv("PATH") : "") {
    ::setenv("PATH", path.c_str(), 1);
  }
  ~ScopedPath() { ::setenv("PATH", saved_.c_str(), 1); }
  ScopedPath(const ScopedPath&) = delete;
  ScopedPath& operator=(const ScopedPath&) = delete;

 private:
  std::string saved_;
};

// The GPU machine has no unzip: a .zip is read by the CMake that built labgrade, and is checked
// the same way before anything is unpacked.
TEST_F(ArchiveStaging, AZipNeedsNoUnzip) {
  fs::create_directories(root_ / "empty_bin");
  const ScopedPath no_tools((root_ / "empty_bin").string());
  ASSERT_NE(std::system("unzip -v >/dev/null 2>&1"), 0) << "unzip still found";
  const StagedSubmission staged = stage("good.zip");
  ASSERT_EQ(staged.files.size(), 1u);
  EXPECT_EQ(staged.taken_from[0], "my_lab/vector_add.cu");
  std::ifstream in(staged.files[0]);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "// student code\n");
  EXPECT_EQ(staged.ignored, std::vector<std::string>{"notes.txt"});
  fs::remove_all(root_ / "src");
  fs::remove_all(root_ / "src-unpacked");
  EXPECT_CONTAINS(error_of("traversal.zip"), "'../evil_zip.cu' contains '..'");
  EXPECT_CONTAINS(error_of("symlink.zip"), "is a link");
  EXPECT_CONTAINS(error_of("absolute.zip"), "is an absolute path");
}

// libarchive picks a format by content: an mtree text named .zip would copy this machine's files
// into the submission. Only content that starts as its name says is opened.
TEST_F(ArchiveStaging, RefusesContentThatIsNotTheFormatItsNameSays) {
  const fs::path fake_zip = root_ / "vector_add.zip";
  std::ofstream(fake_zip) << "#mtree\nvector_add.cu type=file contents=/etc/hostname\n";
  const auto refusal = [&](const fs::path& archive) {
    try {
      extract_archive(archive, root_ / "out", ArchiveLimits{});
    } catch (const SubmissionError& error) {
      return std::string(error.what());
    }
    return std::string("not refused");
  };
  EXPECT_CONTAINS(refusal(fake_zip), "vector_add.zip was refused: its content is not a zip archive");
  const fs::path fake_tar = root_ / "vector_add.tar.gz";
  fs::copy_file(fixture("good.zip"), fake_tar);
  EXPECT_CONTAINS(refusal(fake_tar), "its content is not a gzip-compressed tar archive");
  EXPECT_FALSE(fs::exists(root_ / "out"));
}

TEST_F(ArchiveStaging, RefusesAnArchiveThatUnpacksTooLarge) {
  if (std::string tool; archive_tools_missing(&tool)) GTEST_SKIP() << tool << " is not installed (Debian package " << tool << ")";
  try {
    extract_archive(fixture("good.zip"), root_ / "out", ArchiveLimits{4, 1 << 20, 100});
    FAIL() << "not refused";
  } catch (const SubmissionError& error) {
    EXPECT_CONTAINS(error.what(), "unpacks to 16 bytes; at most 4 are accepted per file");
  }
  EXPECT_FALSE(fs::exists(root_ / "out"));
}

TEST_F(ArchiveStaging, RefusesABinaryStudentFile) {
  fs::create_directories(root_ / "submission");
  std::ofstream(root_ / "submission" / "vector_add.cu", std::ios::binary) << std::string("\x7f" "ELF\0\0\0", 7);
  try {
    stage_submission(root_ / "submission", {"vector_add.cu"}, root_ / "src", 1 << 20);
    FAIL() << "not refused";
  } catch (const SubmissionError& error) {
    EXPECT_CONTAINS(error.what(), "vector_add.cu is not a source file that can be graded: it holds a NUL byte");
  }
}

}  // namespace
}  // namespace labgrade
