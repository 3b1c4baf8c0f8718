#include "model/sanitizer_findings.hpp"

#include <cstdlib>
#include <regex>
#include <unistd.h>

#include <fmt/format.h>

#include "model/toolkit_programs.hpp"
#include "text/text_lines.hpp"

namespace labgrade {
namespace fs = std::filesystem;

namespace {

constexpr std::size_t kExcerptLines = 20;
const std::string kPrefix = "=========";

bool is_noise(const std::string& body) {
  return body.empty() || body.find("COMPUTE-SANITIZER") != std::string::npos ||
         body.find("Host Frame") != std::string::npos || body.find("Saved host backtrace") != std::string::npos;
}

}  // namespace

SanitizerFinding parse_sanitizer_output(const std::string& tool, const std::string& output) {
  static const std::regex error_summary(R"(ERROR SUMMARY:\s*(\d+)\s+error)");
  static const std::regex race_summary(R"(RACECHECK SUMMARY:.*\((\d+)\s+errors?)");
  SanitizerFinding finding;
  finding.tool = tool;
  std::vector<std::string> kept, summaries;
  bool have_error_summary = false;
  int race_errors = 0;
  for (const std::string& line : split_lines(output)) {
    if (line.rfind(kPrefix, 0) != 0) continue;
    std::string body = line.substr(kPrefix.size());
    const auto text = body.find_first_not_of(' ');
    body = text == std::string::npos ? "" : body.substr(text);
    std::smatch match;
    if (std::regex_search(body, match, error_summary)) {
      have_error_summary = true;
      finding.errors = std::stoi(match[1]);
      summaries.push_back(body);
    } else if (std::regex_search(body, match, race_summary)) {
      race_errors = std::stoi(match[1]);
      summaries.push_back(body);
    } else if (!is_noise(body) && kept.size() < kExcerptLines) {
      kept.push_back(line.substr(kPrefix.size() + 1 < line.size() ? kPrefix.size() + 1 : line.size()));
    }
  }
  // Racecheck may print only its own summary; memcheck only ERROR SUMMARY.
  finding.completed = !summaries.empty();
  if (!have_error_summary) finding.errors = race_errors;
  finding.clean = finding.completed && finding.errors == 0;
  for (const auto& summary : summaries) kept.push_back(summary);
  for (const auto& line : kept) finding.excerpt += line + "\n";
  return finding;
}

SanitizerFinding not_needed_finding(const std::string& tool, const std::string& why) {
  SanitizerFinding finding;
  finding.tool = tool;
  finding.completed = true;
  finding.clean = true;
  finding.not_needed = why;
  finding.excerpt = why + "\n";
  return finding;
}

std::string summarize(const SanitizerFinding& finding) {
  if (!finding.not_needed.empty()) return finding.tool + ": not needed";
  if (!finding.completed) return finding.tool + ": did not finish";
  if (finding.clean) return finding.tool + ": clean";
  return fmt::format("{}: {} error{}", finding.tool, finding.errors, finding.errors == 1 ? "" : "s");
}

fs::path find_compute_sanitizer(const std::string& nvcc) {
  // bin/, or the toolkit's compute-sanitizer/ folder beside it.
  return find_toolkit_program(nvcc, "compute-sanitizer",
                              {"compute-sanitizer", "../compute-sanitizer/compute-sanitizer"});
}

std::vector<std::string> sanitizer_launcher(const fs::path& sanitizer, const std::string& tool) {
  return {sanitizer.string(), "--tool", tool, "--error-exitcode", std::to_string(kSanitizerErrorExitCode),
          "--print-limit", "20"};
}

}  // namespace labgrade
