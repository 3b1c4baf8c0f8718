#include "serve/service_gradebook.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "cudalabs/course/timestamp.hpp"
#include "remote_submit/service_api.hpp"

namespace labgrade::serve {
namespace api = service_api;

namespace {

std::string cell(const std::string& text) {
  std::string value = text;
  if (!value.empty() && std::string("=+-@").find(value.front()) != std::string::npos) value = "'" + value;
  if (value.find_first_of(",\"\r\n") == std::string::npos) return value;
  std::string quoted = "\"";
  for (const char c : value) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::string number(const std::optional<double>& value) { return value ? fmt::format("{:g}", *value) : ""; }

struct StudentLine {
  const Job* last_graded = nullptr;
  std::optional<double> best;
  double points_possible = 0;
  int graded_runs = 0;
  int self_checks = 0;
  int pending = 0;
};

}  // namespace

void write_service_gradebook(std::ostream& out, const ServiceStore& store, const std::string& lab) {
  const std::vector<Job> jobs = store.jobs_of_lab(lab);  // by student, oldest first
  std::map<std::string, StudentLine> lines;
  for (const Job& job : jobs) {
    StudentLine& line = lines[job.student_id];
    if (job.state != api::kDone) {
      ++line.pending;
      continue;
    }
    if (job.mode == api::kModeCheck) {
      ++line.self_checks;
      continue;
    }
    if (!job.points_earned) continue;  // no grade: no GPU, labgrade's failure
    ++line.graded_runs;
    line.last_graded = &job;
    line.points_possible = job.points_possible;
    line.best = std::max(line.best.value_or(*job.points_earned), *job.points_earned);
  }
  out << "student_id,last_graded_points,points_possible,last_graded_status,last_graded_at,best_graded_points,"
         "graded_runs,self_checks,pending\r\n";
  for (const auto& [student, line] : lines) {
    const Job* last = line.last_graded;
    out << fmt::format("{},{},{},{},{},{},{},{},{}\r\n", cell(student), last ? number(last->points_earned) : "",
                       last ? number(line.points_possible) : "", last ? cell(last->status) : "",
                       last ? cudalabs::config::format_timestamp_utc(last->received_at) : "", number(line.best),
                       line.graded_runs, line.self_checks, line.pending);
  }
}

}  // namespace labgrade::serve
