#pragma once
// Dick Grune's similarity tester (`sim_c++`, Debian/Ubuntu package similarity-tester): it reads
// C and C++ (CUDA's <<< >>> included) as tokens, with names abstracted, so renaming variables or
// reformatting hides nothing. Run as a child process on files in one folder.
#include <filesystem>
#include <string>
#include <vector>

namespace labgrade::similarity {

// "a consists for 87 % of b material": 87% of a's tokens are in runs also found in b.
struct Share {
  std::string file;   // a
  std::string other;  // b
  int percent = 0;
};

// One run of tokens both files hold, as line ranges (1-based, inclusive).
struct Run {
  std::string file;
  int first = 0;
  int last = 0;
  std::string other;
  int other_first = 0;
  int other_last = 0;
  int tokens = 0;
};

struct SimOutcome {
  bool missing = false;  // the program could not be started
  std::string problem;   // why there is no (complete) answer; empty when there is
};

struct SimTool {
  std::string program = "sim_c++";

  // Every pair of `files` (names relative to `folder`) whose share is at least `min_percent`.
  SimOutcome shares(const std::filesystem::path& folder, const std::vector<std::string>& files, int min_percent,
                    std::vector<Share>& out) const;
  // The runs two files share.
  SimOutcome runs(const std::filesystem::path& folder, const std::string& a, const std::string& b,
                  std::vector<Run>& out) const;
};

// The parsers, for tests: lines that are not a share or a run are skipped.
std::vector<Share> parse_shares(const std::string& output);
std::vector<Run> parse_runs(const std::string& output);

// How to install the program, for a report that could not be made.
std::string how_to_get_sim();

}  // namespace labgrade::similarity
