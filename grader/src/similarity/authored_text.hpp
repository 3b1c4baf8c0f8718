#pragma once
// What a student wrote, as a similarity tool should see it: the student files of one submission,
// each with the lines it shares with the lab's skeleton blanked (the given code is not evidence
// of copying), one after another. Blanking keeps every line where it was, so a match found in
// the text points at the student's own line numbers.
#include <filesystem>
#include <string>
#include <vector>

namespace labgrade::similarity {

struct AuthoredFile {
  std::string name;     // the student file, e.g. "vector_add.cu"
  int first_line = 1;   // where it starts in the concatenation (1-based)
  int line_count = 0;
};

struct AuthoredText {
  std::string compared;                // the concatenation with the skeleton's lines blanked
  std::vector<std::string> lines;      // the concatenation as the student wrote it, for display
  std::vector<bool> given;             // per line: also in the skeleton (blanked in `compared`)
  std::vector<AuthoredFile> files;

  // "vector_add.cu:12" for a line of the concatenation.
  std::string where(int line) const;
};

// `staged`: the submission's student files. A file whose skeleton (`skeleton_dir`/<name>) exists
// is compared with it by `diff -w` (whitespace changes do not make a given line the student's);
// the others are taken whole. Throws std::runtime_error when diff cannot run.
AuthoredText authored_text(const std::vector<std::filesystem::path>& staged, const std::filesystem::path& skeleton_dir,
                           const std::string& diff_program = "diff");

}  // namespace labgrade::similarity
