// What `labgrade serve` refuses, each with its HTTP status and the sentence `labgrade submit`
// prints: a bad or revoked token, the rate limit, an oversize upload, a malformed archive, an
// unknown lab or mode, another student's submission, and a request that never finishes.
#include <filesystem>
#include <chrono>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>

#include "serve_test_fixture.hpp"

namespace {

using namespace serve_test;

TEST_F(ServeCli, RefusesABadOrRevokedToken) {
  const auto service = serve();
  const ProcessResult bad = submit(service->url(), "clt_not_a_token", kFixtures / "syntax_error");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("the server refused it (HTTP 401): this token is not valid"), std::string::npos)
      << bad.output;
  const ProcessResult none = submit(service->url(), "", kFixtures / "syntax_error");
  EXPECT_EQ(none.exit_code, 2) << none.output;
  EXPECT_NE(none.output.find("no token: set LABGRADE_TOKEN or give --token-file"), std::string::npos) << none.output;

  const ProcessResult revoked = labgrade({"tokens", "revoke", "--data", data().string(), "bob"});
  ASSERT_EQ(revoked.exit_code, 0) << revoked.output;
  const ProcessResult after = submit(service->url(), bob_, kFixtures / "syntax_error");
  EXPECT_EQ(after.exit_code, 2) << after.output;
  EXPECT_NE(after.output.find("HTTP 401"), std::string::npos) << after.output;
}


TEST_F(ServeCli, RateLimitPerToken) {
  const auto service = serve({"--rate", "2"});
  EXPECT_EQ(submit(service->url(), alice_, kFixtures / "syntax_error", {"--check"}).exit_code, 6);
  EXPECT_EQ(submit(service->url(), alice_, kFixtures / "syntax_error", {"--check"}).exit_code, 6);
  const ProcessResult third = submit(service->url(), alice_, kFixtures / "syntax_error", {"--check"});
  EXPECT_EQ(third.exit_code, 2) << third.output;
  EXPECT_NE(third.output.find("(HTTP 429): rate limit: 2 submissions in 60 minutes"), std::string::npos) << third.output;
  // Per token: bob is not held back by alice.
  EXPECT_EQ(submit(service->url(), bob_, kFixtures / "syntax_error", {"--check"}).exit_code, 6);
}


TEST_F(ServeCli, RefusesOversizeMalformedAndUnknownLabWithTheirMessages) {
  const auto service = serve({"--max-upload-kib", "1"});
  // The CLI: an archive over the server's limit is not sent.
  const fs::path big = root_ / "big";
  fs::create_directories(big);
  {
    std::ofstream source(big / "vector_add.cu");
    std::mt19937_64 random(1);
    source << "// noise that does not compress:\n";
    for (int line = 0; line < 200; ++line) source << "// " << random() << random() << "\n";
  }
  const ProcessResult oversize = submit(service->url(), alice_, big);
  EXPECT_EQ(oversize.exit_code, 4) << oversize.output;
  EXPECT_NE(oversize.output.find("nothing was sent: the archive is"), std::string::npos) << oversize.output;
  EXPECT_NE(oversize.output.find("the server takes at most 1024"), std::string::npos) << oversize.output;

  // HTTP, as another client would send them.
  httplib::Client client(service->url());
  const std::string path = std::string("/api/v1/labs/") + kLab + "/submissions?mode=grade";
  const auto too_large = client.Post(path, bearer(alice_), std::string(4000, 'x'), "application/gzip");
  ASSERT_TRUE(too_large);
  EXPECT_EQ(too_large->status, 413);
  EXPECT_NE(too_large->body.find("larger than this server's limit of 1024 bytes"), std::string::npos) << too_large->body;
  const auto malformed = client.Post(path, bearer(alice_), "not a tar.gz", "application/gzip");
  ASSERT_TRUE(malformed);
  EXPECT_EQ(malformed->status, 422);
  EXPECT_NE(malformed->body.find("is not a gzip-compressed tar archive"), std::string::npos) << malformed->body;
  const auto unknown = client.Post("/api/v1/labs/99_unknown/submissions", bearer(alice_), packed(kFixtures / "syntax_error"),
                                   "application/gzip");
  ASSERT_TRUE(unknown);
  EXPECT_EQ(unknown->status, 404);
  EXPECT_NE(unknown->body.find("unknown lab '99_unknown'; the labs are: 01_vector_add"), std::string::npos)
      << unknown->body;
  const auto mode = client.Post("/api/v1/labs/01_vector_add/submissions?mode=final", bearer(alice_),
                                packed(kFixtures / "syntax_error"), "application/gzip");
  ASSERT_TRUE(mode);
  EXPECT_EQ(mode->status, 400);
  // None of them took a place in the queue or counted against the student.
  const auto lab = client.Get("/api/v1/labs/01_vector_add", bearer(alice_));
  ASSERT_TRUE(lab);
  EXPECT_EQ(json::parse(lab->body)["queue_length"], 0) << lab->body;
  EXPECT_EQ(json::parse(lab->body)["submissions_left_in_window"], 20) << lab->body;
}


