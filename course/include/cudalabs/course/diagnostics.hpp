// Problems found in a configuration file, precise enough for a user to fix them without guessing.
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

namespace cudalabs::config {

struct Diagnostic {
  std::string file;     // path as given to the loader
  int line = 0;         // 1-based; 0 when unknown (e.g. file missing)
  int column = 0;       // 1-based; 0 when unknown
  std::string field;    // dotted path, e.g. "tests[2].points"; "" for the whole file
  std::string message;  // what was expected and what was found

  // "file:line:column: field: message"; unknown positions and an empty field are left out.
  std::string to_string() const;
};

// Thrown by the loaders with every problem of one file, not just the first.
class ConfigError : public std::runtime_error {
 public:
  explicit ConfigError(std::vector<Diagnostic> diagnostics);  // what(): one diagnostic per line
  const std::vector<Diagnostic>& diagnostics() const;

 private:
  std::vector<Diagnostic> diagnostics_;
};

}  // namespace cudalabs::config
