#include "similarity/authored_text.hpp"

#include <stdexcept>

#include <fmt/format.h>

#include "sandbox/child_process.hpp"
#include "text/file_text.hpp"
#include "text/text_lines.hpp"

namespace labgrade::similarity {
namespace fs = std::filesystem;
namespace {

// The student's file with every line diff matches to the skeleton (ignoring whitespace) empty:
// one output line per line of `student`, in order.
std::vector<std::string> blank_skeleton_lines(const fs::path& skeleton, const fs::path& student,
                                              const std::string& diff_program) {
  ProcessSpec spec;
  spec.argv = {diff_program, "-w", "--old-line-format=", "--unchanged-line-format=\n", "--new-line-format=%L",
               skeleton.string(), student.string()};
  spec.timeout_seconds = 60;
  spec.max_output_bytes = 64ull << 20;
  const ProcessResult process = run_process(spec);
  // diff: 0 the same, 1 different, 2 trouble.
  if (!process.started || !process.exited || process.exit_code > 1) {
    throw std::runtime_error(fmt::format("{} could not compare {} with the skeleton {}: {}", diff_program,
                                         student.string(), skeleton.string(),
                                         process.started ? process.describe_end(spec.timeout_seconds) : process.output));
  }
  return split_lines(process.output);
}

}  // namespace

std::string AuthoredText::where(int line) const {
  for (const AuthoredFile& file : files) {
    if (line >= file.first_line && line < file.first_line + file.line_count) {
      return fmt::format("{}:{}", file.name, line - file.first_line + 1);
    }
  }
  return fmt::format("line {}", line);
}

AuthoredText authored_text(const std::vector<fs::path>& staged, const fs::path& skeleton_dir,
                           const std::string& diff_program) {
  AuthoredText text;
  for (const fs::path& file : staged) {
    const std::vector<std::string> original = split_lines(read_file_text(file));
    const fs::path skeleton = skeleton_dir / file.filename();
    std::vector<std::string> compared =
        fs::is_regular_file(skeleton) ? blank_skeleton_lines(skeleton, file, diff_program) : original;
    compared.resize(original.size());  // a last line without its newline: the same count either way
    text.files.push_back({file.filename().string(), static_cast<int>(text.lines.size()) + 1,
                          static_cast<int>(original.size())});
    for (std::size_t i = 0; i < original.size(); ++i) {
      text.lines.push_back(original[i]);
      text.given.push_back(compared[i].empty() && !original[i].empty());
      text.compared += compared[i] + "\n";
    }
  }
  return text;
}

}  // namespace labgrade::similarity
