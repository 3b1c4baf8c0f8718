#pragma once
// `labgrade submit <lab>`: the lab's student_files, and nothing else, packed into a .tar.gz that
// `labgrade grade` accepts (tar is on every grading machine; unzip may not be).
#include <filesystem>
#include <string>
#include <vector>

#include "session/grading_session.hpp"

namespace labgrade {

struct SubmitRequest {
  std::string lab;
  std::filesystem::path from;     // folder holding the student files; empty: labs/<lab>
  std::filesystem::path archive;  // where to write it; empty: <lab>-submission-<UTC time>.tar.gz here
};

struct SubmissionArchive {
  std::filesystem::path archive;
  std::string sha256;               // of the archive, hex
  std::vector<std::string> files;   // what it holds, in student_files order
  std::vector<std::string> warnings;  // what the student should know before handing it in (submit_review.hpp)
};

// Never overwrites: an existing `archive` is a UsageError. A student file that is missing, too
// large or not text is a SubmissionError (the grade would refuse it too).
SubmissionArchive pack_submission(const CoursePaths& paths, const SubmitRequest& request);

}  // namespace labgrade
