#include "stage/staging.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <system_error>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "stage/archive_extract.hpp"
#include "text/text_check.hpp"

namespace labgrade {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kMaxIgnoredListed = 50;

// Regular files below `root`, as paths relative to it; links are not followed.
std::vector<fs::path> regular_files_below(const fs::path& root) {
  std::vector<fs::path> files;
  std::error_code error;
  for (fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, error), end;
       !error && it != end; it.increment(error)) {
    if (it->is_symlink()) continue;
    if (it->is_regular_file()) files.push_back(fs::relative(it->path(), root));
  }
  if (error) throw SubmissionError(fmt::format("cannot read submission {}: {}", root.string(), error.message()));
  std::sort(files.begin(), files.end());
  return files;
}

fs::path locate(const std::vector<fs::path>& files, const std::string& name, const fs::path& root) {
  std::vector<fs::path> candidates;
  for (const auto& file : files) {
    if (file == fs::path(name)) return file;  // top level wins
    if (file.filename() == name) candidates.push_back(file);
  }
  if (candidates.size() == 1) return candidates.front();
  if (candidates.empty()) {
    throw SubmissionError(fmt::format("the submission {} has no file named {} (the lab needs it)", root.string(), name));
  }
  std::string list;
  for (const auto& candidate : candidates) list += (list.empty() ? "" : ", ") + candidate.string();
  throw SubmissionError(fmt::format("the submission has several files named {} ({}): keep exactly one", name, list));
}

void copy_checked(const fs::path& from, const fs::path& to, std::uint64_t max_bytes, const std::string& shown_as) {
  if (fs::is_symlink(from)) throw SubmissionError(fmt::format("{} is a symbolic link; submit the file itself", shown_as));
  const auto size = fs::file_size(from);
  if (size > max_bytes) {
    throw SubmissionError(fmt::format("{} is {} bytes; the course allows at most {} bytes per file", shown_as, size, max_bytes));
  }
  std::ifstream in(from, std::ios::binary);
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (const std::string problem = text_problem(text); !problem.empty()) {
    throw SubmissionError(fmt::format("{} is not a source file that can be graded: {}; submit the source code as "
                                      "plain UTF-8 text", shown_as, problem));
  }
  fs::copy_file(from, to, fs::copy_options::overwrite_existing);
}

}  // namespace

StagedSubmission stage_submission(const fs::path& submission, const std::vector<std::string>& student_files,
                                  const fs::path& destination, std::uint64_t max_file_bytes) {
  std::error_code error;
  const auto status = fs::symlink_status(submission, error);
  if (error || !fs::exists(status)) throw SubmissionError(fmt::format("submission {} does not exist", submission.string()));
  fs::create_directories(destination);

  if (fs::is_regular_file(status) && is_archive(submission)) {
    // Unpacked next to the staged files, then taken from like any folder.
    const fs::path unpacked = destination.parent_path() / (destination.filename().string() + "-unpacked");
    extract_archive(submission, unpacked, ArchiveLimits{16 * max_file_bytes, 64 * max_file_bytes});
    return stage_submission(unpacked, student_files, destination, max_file_bytes);
  }

  StagedSubmission staged;
  if (fs::is_regular_file(status)) {
    const std::string name = submission.filename().string();
    if (std::find(student_files.begin(), student_files.end(), name) == student_files.end() || student_files.size() != 1) {
      throw SubmissionError(fmt::format("the submission is the single file {}, but this lab needs: {}", name,
                                        fmt::join(student_files, ", ")));
    }
    copy_checked(submission, destination / name, max_file_bytes, name);
    staged.files.push_back(destination / name);
    staged.taken_from.push_back(name);
    return staged;
  }
  if (!fs::is_directory(status)) {
    throw SubmissionError(fmt::format("submission {} is neither a file nor a directory", submission.string()));
  }

  const std::vector<fs::path> files = regular_files_below(submission);
  std::vector<fs::path> taken;
  for (const std::string& name : student_files) {
    const fs::path found = locate(files, name, submission);
    copy_checked(submission / found, destination / name, max_file_bytes, found.string());
    staged.files.push_back(destination / name);
    staged.taken_from.push_back(found.string());
    taken.push_back(found);
  }
  for (const auto& file : files) {
    if (std::find(taken.begin(), taken.end(), file) != taken.end()) continue;
    if (staged.ignored.size() < kMaxIgnoredListed) {
      staged.ignored.push_back(file.string());
    } else {
      ++staged.ignored_not_listed;
    }
  }
  return staged;
}

}  // namespace labgrade
