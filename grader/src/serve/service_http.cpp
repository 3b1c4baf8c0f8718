#include "serve/service_http.hpp"

#include <algorithm>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <httplib.h>
#include <nlohmann/json.hpp>

#include "cudalabs/course/lab_config.hpp"
#include "remote_submit/service_api.hpp"
#include "serve/lab_policy.hpp"
#include "stage/scratch_folder.hpp"
#include "stage/archive_extract.hpp"
#include "stage/submission_error.hpp"

namespace labgrade::serve {
namespace api = service_api;
using nlohmann::json;

namespace {

void reply(httplib::Response& response, int status, const json& body) {
  response.status = status;
  response.set_content(body.dump(2, ' ', false, json::error_handler_t::replace) + "\n", "application/json");
}

void refuse(httplib::Response& response, int status, const std::string& message) {
  reply(response, status, {{"error", message}});
}

// The body of an error that no route wrote (httplib's own: 413, 404 of an unknown path, ...).
std::string default_error(int status, std::size_t max_upload_bytes) {
  switch (status) {
    case 413: return fmt::format("the upload is larger than this server's limit of {} bytes", max_upload_bytes);
    case 404: return "no such address on this server (see labgrade submit --help)";
    case 400: return "the request is malformed";
    default: return fmt::format("the server refused the request (HTTP {})", status);
  }
}

bool is_student_id(const std::string& id) {
  return !id.empty() && id.size() <= 128 &&
         std::all_of(id.begin(), id.end(), [](unsigned char c) { return c >= 0x20 && c != 0x7f; });
}

std::string token_of(const httplib::Request& request) {
  const std::string header = request.get_header_value(std::string(api::kTokenHeader));
  constexpr std::string_view kBearer = "Bearer ";
  return header.rfind(kBearer, 0) == 0 ? header.substr(kBearer.size()) : std::string();
}

json job_json(const Job& job, std::size_t position) {
  json body{{"id", job.id}, {"lab", job.lab}, {"mode", job.mode}, {"state", job.state},
            {"received_at", job.received_at}};
  if (job.state == api::kQueued) body["position"] = position;
  if (job.state == api::kDone) {
    body["status"] = job.status;
    body["detail"] = job.detail;
    body["points_earned"] = job.points_earned ? json(*job.points_earned) : json(nullptr);
    body["points_possible"] = job.points_possible;
    body["exit_code"] = job.exit_code.value_or(7);
    body["grade_seconds"] = job.grade_seconds;
  }
  return body;
}

// Refuses an archive that would not unpack safely (the grade would refuse it the same way), before
// it takes a place in the queue. Throws SubmissionError with the reason.
void check_archive(const std::string& bytes) {
  const ScratchFolder scratch("labgrade-serve-upload");
  const auto archive = scratch.path() / "upload.tar.gz";
  std::ofstream(archive, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  extract_archive(archive, scratch.path() / "files", ArchiveLimits{});
}

}  // namespace

ServiceHttp::ServiceHttp(const CoursePaths& paths, ServiceStore& store, const ServiceLimits& limits, Queued queued)
    : paths_(paths), store_(store), limits_(limits), queued_(std::move(queued)),
      server_(std::make_unique<httplib::Server>()) {
  server_->set_payload_max_length(limits_.max_upload_bytes);
  server_->set_read_timeout(limits_.request_timeout_seconds, 0);
  server_->set_write_timeout(limits_.request_timeout_seconds, 0);
  server_->set_keep_alive_timeout(5);
  server_->set_error_handler([max = limits_.max_upload_bytes](const httplib::Request&, httplib::Response& response) {
    if (response.body.empty()) refuse(response, response.status, default_error(response.status, max));
  });
  server_->set_exception_handler([](const httplib::Request&, httplib::Response& response, std::exception_ptr error) {
    std::string what = "unknown error";
    try {
      std::rethrow_exception(error);
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
    }
    refuse(response, 500, "the server failed on this request: " + what);
  });
  add_routes();
}

ServiceHttp::~ServiceHttp() = default;

int ServiceHttp::bind(const std::string& host, int port) {
  const int bound = port == 0 ? server_->bind_to_any_port(host) : (server_->bind_to_port(host, port) ? port : -1);
  if (bound <= 0) throw std::runtime_error(fmt::format("cannot listen on {}:{} (in use, or not an address here)", host, port));
  return bound;
}

void ServiceHttp::listen() { server_->listen_after_bind(); }
void ServiceHttp::stop() { server_->stop(); }

void ServiceHttp::add_routes() {
  const std::string prefix(api::kPrefix);
  // The student behind the request's token, or a 401 written and nullopt.
  const auto student = [this](const httplib::Request& request, httplib::Response& response) -> std::optional<std::string> {
    const std::string token = token_of(request);
    if (token.empty()) {
      refuse(response, 401, "no token: send \"Authorization: Bearer <token>\" (labgrade submit reads LABGRADE_TOKEN "
                            "or --token-file)");
      return std::nullopt;
    }
    auto id = store_.student_for_token(token);
    if (!id) {
      refuse(response, 401, "this token is not valid (mistyped, or revoked): ask your instructor for a new one");
      return std::nullopt;
    }
    // A bridge's token (an id that begins with '@': `labgrade tokens bridge`) submits for the
    // students it names; they are kept apart as "@bridge/student". A student's token cannot.
    const std::string on_behalf = request.get_header_value(std::string(api::kOnBehalfHeader));
    if (id->front() == '@' && !on_behalf.empty()) {
      if (!is_student_id(on_behalf)) {
        refuse(response, 400, fmt::format("{} must be a student id: 1 to 128 printable characters", api::kOnBehalfHeader));
        return std::nullopt;
      }
      *id += "/" + on_behalf;
    }
    return id;
  };
  const auto known_lab = [this](const std::string& lab, httplib::Response& response) {
    const auto ids = paths_.lab_ids();
    if (std::find(ids.begin(), ids.end(), lab) != ids.end()) return true;
    refuse(response, 404, fmt::format("unknown lab '{}'; the labs are: {}", lab, fmt::join(ids, ", ")));
    return false;
  };

  server_->Get(prefix + "/health", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("ok\n", "text/plain");
  });

