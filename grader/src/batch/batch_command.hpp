#pragma once
// `labgrade batch`: its options and what runs them (main.cpp only registers the subcommand).
#include <cstddef>
#include <filesystem>
#include <string>

#include <CLI/CLI.hpp>

#include "session/grading_session.hpp"
#include "similarity/similarity_command.hpp"

namespace labgrade::batch {

struct BatchCommand {
  std::string lab;
  std::filesystem::path submissions;
  std::filesystem::path out;
  unsigned jobs = 0;
  bool regrade = false;
  bool sanitize = false;  // --sanitize: every grade also runs its sanitizer pass
  bool leaderboard = false;
  bool slurm = false;
  std::string partition;
  std::string gres;
  std::string time_limit;
  std::size_t chunk = 20;
  bool no_wait = false;
  int max_attempts = 3;
  std::filesystem::path collect;
  std::filesystem::path canvas_roster;  // --canvas-roster: also canvas.csv (canvas_csv.hpp)
  std::string canvas_assignment;        // its assignment column; default: the lab's id
  bool similarity = false;              // --similarity: also similarity.csv/.html and a summary section
  similarity::SimilarityCommand similarity_options;
  // A Slurm task's own options (labgrade writes them into the task script).
  std::filesystem::path only;      // a file of student ids, one per line
  std::filesystem::path database;  // the task's shard
  bool no_outputs = false;         // no gradebook or summary: the collecting run writes them
};

CLI::App* add_batch_command(CLI::App& app, BatchCommand& command);

// Exit codes: 0 the batch ran to its end (whatever the grades), 5 some submissions could not be
// tested for want of a CUDA device (recorded as such, graded again by the next run), 130
// interrupted (Ctrl-C: the grades under way finish first; run it again to resume). Throws like
// the other commands for bad arguments (UsageError), the course's configuration (ConfigError)
// and labgrade's own failures.
int run_batch_command(const CoursePaths& paths, const BatchCommand& command);

}  // namespace labgrade::batch
