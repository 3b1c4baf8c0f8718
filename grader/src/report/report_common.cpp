#include "report/report_common.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <system_error>

#include <fmt/format.h>
#include <unistd.h>

#include "model/sanitizer_findings.hpp"
#include "report/profile_text.hpp"
#include "text/utf8.hpp"

namespace labgrade {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// XML 1.0's Char production, less what valid UTF-8 already excludes.
bool xml_char(char32_t code) {
  if (code < 0x20) return code == '\t' || code == '\n' || code == '\r';
  return code != 0xFFFE && code != 0xFFFF;
}

}  // namespace

bool details_visible(const ScoredTest& test, const ReportView& view) {
  return view.show_hidden_details || test.visibility != cudalabs::config::Visibility::Hidden;
}

std::string visible_detail(const ScoredTest& test, const ReportView& view) {
  if (!details_visible(test, view)) {
    // The verdict says how far from the threshold the student's own code was, nothing about inputs.
    return test.performance ? test.performance->verdict.explanation : "";
  }
  if (!test.performance) return test.outcome.message;
  std::string detail = describe(*test.performance);
  // Scoring already puts the figures in the message; add it only when it says something else.
  if (!test.outcome.message.empty() && test.outcome.message != detail) detail += "\n" + test.outcome.message;
  return detail;
}

std::string sanitizer_detail(const ScoredTest& test, const ReportView& view) {
  if (test.sanitizer.empty()) return "";
  std::string summary = "compute-sanitizer: ";
  std::string excerpts;
  for (std::size_t i = 0; i < test.sanitizer.size(); ++i) {
    const SanitizerFinding& finding = test.sanitizer[i];
    summary += (i == 0 ? "" : "; ") + summarize(finding);
    if (!finding.clean && !finding.excerpt.empty() && details_visible(test, view)) excerpts += "\n" + finding.excerpt;
  }
  return summary + excerpts;
}

SanitizerTally sanitizer_tally(const GradeResult& report) {
  SanitizerTally tally;
  for (const auto& test : report.tests) {
    if (test.sanitizer.empty()) continue;
    ++tally.ran;
    if (std::all_of(test.sanitizer.begin(), test.sanitizer.end(), [](const auto& f) { return f.clean; })) ++tally.clean;
  }
  return tally;
}

bool below_full_credit(const ScoredTest& test) {
  return test.performance && test.outcome.status == TestStatus::Passed && test.points_earned < test.points_possible;
}

std::string time_breakdown(const GradeResult& report) {
  std::string text = fmt::format("{:.1f} s in all: staging {:.2f} s, build {:.1f} s, tests {:.1f} s", report.total_seconds,
                                 report.stage_seconds, report.build.seconds, report.test_seconds);
  // Below this a wait is the lock's own cost, not another grade's.
  constexpr double kNoticeableWaitSeconds = 0.05;
  if (report.gpu_wait_seconds >= kNoticeableWaitSeconds) {
    text += fmt::format(", waited {:.1f} s for the GPU", report.gpu_wait_seconds);
  }
  if (report.profile && report.profile->ran) text += fmt::format(", profile pass {:.1f} s", report.profile->seconds);
  return text;
}

std::string late_penalty_line(const GradeResult& report) {
  if (!report.late) return "";
  const LatePenaltyNote& late = *report.late;
  if (late.days_late == 0) {
    return fmt::format("On time: submitted {}, deadline {}", late.submitted_at, late.due);
  }
  return fmt::format("Late: submitted {}, {} day{} after the deadline {}: -{}% = -{} points ({} before the penalty)",
                     late.submitted_at, late.days_late, late.days_late == 1 ? "" : "s", late.due,
                     format_points(late.penalty_percent), format_points(late.penalty_points),
                     format_points(late.points_before));
}

std::string describe_kernel_resources(const KernelResources& kernel) {
  std::string text = fmt::format("{} register{}", kernel.registers, kernel.registers == 1 ? "" : "s");
  if (kernel.shared_bytes > 0) text += fmt::format(", {} B shared memory", kernel.shared_bytes);
  if (kernel.stack_bytes > 0) text += fmt::format(", {} B stack", kernel.stack_bytes);
  if (kernel.spill_store_bytes > 0 || kernel.spill_load_bytes > 0) {
    text += fmt::format(", spills {} B to local memory and loads {} B back", kernel.spill_store_bytes,
                        kernel.spill_load_bytes);
  } else {
    text += ", no spills";
  }
  return text;
}

