#pragma once
// The HTTP interface between `labgrade serve` and `labgrade submit --server`, one place for both
// sides (the client is in every build, the student's included; the service only in the
// instructor's). JSON bodies; every error is {"error": "<one sentence>"} with its HTTP status.
//
//   GET  /api/v1/labs/<lab>                      the lab's modes and limits for this token
//   POST /api/v1/labs/<lab>/submissions?mode=M   body: the .tar.gz that `labgrade submit` packs
//                                                -> 202 {"id", "position"}
//   GET  /api/v1/labs/<lab>/submissions          this student's submissions of the lab, oldest first
//   GET  /api/v1/submissions/<id>                state, queue position, status, points
//   GET  /api/v1/submissions/<id>/<report file>  report.txt, report.json, report.html, results.json...
//   GET  /api/v1/health                          "ok" (no token)
#include <string_view>

namespace labgrade::service_api {

inline constexpr std::string_view kPrefix = "/api/v1";
inline constexpr std::string_view kTokenHeader = "Authorization";  // "Bearer <token>"
// A bridge's token (Gradescope) names the student it submits for; ignored with a student's token.
inline constexpr std::string_view kOnBehalfHeader = "X-Labgrade-Student";
inline constexpr std::string_view kArchiveType = "application/gzip";
inline constexpr std::string_view kTokenEnvironment = "LABGRADE_TOKEN";

// A submission's mode: a self-check (public tests, timing preview) or a graded run.
inline constexpr std::string_view kModeCheck = "check";
inline constexpr std::string_view kModeGrade = "grade";

// A submission's state in the queue.
inline constexpr std::string_view kQueued = "queued";
inline constexpr std::string_view kRunning = "running";
inline constexpr std::string_view kDone = "done";

}  // namespace labgrade::service_api
