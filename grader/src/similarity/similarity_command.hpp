#pragma once
// `labgrade similarity`: a class's submissions compared with each other (class_similarity.hpp),
// the same folder `batch` grades; `batch --similarity` runs the same comparison after grading.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "session/grading_session.hpp"
#include "similarity/class_similarity.hpp"

namespace labgrade::similarity {

struct SimilarityCommand {
  std::string lab;
  std::filesystem::path submissions;
  std::filesystem::path out;
  int min_percent = 20;
  std::size_t top_pairs = 10;
  std::string sim_program = "sim_c++";
};

// The options both commands share (--min-similarity, --top-pairs, --sim); `batch` adds them under
// its --similarity flag.
void add_similarity_options(CLI::App& command, SimilarityCommand& options);
CLI::App* add_similarity_command(CLI::App& app, SimilarityCommand& command);

// Compares, writes similarity.csv and similarity.html into `out`, prints one line; returns what it
// found (for the batch's summary page).
ClassSimilarity compare_and_write(const CoursePaths& paths, const SimilarityCommand& command,
                                  const std::filesystem::path& out, std::ostream& log);

// Exit codes: 0 the ranking was written; 7 it could not be made (sim_c++ missing: the page says
// how to get it); 2 for bad arguments.
int run_similarity_command(const CoursePaths& paths, const SimilarityCommand& command);

}  // namespace labgrade::similarity
