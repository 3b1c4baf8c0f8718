#include "report/html_report.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "model/roofline.hpp"
#include "report/profile_text.hpp"
#include "report/svg_charts.hpp"

namespace labgrade {
namespace {

constexpr const char* kStyle = R"(
body { font-family: system-ui, sans-serif; color: #222; margin: 24px auto; max-width: 1100px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h1 .title { font-weight: normal; color: #555; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
h3 { font-size: 14px; margin: 16px 0 6px; }
table { border-collapse: collapse; }
th, td { text-align: left; padding: 3px 10px 3px 0; vertical-align: top; }
table.tests { width: 100%; }
table.tests th { border-bottom: 2px solid #ccc; }
table.tests td { border-bottom: 1px solid #eee; }
table.meta th { color: #666; font-weight: normal; white-space: nowrap; }
.num { text-align: right; white-space: nowrap; }
.name { font-family: ui-monospace, monospace; word-break: break-all; }
.score { display: flex; align-items: baseline; gap: 16px; margin: 12px 0; padding: 10px 14px; border-radius: 6px;
         background: #eef4fb; border-left: 5px solid #4c78a8; }
.score .points { font-size: 28px; font-weight: bold; white-space: nowrap; }
.score.bad { background: #fbeeee; border-left-color: #c0392b; }
.score.warn { background: #fdf6e3; border-left-color: #d68910; }
.badge { display: inline-block; padding: 0 8px; border-radius: 9px; font-size: 12px; white-space: nowrap; }
.passed { background: #e3f4e1; color: #1e6b1e; }
.failed, .crashed, .timed-out { background: #fbe3e3; color: #a11d1d; }
.skipped, .not-run, .partial { background: #fdf0d5; color: #8a5a00; }
pre { background: #f6f6f6; border: 1px solid #e2e2e2; padding: 8px 10px; overflow-x: auto; white-space: pre-wrap;
      word-break: break-word; font-size: 12px; margin: 4px 0; }
.perf { border: 1px solid #e2e2e2; border-radius: 6px; padding: 6px 14px 12px; margin: 10px 0; }
.verdict { margin: 4px 0 8px; font-size: 14px; }
details { margin: 28px 0 8px; }
summary { font-size: 15px; font-weight: bold; cursor: pointer; }
svg.chart { display: block; margin: 6px 0; max-width: 100%; height: auto; }
.note { color: #666; font-size: 13px; }
footer { margin-top: 32px; color: #888; font-size: 12px; }
)";

std::string h(std::string_view text) { return markup_escape(text); }

std::string status_class(TestStatus status) {
  std::string name(to_string(status));
  for (char& c : name) {
    if (c == ' ') c = '-';
  }
  return name;
}

std::string badge(const ScoredTest& test) {
  if (below_full_credit(test)) return "<span class=\"badge partial\">partial credit</span>";
  return fmt::format("<span class=\"badge {}\">{}</span>", status_class(test.outcome.status),
                     h(to_string(test.outcome.status)));
}

// "87 / 100", or "no score" for a run that has none (has_score).
std::string score_text(const GradeResult& report) {
  if (!has_score(report)) return "no score";
  return fmt::format("{} / {}", format_points(report.points_earned), format_points(report.points_possible));
}

const char* score_class(const GradeResult& report) {
  if (report.build.attempted && !report.build.succeeded) return "score bad";
  switch (report.status) {
    case RunStatus::Graded: return "score";
    case RunStatus::NoCudaDevice:
    case RunStatus::MachineBusy:
    case RunStatus::TestsFailed: return "score warn";
    default: return "score bad";
  }
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) out += (out.empty() ? "" : ", ") + item;
  return out;
}

// Whether a test gets an entry under "Failure details".
bool has_failure_details(const GradeResult& report, const ScoredTest& test) {
  // Tests that never ran share one reason, given next to the score.
  if (test.performance || test.outcome.status == TestStatus::Passed || test.outcome.status == TestStatus::NotRun ||
      test.outcome.message.empty()) {
    return false;
  }
  return !(report.status == RunStatus::NoCudaDevice && test.outcome.status == TestStatus::Skipped);
}

void header(std::string& html, const GradeResult& report) {
  html += fmt::format("<header>\n<h1>{} {} <span class=\"title\">— {}</span></h1>\n",
                      report.mode == "grade" ? "Grade of" : "Self-check of", h(report.lab), h(report.title));
  html += fmt::format("<div class=\"{}\"><span class=\"points\">{}</span><span>{}</span></div>\n",
                      score_class(report), score_text(report), h(report.status_detail));
  if (report.late) html += "<p class=\"late\">" + h(late_penalty_line(report)) + "</p>\n";
  html += "<table class=\"meta\">\n";
  const auto row = [&](const char* name, const std::string& value) {
    if (!value.empty()) html += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", name, h(value));
  };
  row("submission", report.submission);
  row("device", report.device);
  row("files used", joined(report.staged_files));
  std::string ignored = joined(report.ignored_files);
  if (report.ignored_not_listed) ignored += fmt::format(" and {} more", report.ignored_not_listed);
  if (!ignored.empty()) ignored += " (only the lab's student files are graded)";
  row("ignored", ignored);
  row("status", fmt::format("{} (exit code {})", run_status_name(report.status), static_cast<int>(report.status)));
  row("time", time_breakdown(report));
  html += "</table>\n</header>\n";
}

void test_table(std::string& html, const GradeResult& report) {
  html += "<section>\n<h2>Tests</h2>\n<table class=\"tests\">\n<thead><tr><th>test</th><th>visibility</th>"
          "<th>status</th><th class=\"num\">points</th><th class=\"num\">time</th></tr></thead>\n<tbody>\n";
  for (std::size_t i = 0; i < report.tests.size(); ++i) {
    const ScoredTest& test = report.tests[i];
    // Link to the details below, where there are some.
    const bool linked = test.performance || has_failure_details(report, test);
    const std::string name = linked ? fmt::format("<a href=\"#t{}\">{}</a>", i, h(test.name)) : h(test.name);
    html += fmt::format(
        "<tr><td class=\"name\">{}</td><td>{}</td><td>{}</td><td class=\"num\">{} / {}</td>"
        "<td class=\"num\">{:.2f} s</td></tr>\n",
        name, h(to_string(test.visibility)), badge(test),
        has_score(report) ? format_points(test.points_earned) : std::string("-"), format_points(test.points_possible),
        test.outcome.seconds);
  }
  html += "</tbody>\n</table>\n</section>\n";
}

std::string ms(double value) { return fmt::format("{:.4g} ms", value); }

void performance_section(std::string& html, const GradeResult& report, const ReportView& view) {
  bool heading = false;
  for (std::size_t i = 0; i < report.tests.size(); ++i) {
    const ScoredTest& test = report.tests[i];
    if (!test.performance) continue;
    if (!heading) {
      html += "<section>\n<h2>Performance</h2>\n<p class=\"note\">Medians of interleaved rounds (student, "
              "solution, student, ...), L2 flushed before each sample, in the same process; whiskers are the "
              "95% confidence interval of the median.</p>\n";
      heading = true;
    }
    const PerformanceMeasurement& m = test.performance->measurement;
    // A timing preview has no points: it says so instead.
    const std::string points = test.preview ? "timing preview, not a grade (no points)"
                                            : fmt::format("{} / {} points", format_points(test.points_earned),
                                                          format_points(test.points_possible));
    html += fmt::format("<div class=\"perf\" id=\"t{}\">\n<h3><span class=\"name\">{}</span> {} &#160; {}"
                        "</h3>\n<p class=\"verdict\">{}</p>\n",
                        i, h(test.name), badge(test), points, h(test.performance->verdict.explanation));
    if (!details_visible(test, view)) {
      html += "<p class=\"note\">The measured figures of hidden cases are not shown.</p>\n</div>\n";
      continue;
    }
    html += "<pre>" + h(visible_detail(test, view)) + "</pre>\n";
    std::vector<svg::Bar> bars = {
        {"student", m.student_ms.median, m.student_ms.low, m.student_ms.high, ms(m.student_ms.median), "#4c78a8"}};
    if (!timed_alone(m)) {  // a preview has nothing beside it
      bars.push_back({compared_with_label(m), m.solution_ms.median, m.solution_ms.low, m.solution_ms.high,
                      ms(m.solution_ms.median), "#a0a0a0"});
    }
    html += svg::bar_chart("Median time (lower is better)", bars, "ms");
    if (m.bytes > 0 && m.peak_bandwidth_gbs > 0) {
      html += svg::peak_bar("Bandwidth against this device's measured copy bandwidth", m.achieved_gbs,
                            m.peak_bandwidth_gbs, "GB/s");
    }
    if (m.flops > 0 && m.peak_gflops > 0) {
      html += svg::peak_bar("Arithmetic rate against the suite's peak", m.achieved_gflops, m.peak_gflops, "GFLOP/s");
    }
    if (const auto roof = roofline_of(m); roof && roof->intensity > 0 && roof->compute_gflops > 0) {
      std::vector<svg::RooflinePoint> points = {{"student", roof->intensity, roof->student_gflops, "#4c78a8"}};
      if (roof->reference_gflops) points.push_back({"reference", roof->intensity, *roof->reference_gflops, "#a0a0a0"});
      html += svg::roofline("Roofline of this GPU (measured copy bandwidth, FP32 peak)", roof->bandwidth_gbs,
                            roof->compute_gflops, points);
    }
    html += "</div>\n";
  }
  if (heading) html += "</section>\n";
}

void failure_section(std::string& html, const GradeResult& report, const ReportView& view) {
  bool heading = false;
  for (std::size_t i = 0; i < report.tests.size(); ++i) {
    const ScoredTest& test = report.tests[i];
    if (!has_failure_details(report, test)) continue;
    if (!heading) html += "<section>\n<h2>Failure details</h2>\n";
    heading = true;
    html += fmt::format("<h3 id=\"t{}\"><span class=\"name\">{}</span> {}</h3>\n", i, h(test.name), badge(test));
    html += details_visible(test, view) ? "<pre>" + h(test.outcome.message) + "</pre>\n"
                                        : "<p class=\"note\">Details of hidden tests are not shown.</p>\n";
  }
  if (heading) html += "</section>\n";
}

// compute-sanitizer's findings, when it ran: clean tests counted, the others one by one.
void sanitizer_section(std::string& html, const GradeResult& report, const ReportView& view) {
  const auto [ran, clean] = sanitizer_tally(report);
  if (ran == 0) return;
  html += fmt::format("<section>\n<h2>Sanitizer</h2>\n<p class=\"note\">Each correctness test ran alone under "
                      "compute-sanitizer (memcheck, racecheck): {} of {} clean.</p>\n", clean, ran);
  for (std::size_t i = 0; i < report.tests.size(); ++i) {
    const ScoredTest& test = report.tests[i];
    if (std::all_of(test.sanitizer.begin(), test.sanitizer.end(), [](const auto& f) { return f.clean; })) continue;
    html += fmt::format("<h3><span class=\"name\">{}</span></h3>\n<pre>{}</pre>\n", h(test.name),
                        h(sanitizer_detail(test, view)));
  }
  html += "</section>\n";
}

// Why the lab scores 0, when it does for a reason outside the tests: right under the table.
void problems_section(std::string& html, const GradeResult& report) {
  if (!report.rule_violations.empty()) {
    html += "<section>\n<h2>Rules broken (the lab scores 0)</h2>\n<ul>\n";
    for (const auto& violation : report.rule_violations) html += "<li><pre>" + h(violation) + "</pre></li>\n";
    html += "</ul>\n</section>\n";
  }
  if (report.build.attempted && !report.build.succeeded) {
    html += "<section>\n<h2>Compiler output</h2>\n<pre>$ " + h(report.build.command) + "</pre>\n<pre>" +
            h(report.build.output) + "</pre>\n</section>\n";
  }
}

// Each kernel's registers, shared memory and spills, from the compiler.
void kernels_section(std::string& html, const GradeResult& report) {
  if (!report.build.succeeded || report.build.kernels.empty()) return;
  html += "<section>\n<h2>Your kernels, as the compiler built them</h2>\n<table class=\"tests\">\n<thead><tr>"
          "<th>kernel</th><th>architecture</th><th class=\"num\">registers per thread</th>"
          "<th class=\"num\">shared memory per block</th><th class=\"num\">spill stores / loads</th></tr></thead>\n"
          "<tbody>\n";
  for (const KernelResources& kernel : report.build.kernels) {
    html += fmt::format("<tr><td class=\"name\" style=\"white-space: nowrap\">{}</td><td>{}</td><td class=\"num\">{}</td>"
                        "<td class=\"num\">{} B</td>"
                        "<td class=\"num\">{} B / {} B</td></tr>\n",
                        h(kernel.name), h(kernel.arch), kernel.registers, kernel.shared_bytes, kernel.spill_store_bytes,
                        kernel.spill_load_bytes);
  }
  html += "</tbody>\n</table>\n";
  if (!report.build.unmet_requirements.empty()) {
    html += "<p>What the lab asks of your kernels and did not find (not scored):</p>\n<ul>\n";
    for (const std::string& unmet : report.build.unmet_requirements) html += "<li>" + h(unmet) + "</li>\n";
    html += "</ul>\n";
  }
  html += "</section>\n";
}

// The profile pass's figures: per case a table of each metric, yours beside the reference's, and
// the lab's hint where yours is far off; or the one line that says why it did not run.
void profile_section(std::string& html, const GradeResult& report, const ReportView& view) {
  if (!report.profile) return;
  const ProfileReport& profile = *report.profile;
  html += "<section>\n<h2>Profile (Nsight Compute)</h2>\n";
  if (!profile.ran) {
    html += "<p class=\"note\">" + h(profile.unavailable) + "</p>\n</section>\n";
    return;
  }
  html += fmt::format("<p class=\"note\">Each timed call once under ncu{}, in {:.1f} s. Not scored.</p>\n",
                      profile.with_reference ? ", yours and the reference's" : "", profile.seconds);
  for (const ProfiledCase& profiled : profile.cases) {
    html += fmt::format("<h3><span class=\"name\">{}</span></h3>\n<p class=\"note\">{}</p>\n", h(profiled.test),
                        h(profiled_kernels(profiled, view)));
    if (!profiled.problem.empty()) html += "<p>" + h(profiled.problem) + "</p>\n";
    html += "<table class=\"tests\">\n<thead><tr><th>figure</th><th class=\"num\">yours</th>";
    if (profile.with_reference) html += "<th class=\"num\">the reference's</th>";
    html += "<th>note</th></tr></thead>\n<tbody>\n";
    for (const ProfiledMetric& metric : profiled.metrics) {
      const std::string note = !metric.hint.empty() ? metric.hint_because + ": " + metric.hint : metric.missing;
      html += fmt::format("<tr><td>{}</td><td class=\"num\">{}</td>", h(metric.label),
                          h(profile_value(metric.student, metric.unit)));
      if (profile.with_reference) html += fmt::format("<td class=\"num\">{}</td>", h(profile_value(metric.reference, metric.unit)));
      html += fmt::format("<td{}>{}</td></tr>\n", metric.hint.empty() ? "" : " class=\"partial\"", h(note));
    }
    html += "</tbody>\n</table>\n";
  }
  html += "</section>\n";
}

// A good build's warnings, folded away at the end.
void compiler_warnings(std::string& html, const GradeResult& report) {
  if (!report.build.attempted || !report.build.succeeded || report.build.output.empty()) return;
  html += "<details>\n<summary>Compiler messages</summary>\n<pre>$ " + h(report.build.command) + "</pre>\n<pre>" +
          h(report.build.output) + "</pre>\n</details>\n";
}

}  // namespace

std::string html_report(const GradeResult& report, const ReportView& view) {
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
      "<title>{} {}: {}</title>\n<style>{}</style>\n</head>\n<body>\n",
      report.mode == "grade" ? "Grade of" : "Self-check of", h(report.lab), score_text(report), kStyle);
  header(html, report);
  test_table(html, report);
  problems_section(html, report);
  performance_section(html, report, view);
  failure_section(html, report, view);
  sanitizer_section(html, report, view);
  profile_section(html, report, view);
  kernels_section(html, report);
  compiler_warnings(html, report);
  html += fmt::format("<footer>labgrade {} report{}</footer>\n</body>\n</html>\n", h(report.mode),
                      view.show_hidden_details ? "" : ", student view: details of hidden tests are not shown");
  return html;
}

void write_html_report(const std::filesystem::path& file, const GradeResult& report, const ReportView& view) {
  write_report_file(file, html_report(report, view), "HTML");
}

}  // namespace labgrade