TEST_F(ServeCli, OneStudentNeverReachesAnothersSubmission) {
  const auto service = serve();
  ASSERT_EQ(submit(service->url(), alice_, kFixtures / "syntax_error").exit_code, 0);
  httplib::Client client(service->url());
  const auto mine = client.Get("/api/v1/submissions/1/report.json", bearer(alice_));
  ASSERT_TRUE(mine);
  EXPECT_EQ(mine->status, 200);
  for (const std::string path : {"/api/v1/submissions/1", "/api/v1/submissions/1/report.json",
                                 "/api/v1/submissions/1/report.html", "/api/v1/submissions/1/report.txt"}) {
    const auto theirs = client.Get(path, bearer(bob_));
    ASSERT_TRUE(theirs);
    EXPECT_EQ(theirs->status, 404) << path;
    EXPECT_EQ(theirs->body.find("vector_add"), std::string::npos) << path << ": " << theirs->body;
  }
  // Each student's history lists their own submissions only.
  const ProcessResult alices = submit(service->url(), alice_, kFixtures / "syntax_error", {"--history"});
  EXPECT_EQ(alices.exit_code, 0) << alices.output;
  EXPECT_NE(alices.output.find("#1 "), std::string::npos) << alices.output;
  EXPECT_NE(alices.output.find("graded run  done     compile_error         0 / 100"), std::string::npos) << alices.output;
  const ProcessResult bobs = submit(service->url(), bob_, kFixtures / "syntax_error", {"--history"});
  EXPECT_EQ(bobs.exit_code, 0) << bobs.output;
  EXPECT_EQ(bobs.output.find("#1"), std::string::npos) << bobs.output;
  const auto anonymous = client.Get("/api/v1/submissions/1");
  ASSERT_TRUE(anonymous);
  EXPECT_EQ(anonymous->status, 401);
  const auto traversal = client.Get("/api/v1/submissions/1/..%2F..%2Fservice.sqlite", bearer(alice_));
  ASSERT_TRUE(traversal);
  EXPECT_EQ(traversal->status, 404);
}



// A client that starts a request and never finishes it is cut off after --request-timeout.
TEST_F(ServeCli, ASlowRequestIsCutOff) {
  const auto service = serve({"--request-timeout", "1"});
  const int port = std::stoi(service->url().substr(service->url().rfind(':') + 1));
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<std::uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
  const std::string partial = "POST /api/v1/labs/01_vector_add/submissions HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nabc";
  ASSERT_EQ(::send(fd, partial.data(), partial.size(), MSG_NOSIGNAL), static_cast<ssize_t>(partial.size()));
  timeval wait{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait);
  const auto start = std::chrono::steady_clock::now();
  char buffer[4096];
  const ssize_t got = ::recv(fd, buffer, sizeof buffer, 0);  // the refusal, or the connection closed
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::close(fd);
  EXPECT_GE(got, 0) << "the server neither answered nor closed the connection within 5 s";
  EXPECT_LT(seconds, 3.0) << "the request was not cut off after its 1 s";
  if (got > 0) {
    EXPECT_EQ(std::string(buffer, static_cast<std::size_t>(got)).rfind("HTTP/1.1 4", 0), 0u);
  }
  // The service still answers others.
  httplib::Client client(service->url());
  const auto health = client.Get("/api/v1/health");
  ASSERT_TRUE(health);
  EXPECT_EQ(health->status, 200);
}


}  // namespace
