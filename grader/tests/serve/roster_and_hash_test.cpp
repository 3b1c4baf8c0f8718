// The service's pieces that need no server: SHA-256 (tokens are stored hashed), the roster CSV,
// and the store's promises (a token works until revoked; the queue survives a reopen).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "model/exit_codes.hpp"
#include "serve/roster_csv.hpp"
#include "serve/service_store.hpp"
#include "serve/sha256.hpp"

namespace {
namespace fs = std::filesystem;
using namespace labgrade::serve;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("serve_unit_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(Sha256, KnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Roster, TakesTheStudentIdColumnAndRefusesEmptyIds) {
  const fs::path dir = scratch("roster");
  std::ofstream(dir / "lms.csv") << "\xEF\xBB\xBFName,Student_ID,Email\r\n\"Doe, Jane\",jdoe,j@x\r\nBob,bob,b@x\r\nBob,bob,b@x\r\n";
  EXPECT_EQ(read_roster(dir / "lms.csv"), (std::vector<std::string>{"jdoe", "bob"}));
  std::ofstream(dir / "plain.csv") << "alice\ncarol\n";
  EXPECT_EQ(read_roster(dir / "plain.csv"), (std::vector<std::string>{"alice", "carol"}));
  std::ofstream(dir / "hole.csv") << "sid,name\nalice,A\n,B\n";
  try {
    read_roster(dir / "hole.csv");
    FAIL() << "an empty id was taken";
  } catch (const labgrade::UsageError& error) {
    EXPECT_NE(std::string(error.what()).find("hole.csv, line 3: the student id is empty"), std::string::npos) << error.what();
  }
}

TEST(ServiceStore, TokensAreHashedAndRevocable) {
  const fs::path dir = scratch("tokens");
  ServiceStore store(dir);
  const std::string token = store.issue_token("alice", false);
  ASSERT_EQ(token.rfind("clt_", 0), 0u);
  EXPECT_EQ(store.issue_token("alice", false), "") << "a second token without --reissue";
  EXPECT_EQ(store.student_for_token(token), "alice");
  EXPECT_EQ(store.student_for_token(token + "x"), std::nullopt);
  std::ifstream in(dir / "service.sqlite", std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes.find(token), std::string::npos) << "the token is stored in clear";
  EXPECT_TRUE(store.revoke_token("alice"));
  EXPECT_EQ(store.student_for_token(token), std::nullopt);
  EXPECT_FALSE(store.revoke_token("alice"));
  const std::string again = store.issue_token("alice", false);
  EXPECT_EQ(store.student_for_token(again), "alice");
}

TEST(ServiceStore, ARunningSubmissionIsQueuedAgainAfterARestartAndADoneOneIsNot) {
  const fs::path dir = scratch("queue");
  std::int64_t first = 0, second = 0;
  {
    ServiceStore store(dir);
    first = store.enqueue("alice", "01_vector_add", "grade", "archive one");
    second = store.enqueue("bob", "01_vector_add", "check", "archive two");
    const auto job = store.claim_next();
    ASSERT_TRUE(job && job->id == first);
    JobOutcome outcome;
    outcome.status = "graded";
    outcome.points_earned = 42;
    outcome.points_possible = 100;
    outcome.reports["report.txt"] = "forty-two\n";
    store.finish(first, outcome);
    ASSERT_TRUE(store.claim_next());  // the second, running when the service "dies"
  }
  ServiceStore store(dir);
  EXPECT_EQ(store.requeue_interrupted(), 1u);
  const auto next = store.claim_next();
  ASSERT_TRUE(next);
  EXPECT_EQ(next->id, second);
  EXPECT_FALSE(store.claim_next()) << "the done submission was queued again";
  EXPECT_EQ(store.report_of(first, "alice", "report.txt"), "forty-two\n");
  EXPECT_EQ(store.report_of(first, "bob", "report.txt"), std::nullopt) << "bob reads alice's report";
  EXPECT_FALSE(store.job_of(first, "bob"));
  std::ifstream archive(store.uploads() / (std::to_string(second) + ".tar.gz"));
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(archive)), std::istreambuf_iterator<char>()), "archive two");
}

}  // namespace