  server_->Get(prefix + R"(/labs/([A-Za-z0-9_.-]+))", [=](const httplib::Request& request, httplib::Response& response) {
    const auto who = student(request, response);
    if (!who || !known_lab(request.matches[1], response)) return;
    const std::int64_t since = unix_now() - limits_.window_seconds;
    const std::size_t used = store_.submissions_since(*who, since);
    const auto lab = cudalabs::config::load_lab_config(paths_.lab_config(request.matches[1]));
    const auto or_null = [](const std::optional<std::uint64_t>& value) { return value ? json(*value) : json(nullptr); };
    reply(response, 200,
          {{"lab", lab.id},
           {"title", lab.title},
           {"self_checks", lab.service.self_checks},
           {"graded_runs", lab.service.graded_runs},
           {"graded_runs_left", or_null(graded_runs_left(lab, store_, *who))},
           {"self_checks_left_this_hour", or_null(self_checks_left_this_hour(lab, store_, *who))},
           {"student_id", *who},
           {"modes", {api::kModeCheck, api::kModeGrade}},
           {"student_files", lab.student_files},
           {"max_upload_bytes", limits_.max_upload_bytes},
           {"submissions_left_in_window", used >= limits_.submissions_per_window ? 0 : limits_.submissions_per_window - used},
           {"window_seconds", limits_.window_seconds},
           {"queue_length", store_.queue_length()}});
  });

