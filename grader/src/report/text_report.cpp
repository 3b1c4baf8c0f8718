#include "report/text_report.hpp"

#include <algorithm>
#include <cstdlib>

#include <fmt/format.h>

#include "report/profile_text.hpp"
#include "report/report_common.hpp"

namespace labgrade {
namespace {

constexpr std::size_t kMaxDetailLines = 40;

struct Painter {
  bool enabled;
  std::string operator()(const std::string& text, const char* code) const {
    return enabled ? fmt::format("\033[{}m{}\033[0m", code, text) : text;
  }
};

const char* status_color(TestStatus status) {
  switch (status) {
    case TestStatus::Passed: return "32";
    case TestStatus::Skipped:
    case TestStatus::NotRun: return "33";
    default: return "31";
  }
}

std::string points(double value) { return format_points(value); }

// At most kMaxDetailLines lines, each indented.
std::string indented(const std::string& text) {
  std::string out;
  std::size_t lines = 0, begin = 0;
  while (begin < text.size() && lines < kMaxDetailLines) {
    std::size_t end = text.find('\n', begin);
    if (end == std::string::npos) end = text.size();
    out += "      " + text.substr(begin, end - begin) + "\n";
    begin = end + 1;
    ++lines;
  }
  if (begin < text.size()) out += "      [... more in the JSON report]\n";
  return out;
}

// Tests with findings in detail; clean ones counted in one line.
void write_sanitizer_section(std::ostream& out, const GradeResult& report, bool show_hidden, bool color) {
  const Painter paint{color};
  const auto [ran, clean] = sanitizer_tally(report);
  if (ran == 0) return;
  out << "\n" << paint("Sanitizer (memcheck, racecheck), each finding with its test:", "1") << "\n";
  out << fmt::format("  {} of {} tests clean\n", clean, ran);
  // A tool left out for the whole pass (racecheck without shared memory) is said once.
  std::vector<std::string> said;
  for (const auto& test : report.tests) {
    for (const auto& finding : test.sanitizer) {
      if (finding.not_needed.empty() || std::find(said.begin(), said.end(), finding.tool) != said.end()) continue;
      said.push_back(finding.tool);
      out << "  " << finding.tool << ": " << finding.not_needed << "\n";
    }
  }
  for (const auto& test : report.tests) {
    for (const auto& finding : test.sanitizer) {
      if (finding.clean) continue;
      out << "  " << paint(test.name, "1") << "  " << summarize(finding) << "\n";
      const bool hide = !show_hidden && test.visibility == cudalabs::config::Visibility::Hidden;
      if (!hide) out << indented(finding.excerpt);
    }
  }
}

// Timing previews (self-check only), apart from the points: the figures and whether each
// preview's threshold was met, or why it was not measured.
void write_preview_section(std::ostream& out, const GradeResult& report, const Painter& paint) {
  bool heading = false;
  for (const auto& test : report.tests) {
    if (!test.preview) continue;
    if (!heading) {
      out << "\n" << paint("Timing preview (your code on this GPU; a preview, not a grade: no points):", "1")
          << "\n";
      heading = true;
    }
    std::string body;
    if (test.performance) {
      const bool met = test.performance->verdict.credit >= 1.0 && !test.performance->measurement.implausible &&
                       test.performance->measurement.machine_busy.empty();
      out << "  " << paint(test.name, "1") << "  " << paint(met ? "meets the preview threshold" : "below the preview threshold",
                                                         met ? "32" : "33")
          << "\n";
      body = describe(*test.performance);
    } else {
      out << "  " << paint(test.name, "1") << "  not measured\n";
      if (report.status == RunStatus::NoCudaDevice) {
        body = "preview skipped: no CUDA device is usable here (the reason is next to the score)";
      } else if (test.outcome.status == TestStatus::Skipped || test.outcome.status == TestStatus::NotRun) {
        body = "preview skipped: " + (test.outcome.message.empty() ? report.status_detail : test.outcome.message);
      } else {
        body = std::string(to_string(test.outcome.status)) + ": " + test.outcome.message;
      }
    }
    out << indented(body);
  }
  if (heading) {
    out << "  The grade times hidden cases of its own against the reference solution; a preview only says where "
           "you stand.\n";
  }
}

}  // namespace

TextStyle text_style_for_terminal(bool stream_is_tty) {
  const char* no_color = std::getenv("NO_COLOR");
  return TextStyle{stream_is_tty && !(no_color && *no_color), true};
}

void write_text_report(std::ostream& out, const GradeResult& report, const TextStyle& style) {
  const Painter paint{style.color};
  out << paint(fmt::format("{} {} — {}", report.mode == "grade" ? "Grade of" : "Self-check of", report.lab,
                           report.title), "1")
      << "\n";
  out << "  submission: " << report.submission << "\n";
  if (!report.device.empty()) out << "  device:     " << report.device << "\n";
  if (!report.staged_files.empty()) {
    out << "  files used: ";
    for (std::size_t i = 0; i < report.staged_files.size(); ++i) out << (i ? ", " : "") << report.staged_files[i];
    out << "\n";
  }
  if (!report.ignored_files.empty()) {
    out << "  ignored:    ";
    for (std::size_t i = 0; i < report.ignored_files.size(); ++i) out << (i ? ", " : "") << report.ignored_files[i];
    if (report.ignored_not_listed) out << fmt::format(" and {} more", report.ignored_not_listed);
    out << "  (only the lab's student files are graded)\n";
  }

  std::size_t name_width = 4;
  for (const auto& test : report.tests) name_width = std::max(name_width, test.name.size());
  out << "\n"
      << fmt::format("  {:<{}}  {:<10} {:<9} {:>13}\n", "test", name_width, "visibility", "status", "points");
  const bool scored = has_score(report);
  for (const auto& test : report.tests) {
    if (test.preview) continue;  // worth nothing: its own section below
    const std::string status(to_string(test.outcome.status));
    out << fmt::format("  {:<{}}  {:<10} ", test.name, name_width, to_string(test.visibility))
        << paint(fmt::format("{:<9}", status), status_color(test.outcome.status))
        << fmt::format(" {:>6} / {:<6}\n", scored ? points(test.points_earned) : "-", points(test.points_possible));
  }
  out << "\n"
      << paint(scored ? fmt::format("  Score: {} / {}", points(report.points_earned), points(report.points_possible))
                      : fmt::format("  No score (of {} points)", points(report.points_possible)),
               "1")
      << "   (" << report.status_detail << ")\n";
  if (report.late) out << "  " << late_penalty_line(report) << "\n";
  out << "  Time: " << time_breakdown(report) << "\n";

  // The figures behind every timed verdict, passed or not.
  bool timed_heading = false;
  for (const auto& test : report.tests) {
    if (!test.performance || test.preview) continue;
    if (!timed_heading) out << "\nPerformance (median of interleaved rounds, L2 flushed, same process):\n";
    timed_heading = true;
    const bool hide = !style.show_hidden_details && test.visibility == cudalabs::config::Visibility::Hidden;
    out << "  " << paint(test.name, "1") << fmt::format("  {} / {} points\n", points(test.points_earned),
                                                         points(test.points_possible))
        << indented(hide ? test.performance->verdict.explanation : describe(*test.performance));
  }

  write_preview_section(out, report, paint);

  bool heading = false;
  for (const auto& test : report.tests) {
    if (test.performance || test.preview) continue;  // shown above
    // Tests that never ran share one reason, already given next to the score.
    const bool skipped_for_no_gpu =
        report.status == RunStatus::NoCudaDevice && test.outcome.status == TestStatus::Skipped;
    if (test.outcome.status == TestStatus::Passed || test.outcome.status == TestStatus::NotRun ||
        skipped_for_no_gpu || test.outcome.message.empty()) {
      continue;
    }
    if (!heading) out << "\nDetails:\n";
    heading = true;
    out << "  " << paint(test.name, "1") << " (" << to_string(test.outcome.status) << ")\n";
    const bool hide = !style.show_hidden_details && test.visibility == cudalabs::config::Visibility::Hidden;
    out << indented(hide ? "details of hidden tests are not shown" : test.outcome.message);
  }
  write_sanitizer_section(out, report, style.show_hidden_details, style.color);
  if (const std::string profile = profile_text(report, ReportView{style.show_hidden_details}); !profile.empty()) {
    const auto heading_end = profile.find('\n');
    out << "\n" << paint(profile.substr(0, heading_end), "1") << profile.substr(heading_end);
  }
  if (!report.rule_violations.empty()) {
    out << "\n" << paint("Rules broken (the lab scores 0):", "1") << "\n";
    for (const auto& violation : report.rule_violations) out << indented(violation);
  }
  if (style.show_hidden_details && !report.review.empty()) {
    out << "\n" << paint("For the instructor to review (not scored):", "1") << "\n";
    for (const auto& note : report.review) out << indented(note.where + ": " + note.construct + " - " + note.why);
  }
  if (style.show_hidden_details && !report.unenforced_protections.empty()) {
    out << "\n" << paint("Not enforced by this machine's kernel (see labgrade --version):", "1") << "\n";
    for (const auto& missing : report.unenforced_protections) out << indented(missing);
  }
  if (const std::string kernels = kernel_resources_text(report); !kernels.empty()) {
    const auto heading_end = kernels.find('\n');
    out << "\n" << paint(kernels.substr(0, heading_end), "1") << kernels.substr(heading_end);
  }
  if (report.build.attempted && !report.build.succeeded) {
    out << "\n" << paint("Compiler output:", "1") << "\n  $ " << report.build.command << "\n"
        << indented(report.build.output);
  }
}

}  // namespace labgrade
