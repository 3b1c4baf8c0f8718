#include "release/submission_archive.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include "cudalabs/course/course_config.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "sandbox/child_process.hpp"
#include "release/submit_review.hpp"
#include "stage/scratch_folder.hpp"
#include "stage/staging.hpp"

namespace labgrade {
namespace fs = std::filesystem;
namespace {

std::string utc_stamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  ::gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y%m%dT%H%M%SZ", &utc);
  return text;
}

std::string run_tool(const std::vector<std::string>& argv, const fs::path& working_dir = {}) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.working_dir = working_dir;
  spec.timeout_seconds = 60;
  spec.extra_env = {{"LC_ALL", "C"}, {"TZ", "UTC"}};
  const ProcessResult process = run_process(spec);
  if (!process.succeeded()) {
    throw std::runtime_error(fmt::format("{} {}: {}", shell_quote(argv), process.describe_end(spec.timeout_seconds),
                                         process.output));
  }
  return process.output;
}


}  // namespace

SubmissionArchive pack_submission(const CoursePaths& paths, const SubmitRequest& request) {
  const auto ids = paths.lab_ids();
  if (std::find(ids.begin(), ids.end(), request.lab) == ids.end()) {
    throw UsageError(fmt::format("unknown lab '{}'; the labs are: {}", request.lab, fmt::join(ids, ", ")));
  }
  const auto course = cudalabs::config::load_course_config(paths.course_config());
  const auto lab = cudalabs::config::load_lab_config(paths.lab_config(request.lab));
  const fs::path archive = fs::absolute(
      request.archive.empty() ? fs::path(fmt::format("{}-submission-{}.tar.gz", request.lab, utc_stamp()))
                              : request.archive);
  if (archive.filename().string().size() < 8 || archive.string().rfind(".tar.gz") != archive.string().size() - 7) {
    throw UsageError(fmt::format("{}: the archive's name must end in .tar.gz", archive.string()));
  }
  if (fs::exists(fs::symlink_status(archive))) {
    throw UsageError(fmt::format("{} exists; it is left as it is: give another name with --output",
                                 archive.string()));
  }

  // The same staging as the grade: exactly the files it will take, checked as it will check them.
  const ScratchFolder scratch("labgrade-submit");
  const fs::path staged_dir = scratch.path() / "files";
  const fs::path from = request.from.empty() ? paths.lab_dir(request.lab) : request.from;
  const StagedSubmission staged = stage_submission(from, lab.student_files, staged_dir, course.max_source_bytes);

  // Reproducible: sorted names, no owner, fixed times and gzip without its time stamp (-n), so
  // the same files give the same checksum.
  std::vector<std::string> argv{"tar", "--create", "--use-compress-program=gzip -n", "--file",
                                (scratch.path() / "archive.tar.gz").string(), "--sort=name", "--owner=0",
                                "--group=0", "--numeric-owner", "--mtime=@0", "--mode=u=rw,go=r", "--"};
  argv.insert(argv.end(), lab.student_files.begin(), lab.student_files.end());
  run_tool(argv, staged_dir);

  fs::create_directories(archive.parent_path());
  // Copied into place once complete (not renamed: /tmp may be another file system); copy_file
  // refuses to replace a file that appeared meanwhile.
  fs::copy_file(scratch.path() / "archive.tar.gz", archive, fs::copy_options::none);

  std::istringstream sum(run_tool({"sha256sum", "--", archive.string()}));
  SubmissionArchive result;
  result.archive = archive;
  sum >> result.sha256;
  result.files = lab.student_files;
  result.warnings = review_packed_files(paths, request.lab, course, staged.files, scratch.path() / "build");
  return result;
}

}  // namespace labgrade
