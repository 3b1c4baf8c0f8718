#include "remote_submit/remote_submit.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "cudalabs/course/timestamp.hpp"
#include "model/exit_codes.hpp"
#include "remote_submit/service_api.hpp"
#include "stage/submission_error.hpp"
#include "text/whole_file.hpp"

namespace labgrade {
namespace fs = std::filesystem;
namespace api = service_api;
using nlohmann::json;

namespace {

constexpr int kRefusedExitCode = kUsageExitCode;
constexpr int kRejectedExitCode = static_cast<int>(RunStatus::SubmissionRejected);

// Ends the command with its exit code and the message already shaped for the student.
struct SubmitFailure : std::runtime_error {
  SubmitFailure(int exit_code, const std::string& message) : std::runtime_error(message), code(exit_code) {}
  int code;
};

std::string read_token(const RemoteSubmitOptions& options) {
  std::string token;
  if (!options.token_file.empty()) {
    std::ifstream in(options.token_file);
    if (!in) throw SubmitFailure{kRefusedExitCode, fmt::format("cannot read the token file {}", options.token_file.string())};
    std::getline(in, token);
  } else if (const char* value = std::getenv(std::string(api::kTokenEnvironment).c_str())) {
    token = value;
  }
  while (!token.empty() && std::isspace(static_cast<unsigned char>(token.back()))) token.pop_back();
  if (token.empty()) {
    throw SubmitFailure{kRefusedExitCode, fmt::format("no token: set {} or give --token-file (your instructor issues "
                                                      "them)", api::kTokenEnvironment)};
  }
  return token;
}

void save(const fs::path& file, const std::string& content) {
  std::ofstream out(file, std::ios::binary);
  out << content;
  if (!out) throw SubmitFailure{kInternalExitCode, fmt::format("cannot write {}", file.string())};
}

// A fresh folder for the archive, removed at the end of the scope.
class ScratchFolder {
 public:
  ScratchFolder() {
    std::string pattern = (fs::temp_directory_path() / "labgrade-remote-submit-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a directory under " + pattern);
    path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

class ServiceClient {
 public:
  ServiceClient(const std::string& server, std::string token) : server_(server), client_(server) {
    if (!client_.is_valid()) {
      throw SubmitFailure{kRefusedExitCode, fmt::format("{} is not a server address this labgrade can use (http://HOST:PORT"
                                                        "{})", server, https_note())};
    }
    client_.set_connection_timeout(10, 0);
    client_.set_read_timeout(60, 0);
    client_.set_write_timeout(60, 0);
    headers_ = {{std::string(api::kTokenHeader), "Bearer " + std::move(token)}};
  }

  json get_json(const std::string& path) { return parse(checked(client_.Get(path, headers_), "GET " + path)); }
  std::optional<std::string> get_file(const std::string& path) {
    httplib::Result result = client_.Get(path, headers_);
    if (result && result->status == 404) return std::nullopt;
    return checked(std::move(result), "GET " + path);
  }
  json post_archive(const std::string& path, const std::string& archive, std::size_t limit) {
    httplib::Result result = client_.Post(path, headers_, archive, std::string(api::kArchiveType));
    if (!result && archive.size() > limit / 2) {
      throw SubmitFailure{kRejectedExitCode,
                          fmt::format("the upload of {} bytes broke off ({}): the server takes at most {} bytes",
                                      archive.size(), httplib::to_string(result.error()), limit)};
    }
    return parse(checked(std::move(result), "the upload"));
  }

 private:
  static std::string https_note() {
#ifdef CPPHTTPLIB_OPENSSL_SUPPORT
    return " or https://HOST";
#else
    return "; https:// needs a cpp-httplib built with OpenSSL";
#endif
  }

  std::string checked(httplib::Result result, const std::string& what) {
    if (!result) {
      throw SubmitFailure{kInternalExitCode, fmt::format("cannot reach {} ({}: {}); is the address right and the "
                                                         "service running?", server_, what,
                                                         httplib::to_string(result.error()))};
    }
    if (result->status < 400) return result->body;
    const json body = json::parse(result->body, nullptr, false);
    const std::string message = body.is_object() && body.contains("error") && body["error"].is_string()
                                    ? body["error"].get<std::string>()
                                    : fmt::format("HTTP {}", result->status);
    const int code = result->status == 413 || result->status == 422 ? kRejectedExitCode
                     : result->status >= 500                       ? kInternalExitCode
                                                                    : kRefusedExitCode;
    throw SubmitFailure{code, fmt::format("the server refused it (HTTP {}): {}", result->status, message)};
  }

  json parse(const std::string& body) {
    json parsed = json::parse(body, nullptr, false);
    if (parsed.is_discarded() || !parsed.is_object()) {
      throw SubmitFailure{kInternalExitCode, fmt::format("{} answered something that is not labgrade serve's JSON", server_)};
    }
    return parsed;
  }

  std::string server_;
  httplib::Client client_;
  httplib::Headers headers_;
};

std::string prefix() { return std::string(api::kPrefix); }

// Waits for the grade, saying where the submission is in the queue when that changes.
json follow(ServiceClient& client, std::int64_t id, const RemoteSubmitOptions& options, std::ostream& err) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(static_cast<long long>(options.wait_minutes * 60000));
  std::string last;
  const auto start = std::chrono::steady_clock::now();
  double pause = std::min(0.25, options.poll_seconds);
  for (;;) {
    json state = client.get_json(fmt::format("{}/submissions/{}", prefix(), id));
    const std::string now = state.value("state", "");
    if (now == api::kDone) return state;
    const std::string line = now == api::kQueued ? fmt::format("queued: {} ahead of it", state.value("position", 0))
                                                 : std::string("being graded");
    if (line != last) err << fmt::format("labgrade submit: #{} {}\n", id, line) << std::flush;
    last = line;
    if (std::chrono::steady_clock::now() > deadline) {
      throw SubmitFailure{kInternalExitCode, fmt::format("gave up waiting after {} minutes; #{} is still {} on the "
                                                         "server: run the same command later", options.wait_minutes, id, now)};
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(static_cast<long long>(pause * 1000)));
    // Every quarter second at first, so a quick grade (a compile error) is seen at once; then
    // every poll_seconds.
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(10)) pause = options.poll_seconds;
  }
}

// One line per submission: "#12  2026-10-01T10:00:00Z  graded run  done  graded  80 / 100".
int print_history(ServiceClient& client, const std::string& lab, std::ostream& out) {
  const json list = client.get_json(fmt::format("{}/labs/{}/submissions", prefix(), lab));
  const json info = client.get_json(fmt::format("{}/labs/{}", prefix(), lab));
  for (const json& job : list.value("submissions", json::array())) {
    const bool done = job.value("state", "") == api::kDone;
    const std::string points =
        done && job.contains("points_earned") && job["points_earned"].is_number()
            ? fmt::format("{:g} / {:g}", job["points_earned"].get<double>(), job.value("points_possible", 0.0))
            : std::string();
    out << fmt::format("#{:<5} {}  {:<10}  {:<7}  {:<20}  {}\n", job.value("id", 0),
                       cudalabs::config::format_timestamp_utc(job.value("received_at", std::int64_t{0})),
                       job.value("mode", "") == api::kModeGrade ? "graded run" : "self-check", job.value("state", ""),
                       done ? job.value("status", "") : std::string(), points);
  }
  if (info.contains("graded_runs_left") && info["graded_runs_left"].is_number()) {
    out << fmt::format("graded runs left: {}\n", info["graded_runs_left"].get<std::uint64_t>());
  }
  return 0;
}

int submit(const CoursePaths& paths, const SubmitRequest& pack, const RemoteSubmitOptions& options,
           std::ostream& out, std::ostream& err) {
  const std::string token = read_token(options);
  if (options.history) {
    ServiceClient client(options.server, token);
    return print_history(client, pack.lab, out);
  }
  const ScratchFolder scratch;
  SubmitRequest request = pack;
  if (request.archive.empty()) request.archive = scratch.path() / (pack.lab + ".tar.gz");
  SubmissionArchive packed;
  try {
    packed = pack_submission(paths, request);
  } catch (const SubmissionError& error) {
    throw SubmitFailure{kRejectedExitCode, fmt::format("nothing was sent: {}", error.what())};
  }
  const std::string archive = read_whole_file(packed.archive);

  ServiceClient client(options.server, token);
  const json lab = client.get_json(fmt::format("{}/labs/{}", prefix(), pack.lab));
  const std::size_t limit = lab.value("max_upload_bytes", std::size_t{0});
  if (limit > 0 && archive.size() > limit) {
    throw SubmitFailure{kRejectedExitCode, fmt::format("nothing was sent: the archive is {} bytes and the server takes "
                                                       "at most {}", archive.size(), limit)};
  }
  const std::string mode(options.check ? api::kModeCheck : api::kModeGrade);
  const json queued = client.post_archive(fmt::format("{}/labs/{}/submissions?mode={}", prefix(), pack.lab, mode),
                                          archive, limit ? limit : archive.size() * 2);
  const std::int64_t id = queued.value("id", std::int64_t{0});
  err << fmt::format("labgrade submit: sent {} ({}) as #{} ({}, {} bytes, sha256 {})\n", pack.lab,
                     fmt::join(packed.files, ", "), id, options.check ? "self-check" : "graded run", archive.size(),
                     packed.sha256);
  if (queued.contains("graded_runs_left")) {
    err << fmt::format("labgrade submit: graded runs of {} left after this one: {}\n", pack.lab,
                       queued["graded_runs_left"].get<std::uint64_t>());
  }
  const json done = follow(client, id, options, err);

  const std::string base = fmt::format("{}/submissions/{}/", prefix(), id);
  if (const auto text = client.get_file(base + "report.txt")) out << *text << std::flush;
  const fs::path html = options.html.empty() ? fs::path(fmt::format("{}-report-{}.html", pack.lab, id)) : options.html;
  if (const auto page = client.get_file(base + "report.html")) {
    save(html, *page);
    err << fmt::format("labgrade submit: HTML report in {}\n", html.string());
  }
  if (!options.json.empty()) {
    if (const auto report = client.get_file(base + "report.json")) save(options.json, *report);
  }
  if (!options.gradescope.empty()) {
    const auto results = client.get_file(base + "results.json");
    if (!results) {
      throw SubmitFailure{done.value("exit_code", kInternalExitCode) == 0 ? kInternalExitCode
                                                                          : done.value("exit_code", kInternalExitCode),
                          fmt::format("no Gradescope results for #{} ({}: {}); none was written", id,
                                      done.value("status", ""), done.value("detail", ""))};
    }
    save(options.gradescope, *results);
  }
  return done.value("exit_code", kInternalExitCode);
}

}  // namespace

int submit_to_server(const CoursePaths& paths, const SubmitRequest& pack, const RemoteSubmitOptions& options,
                     std::ostream& out, std::ostream& err) {
  try {
    return submit(paths, pack, options, out, err);
  } catch (const SubmitFailure& failure) {
    err << "labgrade submit: " << failure.what() << "\n";
    return failure.code;
  }
}

}  // namespace labgrade
