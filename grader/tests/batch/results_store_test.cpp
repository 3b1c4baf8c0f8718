// The results database: a row stands only for the same files, configuration and a final status;
// saving replaces a student's row; shards merge into the main database; another lab's is refused.
#include <filesystem>

#include <gtest/gtest.h>

#include "batch/results_store.hpp"

namespace {

namespace fs = std::filesystem;
using namespace labgrade::batch;

class ResultsStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) / ("results_store_" + std::string(
                                                 ::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  fs::path dir_;
};

SubmissionRow row(const std::string& id, const std::string& status, double points) {
  SubmissionRow r;
  r.student_id = id;
  r.name = id + " name";
  r.source = "/subs/" + id;
  r.files_hash = "files-" + id;
  r.config_hash = "config";
  r.status = status;
  r.detail = "why";
  r.raw_points = points;
  r.total = points;
  r.points_possible = 100;
  r.tests = {{"A.One", false, "passed", points, 50, {}, {}}, {"Performance.fast", true, "passed", 0, 50, 2.5, 1.25}};
  return r;
}

TEST_F(ResultsStoreTest, FinalResultsStandOnlyForTheSameHashes) {
  ResultsStore store(dir_ / "results.sqlite", "01_vector_add");
  store.save(row("alice", status::kGraded, 40));
  store.save(row("bob", status::kNoCudaDevice, 0));
  store.save(row("dora", status::kMachineBusy, 0));
  EXPECT_TRUE(store.has_final_result("alice", "files-alice", "config"));
  EXPECT_FALSE(store.has_final_result("dora", "files-dora", "config")) << "timed on a busy machine: graded again";
  EXPECT_FALSE(store.has_final_result("alice", "files-changed", "config"));
  EXPECT_FALSE(store.has_final_result("alice", "files-alice", "other config"));
  EXPECT_FALSE(store.has_final_result("bob", "files-bob", "config")) << "no GPU is not a grade";
  EXPECT_FALSE(store.has_final_result("carol", "files-carol", "config"));
}

TEST_F(ResultsStoreTest, SavingReplacesAndRowsComeBackWhole) {
  {
    ResultsStore store(dir_ / "results.sqlite", "01_vector_add");
    store.save(row("alice", status::kCompileError, 0));
    SubmissionRow again = row("alice", status::kGraded, 45);
    again.late_days = 1;
    again.submitted_at = 1790924340;
    again.tests.pop_back();
    store.save(again);
  }
  ResultsStore reopened(dir_ / "results.sqlite", "01_vector_add");  // what a resumed batch sees
  const auto rows = reopened.load_all();
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].status, status::kGraded);
  EXPECT_EQ(rows[0].total, 45);
  EXPECT_EQ(rows[0].late_days, 1);
  EXPECT_EQ(rows[0].submitted_at, 1790924340);
  ASSERT_EQ(rows[0].tests.size(), 1u);
  EXPECT_EQ(rows[0].tests[0].name, "A.One");
}

TEST_F(ResultsStoreTest, ShardsMergeAndLaterResultsWin) {
  ResultsStore main_store(dir_ / "results.sqlite", "01_vector_add");
  main_store.save(row("alice", status::kNoCudaDevice, 0));
  {
    ResultsStore shard(dir_ / "task-0.sqlite", "01_vector_add");
    shard.save(row("alice", status::kGraded, 50));
    shard.save(row("bob", status::kRejected, 0));
  }
  EXPECT_EQ(main_store.merge_from(dir_ / "task-0.sqlite"), 2u);
  EXPECT_EQ(main_store.merge_from(dir_ / "task-0.sqlite"), 2u) << "merging twice changes nothing";
  const auto rows = main_store.load_all();
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].student_id, "alice");
  EXPECT_EQ(rows[0].status, status::kGraded);
  ASSERT_EQ(rows[0].tests.size(), 2u);
  EXPECT_EQ(rows[0].tests[1].student_ms, 2.5);
  EXPECT_EQ(rows[1].student_id, "bob");
}

TEST_F(ResultsStoreTest, AnotherLabsDatabaseIsRefused) {
  { ResultsStore store(dir_ / "results.sqlite", "01_vector_add"); }
  EXPECT_THROW(ResultsStore(dir_ / "results.sqlite", "02_image"), std::runtime_error);
  {
    ResultsStore shard(dir_ / "shard.sqlite", "02_image");
  }
  ResultsStore store(dir_ / "results.sqlite", "01_vector_add");
  EXPECT_THROW(store.merge_from(dir_ / "shard.sqlite"), std::runtime_error);
}

TEST_F(ResultsStoreTest, PseudonymSecretIsMadeOnceAndKept) {
  ResultsStore store(dir_ / "results.sqlite", "01_vector_add");
  const std::string secret = store.pseudonym_secret();
  EXPECT_EQ(secret.size(), 32u);
  EXPECT_EQ(store.pseudonym_secret(), secret);
}

}  // namespace