  server_->Post(prefix + R"(/labs/([A-Za-z0-9_.-]+)/submissions)",
                [=](const httplib::Request& request, httplib::Response& response) {
    const auto who = student(request, response);
    if (!who) return;
    const std::string lab = request.matches[1];
    if (!known_lab(lab, response)) return;
    const std::string mode = request.has_param("mode") ? request.get_param_value("mode") : std::string(api::kModeCheck);
    if (mode != api::kModeCheck && mode != api::kModeGrade) {
      refuse(response, 400, fmt::format("unknown mode '{}': {} or {}", mode, api::kModeCheck, api::kModeGrade));
      return;
    }
    const auto lab_config = cudalabs::config::load_lab_config(paths_.lab_config(lab));
    const std::lock_guard admission(admission_);  // the limits below hold for uploads that arrive together
    if (const auto refusal = refuse_by_lab_policy(lab_config, store_, *who, mode)) {
      refuse(response, refusal->http_status, refusal->message);
      return;
    }
    if (request.body.empty()) {
      refuse(response, 400, "the upload is empty: send the .tar.gz that `labgrade submit` packs");
      return;
    }
    if (request.body.size() > limits_.max_upload_bytes) {
      refuse(response, 413, default_error(413, limits_.max_upload_bytes));
      return;
    }
    const std::size_t used = store_.submissions_since(*who, unix_now() - limits_.window_seconds);
    if (used >= limits_.submissions_per_window) {
      response.set_header("Retry-After", std::to_string(limits_.window_seconds));
      refuse(response, 429,
             fmt::format("rate limit: {} submissions in {} minutes is this server's limit per student; try again later",
                         limits_.submissions_per_window, limits_.window_seconds / 60));
      return;
    }
    try {
      check_archive(request.body);
    } catch (const SubmissionError& error) {
      refuse(response, 422, error.what());
      return;
    }
    const std::int64_t id = store_.enqueue(*who, lab, mode, request.body);
    queued_();
    json accepted{{"id", id}, {"position", store_.position(id)}};
    if (mode == api::kModeGrade) {
      if (const auto runs = graded_runs_left(lab_config, store_, *who)) accepted["graded_runs_left"] = *runs;
    }
    reply(response, 202, accepted);
  });

  server_->Get(prefix + R"(/labs/([A-Za-z0-9_.-]+)/submissions)",
               [=](const httplib::Request& request, httplib::Response& response) {
    const auto who = student(request, response);
    if (!who || !known_lab(request.matches[1], response)) return;
    json list = json::array();
    for (const Job& job : store_.jobs_of_student(*who, request.matches[1])) list.push_back(job_json(job, store_.position(job.id)));
    reply(response, 200, {{"submissions", list}});
  });

  server_->Get(prefix + R"(/submissions/(\d{1,18}))", [=](const httplib::Request& request, httplib::Response& response) {
    const auto who = student(request, response);
    if (!who) return;
    const std::int64_t id = std::stoll(request.matches[1]);
    const auto job = store_.job_of(id, *who);  // another student's submission is as absent as a missing one
    if (!job) return refuse(response, 404, fmt::format("you have no submission #{}", id));
    reply(response, 200, job_json(*job, store_.position(id)));
  });

  server_->Get(prefix + R"(/submissions/(\d{1,18})/([a-z.]+))",
               [=](const httplib::Request& request, httplib::Response& response) {
    const auto who = student(request, response);
    if (!who) return;
    const std::int64_t id = std::stoll(request.matches[1]);
    const std::string file = request.matches[2];
    const auto report = store_.report_of(id, *who, file);
    if (!report) return refuse(response, 404, fmt::format("submission #{} of yours has no {} (yet)", id, file));
    const bool html = file.size() > 5 && file.compare(file.size() - 5, 5, ".html") == 0;
    const bool is_json = file.size() > 5 && file.compare(file.size() - 5, 5, ".json") == 0;
    response.set_content(*report, html ? "text/html; charset=utf-8"
                                       : is_json ? "application/json" : "text/plain; charset=utf-8");
  });
}

}  // namespace labgrade::serve
