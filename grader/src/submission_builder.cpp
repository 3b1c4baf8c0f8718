#include "submission_builder.hpp"

#include <fmt/format.h>

#include "child_process.hpp"

namespace labgrade {
namespace fs = std::filesystem;

BuildSummary build_student_library(const BuildRequest& request) {
  std::vector<fs::path> sources;
  for (const auto& file : request.staged_files) {
    const auto extension = file.extension();
    if (extension == ".cu" || extension == ".cpp") sources.push_back(file);  // headers are only included
  }
  const auto command = student_library_command(
      request.recipe, sources, request.output_dir / request.recipe.student_library);

  ProcessSpec spec;
  spec.argv = command;
  spec.working_dir = request.staged_files.empty() ? request.output_dir : request.staged_files.front().parent_path();
  spec.timeout_seconds = request.timeout_seconds;
  spec.max_output_bytes = request.max_output_bytes;
  spec.limits = request.limits;
  const ProcessResult process = run_process(spec);

  BuildSummary build;
  build.attempted = true;
  build.command = shell_quote(command);
  build.output = process.output;
  build.seconds = process.wall_seconds;
  build.succeeded = process.succeeded();
  if (!build.succeeded && (process.timed_out || !process.exited)) {  // a time, CPU or file-size limit
    build.output += fmt::format("\nlabgrade: the compiler {}", process.describe_end(request.timeout_seconds));
  }
  return build;
}

fs::path place_harness(const fs::path& harness, const fs::path& output_dir) {
  const fs::path placed = output_dir / harness.filename();
  fs::copy_file(harness, placed, fs::copy_options::overwrite_existing);
  return placed;
}

}  // namespace labgrade
