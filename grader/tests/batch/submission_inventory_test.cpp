// Finding a batch's submissions: per-student folders and archives named by the student, a
// Gradescope export's metadata, and the mistakes that must stop a batch before it starts.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "batch/content_hash.hpp"
#include "batch/submission_inventory.hpp"
#include "session/grading_session.hpp"

namespace {

namespace fs = std::filesystem;
using namespace labgrade::batch;

class InventoryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("inventory_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void write(const fs::path& relative, const std::string& text) {
    fs::create_directories((dir_ / relative).parent_path());
    std::ofstream(dir_ / relative) << text;
  }
  fs::path dir_;
};

TEST_F(InventoryTest, FoldersAndArchivesAreNamedByTheStudent) {
  write("zoe/vector_add.cu", "x");
  write("adam.zip", "zip");
  write("beth.tar.gz", "tgz");
  write("carl.TGZ", "tgz");
  write("notes.txt", "not a submission");
  write(".hidden/vector_add.cu", "x");
  write("out/results.sqlite", "");
  const SubmissionInventory found = find_submissions(dir_, dir_ / "out");
  ASSERT_EQ(found.submissions.size(), 4u);
  EXPECT_EQ(found.submissions[0].student_id, "adam");
  EXPECT_EQ(found.submissions[1].student_id, "beth");
  EXPECT_EQ(found.submissions[2].student_id, "carl");
  EXPECT_EQ(found.submissions[3].student_id, "zoe");
  EXPECT_EQ(found.submissions[3].path, dir_ / "zoe");
  EXPECT_FALSE(found.submissions[0].submitted_at);
  EXPECT_FALSE(found.gradescope);
  EXPECT_EQ(found.ignored, std::vector<std::string>{"notes.txt"});
}

TEST_F(InventoryTest, TwoSubmissionsOfOneStudentAreRefused) {
  write("adam/vector_add.cu", "x");
  write("adam.zip", "zip");
  EXPECT_THROW(find_submissions(dir_), labgrade::UsageError);
}

TEST_F(InventoryTest, GradescopeMetadataGivesIdsNamesAndTimes) {
  write("submission_101/vector_add.cu", "x");
  write("submission_102/vector_add.cu", "y");
  write("submission_103/vector_add.cu", "z");
  write("submission_metadata.yml", R"(submission_101:
  :submitters:
  - :name: Ada Lovelace
    :sid: '1815'
    :email: ada@example.edu
  :created_at: 2026-10-01 23:59:30.123456000 -07:00
  :score: 0.0
submission_102:
  :submitters:
  - :name: Grace Hopper
    :email: grace@example.edu
  - :name: Alan Turing
    :sid: '1912'
  :created_at: 2026-10-03 08:00:00.000000000 -07:00
)");
  const SubmissionInventory found = find_submissions(dir_);
  EXPECT_TRUE(found.gradescope);
  ASSERT_EQ(found.submissions.size(), 3u);
  EXPECT_EQ(found.submissions[0].student_id, "1815");
  EXPECT_EQ(found.submissions[0].name, "Ada Lovelace");
  EXPECT_EQ(found.submissions[0].submitted_at, 1790924370);
  EXPECT_EQ(found.submissions[1].student_id, "grace@example.edu+1912");  // a group: sid, else email
  EXPECT_EQ(found.submissions[1].name, "Grace Hopper & Alan Turing");
  EXPECT_EQ(found.submissions[2].student_id, "submission_103");  // not in the metadata: its folder's name
  EXPECT_FALSE(found.submissions[2].submitted_at);
}

TEST_F(InventoryTest, BadGradescopeMetadataNamesFileAndLine) {
  write("submission_1/vector_add.cu", "x");
  write("submission_metadata.yml", "submission_1:\n  :submitters:\n  - :name: A\n  :created_at: yesterday\n");
  try {
    find_submissions(dir_);
    FAIL() << "bad metadata accepted";
  } catch (const labgrade::UsageError& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("submission_metadata.yml:4:"), std::string::npos) << what;
    EXPECT_NE(what.find("'yesterday'"), std::string::npos) << what;
  }
  write("submission_metadata.yml", "- just\n- a list\n");
  EXPECT_THROW(find_submissions(dir_), labgrade::UsageError);
}

TEST_F(InventoryTest, StudentIdsBecomeSafeFileNames) {
  EXPECT_EQ(file_name_for("alice"), "alice");
  EXPECT_EQ(file_name_for("../etc/passwd"), "_._etc_passwd");
  EXPECT_EQ(file_name_for("a b/c"), "a_b_c");
  EXPECT_EQ(file_name_for("grace@example.edu+1912"), "grace@example.edu+1912");
}

TEST_F(InventoryTest, SubmissionHashFollowsContentNotTime) {
  write("a/vector_add.cu", "one");
  write("a/sub/notes.md", "two");
  const std::string first = hash_submission(dir_ / "a");
  EXPECT_EQ(hash_submission(dir_ / "a"), first);
  fs::last_write_time(dir_ / "a/vector_add.cu", fs::file_time_type::clock::now() - std::chrono::hours(5));
  EXPECT_EQ(hash_submission(dir_ / "a"), first) << "a new modification time is not a change";
  write("a/vector_add.cu", "One");
  EXPECT_NE(hash_submission(dir_ / "a"), first);
  write("a/vector_add.cu", "one");
  fs::rename(dir_ / "a/sub/notes.md", dir_ / "a/sub/notes2.md");
  EXPECT_NE(hash_submission(dir_ / "a"), first) << "a renamed file is a change";
}

}  // namespace
