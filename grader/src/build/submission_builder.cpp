#include "build/submission_builder.hpp"

#include <fmt/format.h>

#include "build/kernel_resources.hpp"
#include "build/shared_memory_use.hpp"
#include "sandbox/child_process.hpp"

namespace labgrade {
namespace fs = std::filesystem;

namespace {
// The compiler yields the CPUs: another labgrade on the machine (ctest -j4, a second batch) may be
// timing its cases while it runs, and the timing engine counts every microsecond a timed process
// waits for a CPU against the measurement.
constexpr int kCompilerNice = 10;
}  // namespace

BuildSummary build_student_library(const BuildRequest& request) {
  std::vector<fs::path> sources;
  for (const auto& file : request.staged_files) {
    const auto extension = file.extension();
    if (extension == ".cu" || extension == ".cpp") sources.push_back(file);  // headers are only included
  }
  const fs::path object_dir = request.output_dir / "objects";
  fs::create_directories(object_dir);
  std::vector<std::vector<std::string>> commands;
  std::vector<fs::path> objects;
  std::vector<fs::path> device_code_dirs;  // nvcc's intermediate files, per source
  for (const auto& source : sources) {
    objects.push_back(object_dir / (source.filename().string() + ".o"));
    device_code_dirs.push_back(object_dir / (source.filename().string() + ".device"));
    fs::create_directories(device_code_dirs.back());
    commands.push_back(student_compile_command(request.recipe, source, objects.back(), device_code_dirs.back()));
  }
  commands.push_back(student_link_command(request.recipe, objects, request.output_dir / request.recipe.student_library));

  BuildSummary build;
  build.attempted = true;
  build.succeeded = true;
  for (const auto& command : commands) {
    ProcessSpec spec;
    spec.argv = command;
    spec.working_dir = request.staged_files.empty() ? request.output_dir : request.staged_files.front().parent_path();
    spec.timeout_seconds = request.timeout_seconds;
    spec.max_output_bytes = request.max_output_bytes;
    spec.limits = request.limits;
    spec.nice = kCompilerNice;
    ProcessResult process = run_process(spec);
    build.command += (build.command.empty() ? "" : " && ") + shell_quote(command);
    for (KernelResources& kernel : take_resource_usage(process.output)) build.kernels.push_back(std::move(kernel));
    build.output += process.output;
    build.seconds += process.wall_seconds;
    if (!process.succeeded()) {
      build.succeeded = false;
      if (process.timed_out || !process.exited) {  // a time, CPU or file-size limit
        build.output += fmt::format("\nlabgrade: the compiler {}", process.describe_end(request.timeout_seconds));
      }
      return build;
    }
  }
  for (const auto& object : objects) build.object_files.push_back(object.string());
  const SharedMemoryUse shared = read_shared_memory_use(sources, device_code_dirs);
  build.may_use_shared_memory = shared.possible;
  build.shared_memory_evidence = shared.evidence;
  return build;
}

fs::path place_harness(const fs::path& harness, const fs::path& output_dir) {
  const fs::path placed = output_dir / harness.filename();
  fs::copy_file(harness, placed, fs::copy_options::overwrite_existing);
  return placed;
}

}  // namespace labgrade
