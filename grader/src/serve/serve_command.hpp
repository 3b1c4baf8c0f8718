#pragma once
// `labgrade serve` and `labgrade tokens`: their options and what runs them (main.cpp only
// registers the subcommands).
#include <filesystem>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "serve/service_http.hpp"
#include "serve/slurm_grading.hpp"
#include "session/grading_session.hpp"

namespace labgrade::serve {

struct ServeCommand {
  std::filesystem::path data;  // service.sqlite, uploads/
  std::string host = "127.0.0.1";
  int port = 8642;
  ServiceLimits limits;
  std::size_t max_upload_kib = 1024;
  double window_minutes = 60;
  std::string gradebook;  // a lab: print its gradebook (service_gradebook.hpp) and exit
  SlurmSettings slurm;    // --slurm: grade each submission as a Slurm job (slurm_grading.hpp)
  std::int64_t grade_spooled = 0;  // a Slurm job's side: grade DATA/slurm/ID and exit
};

struct TokensCommand {
  CLI::App* issue = nullptr;
  CLI::App* revoke = nullptr;
  CLI::App* list = nullptr;
  CLI::App* bridge = nullptr;
  std::string bridge_name = "gradescope";  // bridge: its id is '@' + this
  std::filesystem::path data;
  std::filesystem::path roster;  // issue: a CSV with a student_id column (or ids in its first column)
  std::filesystem::path out;     // issue: where the new tokens go (student_id,token); never overwritten
  bool reissue = false;
  std::vector<std::string> students;  // revoke
};

CLI::App* add_serve_command(CLI::App& app, ServeCommand& command);
CLI::App* add_tokens_command(CLI::App& app, TokensCommand& command);

// Serves until SIGINT or SIGTERM (the grade under way finishes and is stored; a second signal
// ends at once, and the next start grades that submission again). Returns the exit code.
int run_serve_command(const CoursePaths& paths, const ServeCommand& command);
int run_tokens_command(const TokensCommand& command);

}  // namespace labgrade::serve
