// What counts against a student's graded runs (lab YAML service.graded_runs_max): only runs that
// ended with a grade; no GPU, a machine too busy to time fairly, or labgrade's failure do not.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "remote_submit/service_api.hpp"
#include "serve/service_store.hpp"

namespace labgrade::serve {
namespace {
namespace fs = std::filesystem;

TEST(ServiceStore, RunsThatWereNoGradeDoNotCountAgainstTheStudent) {
  const fs::path dir = fs::path(::testing::TempDir()) / "service_store_counted_runs";
  fs::remove_all(dir);
  ServiceStore store(dir);
  const auto run_ending = [&](const std::string& status, std::optional<double> points) {
    store.enqueue("ada", "01_vector_add", std::string(service_api::kModeGrade), "archive");
    const std::optional<Job> job = store.claim_next();
    ASSERT_TRUE(job);
    JobOutcome outcome;
    outcome.status = status;
    outcome.points_earned = points;
    outcome.points_possible = 100;
    store.finish(job->id, outcome);
  };
  run_ending("graded", 80);
  run_ending("no_cuda_device", std::nullopt);
  run_ending("machine_busy", std::nullopt);
  run_ending("error", std::nullopt);
  run_ending("graded", 90);
  EXPECT_EQ(store.counted_runs("ada", "01_vector_add", std::string(service_api::kModeGrade), 0), 2u);
}

}  // namespace
}  // namespace labgrade::serve
