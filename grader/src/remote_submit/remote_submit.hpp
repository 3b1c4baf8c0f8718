#pragma once
// `labgrade submit <lab> --server URL`: packs the student files as `labgrade submit` does,
// uploads them to `labgrade serve` with the student's token, follows the queue, prints the text
// report and saves the HTML one. Needs neither CUDA nor a GPU on this machine.
#include <filesystem>
#include <ostream>
#include <string>

#include "release/submission_archive.hpp"

namespace labgrade {

struct RemoteSubmitOptions {
  std::string server;                 // http://host:port or https://host
  bool check = false;                 // a self-check (public tests) rather than a graded run
  std::filesystem::path token_file;   // else $LABGRADE_TOKEN
  std::filesystem::path html;         // empty: <lab>-report-<id>.html here
  std::filesystem::path json;         // the JSON report too, when set
  std::filesystem::path gradescope;   // Gradescope's results.json, when set (graded runs only)
  bool history = false;               // list the student's submissions of the lab instead of submitting
  double poll_seconds = 1;
  double wait_minutes = 120;          // then give up waiting (the grade still happens on the server)
};

// The exit code: the grade's (0 graded, 1 tests failed, 4 rejected, ...; `labgrade --help`), 2
// for a refusal by the server (bad token, unknown lab, rate limit), 4 for an upload it would not
// take (too large, not an archive), 7 when the server cannot be reached or fails. Messages on `err`.
int submit_to_server(const CoursePaths& paths, const SubmitRequest& pack, const RemoteSubmitOptions& options,
                     std::ostream& out, std::ostream& err);

}  // namespace labgrade
