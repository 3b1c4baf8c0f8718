#pragma once
// A class's submissions compared pair by pair (sim_tool.hpp) on what each student wrote
// (authored_text.hpp): the pairs ranked by how much of one is found in the other, and for the top
// pairs the matched fragments side by side.
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "batch/submission_inventory.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "similarity/sim_tool.hpp"

namespace labgrade::similarity {

struct FragmentLine {
  std::string text;
  bool given = false;  // a line of the skeleton: shown, not counted
};

struct Fragment {
  std::string where;        // "vector_add.cu:12-40" in the first student's files
  std::string other_where;  // the same in the second's
  std::vector<FragmentLine> lines;  // the first student's
  std::vector<FragmentLine> other_lines;
  int tokens = 0;
};

struct SimilarPair {
  std::string student;
  std::string other;
  int student_in_other = 0;  // % of the first's authored tokens found in the second's
  int other_in_student = 0;
  int score() const { return student_in_other > other_in_student ? student_in_other : other_in_student; }
  std::vector<Fragment> fragments;  // the top pairs only, longest first
};

struct SimilarityOptions {
  SimTool tool;
  std::string diff_program = "diff";
  int min_percent = 20;        // pairs below are not listed
  std::size_t top_pairs = 10;  // pairs shown with their fragments
  std::uint64_t max_file_bytes = 1 << 20;
};

struct ClassSimilarity {
  std::string lab;
  std::size_t compared = 0;               // submissions with at least one student file
  std::vector<std::string> not_compared;  // "alice: no student file found", ...
  std::vector<SimilarPair> pairs;         // highest score first
  int min_percent = 0;
  std::string problem;                    // why there are no pairs (the tool is missing, ...)
  bool tool_missing = false;
};

// `skeleton_dir`: the lab's folder (its student files are the shared base code).
ClassSimilarity compare_class(const cudalabs::config::LabConfig& lab, const std::filesystem::path& skeleton_dir,
                              const std::vector<batch::BatchSubmission>& submissions, const SimilarityOptions& options);

}  // namespace labgrade::similarity
