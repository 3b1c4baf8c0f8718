#include "cudalabs/course/diagnostics.hpp"

#include <utility>

#include <fmt/format.h>

namespace cudalabs::config {

std::string Diagnostic::to_string() const {
  std::string text = file;
  if (line > 0) {
    text += fmt::format(":{}", line);
    if (column > 0) text += fmt::format(":{}", column);
  }
  text += ": ";
  if (!field.empty()) text += field + ": ";
  return text + message;
}

namespace {

std::string join_lines(const std::vector<Diagnostic>& diagnostics) {
  std::string text;
  for (const Diagnostic& diagnostic : diagnostics) {
    if (!text.empty()) text += '\n';
    text += diagnostic.to_string();
  }
  return text;
}

}  // namespace

ConfigError::ConfigError(std::vector<Diagnostic> diagnostics)
    : std::runtime_error(join_lines(diagnostics)), diagnostics_(std::move(diagnostics)) {}

const std::vector<Diagnostic>& ConfigError::diagnostics() const { return diagnostics_; }

}  // namespace cudalabs::config
