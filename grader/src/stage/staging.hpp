#pragma once
// Copies the lab's student files, and nothing else, from a submission into a fresh directory.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace labgrade {

// The submission cannot be graded as given (a student file is missing, ambiguous, too large or
// not text, or an archive is unsafe).
class SubmissionError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct StagedSubmission {
  std::vector<std::filesystem::path> files;  // the staged copies, in student_files order
  std::vector<std::string> taken_from;       // where each came from, relative to the submission
  std::vector<std::string> ignored;          // other files in the submission, relative paths
  std::size_t ignored_not_listed = 0;        // more ignored files than we list
};

// `submission` is a directory or a single file. In a directory, each student file is looked for
// at the top level, then anywhere below it (students zip folders); two candidates is an error.
StagedSubmission stage_submission(const std::filesystem::path& submission,
                                  const std::vector<std::string>& student_files,
                                  const std::filesystem::path& destination, std::uint64_t max_file_bytes);

}  // namespace labgrade
