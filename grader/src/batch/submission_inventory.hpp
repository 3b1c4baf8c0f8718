#pragma once
// Which submissions a batch grades, found in the folder the instructor gives: one folder or
// archive (.zip, .tar.gz, .tgz) per student, named by the student's id, or a Gradescope "export
// submissions" folder, whose submission_metadata.yml names the students behind each
// submission_<n>/ folder and when they submitted.
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace labgrade::batch {

struct BatchSubmission {
  std::string student_id;  // Gradescope: the submitters' ids (sid, else email) joined by '+'; else the file name
  std::string name;        // the submitters' names; empty when unknown
  std::filesystem::path path;  // the folder or archive to grade
  std::optional<std::int64_t> submitted_at;  // Unix seconds; from the Gradescope metadata only
};

struct SubmissionInventory {
  std::vector<BatchSubmission> submissions;  // by student id
  std::vector<std::string> ignored;          // entries that are neither a folder nor an archive
  bool gradescope = false;                   // found submission_metadata.yml
};

// Throws UsageError for a folder that cannot be read, an unreadable or malformed
// submission_metadata.yml (file:line: what was expected) and two submissions with the same id.
// `skip` (the batch's output folder, when it lies inside) is left out.
SubmissionInventory find_submissions(const std::filesystem::path& folder, const std::filesystem::path& skip = {});

// A student id as a file name: characters other than letters, digits, '.', '_', '-', '@' and '+'
// become '_', and a leading '.' too, so ids never leave the reports folder.
std::string file_name_for(const std::string& student_id);

}  // namespace labgrade::batch