std::string kernel_resources_text(const GradeResult& report) {
  if (!report.build.succeeded || report.build.kernels.empty()) return "";
  std::string text = "Your kernels, as the compiler built them (per thread; shared memory per block):\n";
  for (const KernelResources& kernel : report.build.kernels) {
    text += fmt::format("  {} ({}): {}\n", kernel.name, kernel.arch, describe_kernel_resources(kernel));
  }
  if (!report.build.unmet_requirements.empty()) {
    text += "What the lab asks of your kernels and did not find (not scored):\n";
    for (const std::string& unmet : report.build.unmet_requirements) text += "  " + unmet + "\n";
  }
  return text;
}

std::string format_points(double points) {
  // At most two decimals, none that are zero: 95.4567 -> "95.46", 4.0 -> "4", 7.5 -> "7.5".
  std::string text = fmt::format("{:.2f}", points);
  while (!text.empty() && text.back() == '0') text.pop_back();
  if (!text.empty() && text.back() == '.') text.pop_back();
  return text == "-0" ? "0" : text;
}

std::string valid_utf8(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    char32_t code = 0;
    const std::size_t length = utf8_sequence(text, i, code);
    if (length == 0) {
      out += kReplacement;
      ++i;
    } else {
      out.append(text.substr(i, length));
      i += length;
    }
  }
  return out;
}

std::string markup_escape(std::string_view text, bool attribute) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  for (std::size_t i = 0; i < text.size();) {
    char32_t code = 0;
    const std::size_t length = utf8_sequence(text, i, code);
    if (length == 0 || !xml_char(code)) {
      out += kReplacement;
      i += length ? length : 1;
      continue;
    }
    switch (code) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;  // also keeps "]]>" out of character data
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      case '\t': out += attribute ? "&#9;" : "\t"; break;
      case '\n': out += attribute ? "&#10;" : "\n"; break;
      case '\r': out += "&#13;"; break;  // a raw CR would be read back as a line feed
      default: out.append(text.substr(i, length));
    }
    i += length;
  }
  return out;
}

std::string first_line(std::string_view text, std::size_t max_chars) {
  const std::string_view line = text.substr(0, text.find('\n'));
  std::size_t chars = 0, i = 0;
  while (i < line.size() && chars < max_chars) {
    char32_t code = 0;
    const std::size_t length = utf8_sequence(line, i, code);
    i += length ? length : 1;
    ++chars;
  }
  std::string out(line.substr(0, i));
  if (i < line.size() || line.size() < text.size()) out += "...";
  return out;
}

void check_report_path(const std::filesystem::path& file, std::string_view what) {
  std::error_code error;
  if (std::filesystem::is_directory(file, error)) {
    throw std::runtime_error(fmt::format("cannot write the {} report to {}: it is a directory", what, file.string()));
  }
  const std::filesystem::path parent = file.parent_path().empty() ? "." : file.parent_path();
  if (!std::filesystem::is_directory(parent, error)) {
    throw std::runtime_error(
        fmt::format("cannot write the {} report to {}: no directory {}", what, file.string(), parent.string()));
  }
}

void write_report_file(const std::filesystem::path& file, std::string_view content, std::string_view what) {
  check_report_path(file, what);
  // Beside the target, so the rename stays on one file system; the pid keeps two runs apart.
  const std::filesystem::path temporary = fmt::format("{}.partial-{}", file.string(), ::getpid());
  const auto fail = [&](const std::string& reason) {
    std::error_code ignored;
    std::filesystem::remove(temporary, ignored);
    throw std::runtime_error(fmt::format("cannot write the {} report to {}: {}", what, file.string(), reason));
  };
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) fail(std::strerror(errno));
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    out.flush();
    if (!out) fail(std::strerror(errno));
  }
  std::error_code error;
  std::filesystem::rename(temporary, file, error);
  if (error) fail(error.message());
}

std::string submission_overview(const GradeResult& report) {
  std::string text;
  if (report.late) text += late_penalty_line(report) + "\n";
  if (!report.device.empty()) text += "Device: " + report.device + "\n";
  if (!report.staged_files.empty()) {
    text += "Files used:";
    for (const auto& file : report.staged_files) text += " " + file;
    text += "\n";
  }
  if (!report.ignored_files.empty()) {
    text += "Ignored (only the lab's student files are graded):";
    for (const auto& file : report.ignored_files) text += " " + file;
    if (report.ignored_not_listed) text += fmt::format(" and {} more", report.ignored_not_listed);
    text += "\n";
  }
  if (!report.rule_violations.empty()) {
    text += "\nRules broken (the lab scores 0):\n";
    for (const auto& violation : report.rule_violations) text += "  " + violation + "\n";
  }
  if (report.build.attempted && !report.build.succeeded) {
    text += "\nThe code did not compile. Compiler output:\n" + report.build.output;
    if (text.back() != '\n') text += "\n";
  }
  // An LMS shows the report to the student: their own kernels' figures, not the reference's names.
  if (const std::string profile = profile_text(report, ReportView{false}); !profile.empty()) text += "\n" + profile;
  return text;
}

}  // namespace labgrade
