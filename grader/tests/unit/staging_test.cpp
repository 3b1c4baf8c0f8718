#include "stage/staging.hpp"
#include "stage/lab_files.hpp"

#include <fstream>
#include <set>

#include <gtest/gtest.h>

namespace labgrade {
namespace {
namespace fs = std::filesystem;

class Staging : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) / ("staging_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(submission());
  }
  void TearDown() override { fs::remove_all(root_); }

  fs::path submission() const { return root_ / "submission"; }
  fs::path destination() const { return root_ / "staged"; }
  void write(const fs::path& relative, const std::string& text) {
    fs::create_directories((submission() / relative).parent_path());
    std::ofstream(submission() / relative) << text;
  }
  static std::string read(const fs::path& file) {
    std::ifstream in(file);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  std::string error_of(const std::vector<std::string>& student_files, std::uint64_t max_bytes = 1 << 20) {
    try {
      stage_submission(submission(), student_files, destination(), max_bytes);
    } catch (const SubmissionError& error) {
      return error.what();
    }
    return "";
  }

  fs::path root_;
};

TEST_F(Staging, CopiesOnlyTheStudentFilesAndListsTheRest) {
  write("vector_add.cu", "student code");
  write("notes.txt", "ignored");
  write("build/a.out", "ignored");
  const auto staged = stage_submission(submission(), {"vector_add.cu"}, destination(), 1 << 20);
  ASSERT_EQ(staged.files.size(), 1u);
  EXPECT_EQ(read(staged.files[0]), "student code");
  EXPECT_EQ(staged.ignored, (std::vector<std::string>{"build/a.out", "notes.txt"}));
  EXPECT_FALSE(fs::exists(destination() / "notes.txt"));
}

TEST_F(Staging, FindsAFileInASubfolder) {
  write("my_lab/src/vector_add.cu", "nested");
  const auto staged = stage_submission(submission(), {"vector_add.cu"}, destination(), 1 << 20);
  EXPECT_EQ(staged.taken_from, (std::vector<std::string>{"my_lab/src/vector_add.cu"}));
  EXPECT_EQ(read(destination() / "vector_add.cu"), "nested");
}

TEST_F(Staging, PrefersTheTopLevelCopy) {
  write("vector_add.cu", "top");
  write("old/vector_add.cu", "old");
  stage_submission(submission(), {"vector_add.cu"}, destination(), 1 << 20);
  EXPECT_EQ(read(destination() / "vector_add.cu"), "top");
}

TEST_F(Staging, RefusesTwoCandidatesBelowTheTop) {
  write("a/vector_add.cu", "1");
  write("b/vector_add.cu", "2");
  const std::string error = error_of({"vector_add.cu"});
  EXPECT_NE(error.find("several files named vector_add.cu"), std::string::npos) << error;
  EXPECT_NE(error.find("a/vector_add.cu, b/vector_add.cu"), std::string::npos) << error;
}

TEST_F(Staging, NamesAMissingStudentFile) {
  write("vector_ad.cu", "typo");
  const std::string error = error_of({"vector_add.cu"});
  EXPECT_NE(error.find("has no file named vector_add.cu"), std::string::npos) << error;
}

TEST_F(Staging, RefusesAFileOverTheSizeLimit) {
  write("vector_add.cu", std::string(2000, 'x'));
  const std::string error = error_of({"vector_add.cu"}, 1000);
  EXPECT_NE(error.find("2000 bytes"), std::string::npos) << error;
  EXPECT_NE(error.find("at most 1000 bytes"), std::string::npos) << error;
}

TEST_F(Staging, DoesNotFollowSymbolicLinks) {
  fs::create_symlink("/etc/passwd", submission() / "vector_add.cu");
  const std::string error = error_of({"vector_add.cu"});
  EXPECT_NE(error.find("no file named vector_add.cu"), std::string::npos) << error;
}

TEST_F(Staging, AcceptsASingleFileSubmission) {
  write("vector_add.cu", "single");
  const auto staged = stage_submission(submission() / "vector_add.cu", {"vector_add.cu"}, destination(), 1 << 20);
  EXPECT_EQ(read(staged.files.at(0)), "single");
}

TEST_F(Staging, RefusesASingleFileWithTheWrongName) {
  write("main.cu", "x");
  try {
    stage_submission(submission() / "main.cu", {"vector_add.cu"}, destination(), 1 << 20);
    FAIL() << "expected a SubmissionError";
  } catch (const SubmissionError& error) {
    EXPECT_NE(std::string(error.what()).find("this lab needs: vector_add.cu"), std::string::npos) << error.what();
  }
}

// A self-check stages from the lab's own folder: its handout, public tests and the headers they
// include are not listed as ignored; a header only the student's code includes, and any other
// file the student added, still are (they will not be graded).
TEST_F(Staging, ASelfCheckDoesNotListTheLabsOwnFiles) {
  write("README.md", "# Lab");
  write("api.cuh", "#pragma once\n");
  write("support.cuh", "#pragma once\n#include \"api.cuh\"\n#include <vector>\n#include \"cudalabs/gpu_test.hpp\"\n");
  write("selfcheck_test.cu", "#include <gtest/gtest.h>\n  #  include \"support.cuh\"\n");
  write("vector_add.cu", "#include \"api.cuh\"\n#include \"helper.cuh\"\n");
  write("helper.cuh", "// the student's own\n");
  write("notes.txt", "todo");
  EXPECT_EQ(lab_own_files(submission()),
            (std::set<std::string>{"README.md", "api.cuh", "selfcheck_test.cu", "support.cuh"}));
  StagedSubmission staged = stage_submission(submission(), {"vector_add.cu"}, destination(), 1 << 20);
  EXPECT_EQ(staged.ignored.size(), 6u);
  forget_lab_own_files(staged, submission());
  EXPECT_EQ(staged.ignored, (std::vector<std::string>{"helper.cuh", "notes.txt"}));
}

TEST_F(Staging, ReportsAMissingSubmission) {
  EXPECT_THROW(stage_submission(root_ / "nothing", {"vector_add.cu"}, destination(), 1 << 20), SubmissionError);
}

}  // namespace
}  // namespace labgrade
