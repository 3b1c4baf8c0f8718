#pragma once
// The files a lab's folder ships with: in a self-check the student's working folder is the lab's
// own folder, so its handout, its public tests and the headers they include are there beside the
// student's code. They are not the student's to hand in, so a self-check does not list them as
// "ignored"; what the student added and will not be graded still is.
#include <filesystem>
#include <set>
#include <string>

#include "stage/staging.hpp"

namespace labgrade {

// Relative paths: README.md, every *_test.cu at the top of `lab_dir` (the self-check sources, as
// the build finds them), and every header of `lab_dir` those include with #include "...", followed
// through the headers. A header only the student's own code includes is not among them.
std::set<std::string> lab_own_files(const std::filesystem::path& lab_dir);

// Removes the lab's own files from `staged.ignored`.
void forget_lab_own_files(StagedSubmission& staged, const std::filesystem::path& lab_dir);

}  // namespace labgrade
