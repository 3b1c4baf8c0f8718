// The JUnit, Gradescope and HTML writers, checked against golden files and for well-formedness.
//
// The golden files in golden/ are the writers' exact output for the fixed reports below. After a
// deliberate change to a writer, regenerate them and review the diff:
//   CUDALABS_UPDATE_GOLDEN=1 ./labgrade_unit_tests --gtest_filter='ReportGolden.*'
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/roofline.hpp"
#include "report/gradescope_report.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/junit_report.hpp"
#include "report/prairielearn_report.hpp"
#include "report/report_common.hpp"
#include "report/report_formats.hpp"
#include "report/report_outputs.hpp"
#include "report/text_report.hpp"
#include "session/grading_session.hpp"

namespace labgrade {
namespace {

namespace fs = std::filesystem;
using cudalabs::config::Visibility;

// Text that must be escaped everywhere: markup, quotes, a CDATA terminator, a control character
// XML forbids and a byte that is not UTF-8.
constexpr const char* kNasty = "<never written> & \"quoted\" 'single' ]]> \x01 \xff";
// In hidden tests' messages only: must never reach a student's view.
constexpr const char* kSecret = "SECRET-INPUT-42";

ScoredTest test(const std::string& name, Visibility visibility, double possible, double earned, TestStatus status,
                std::string message, double seconds) {
  return ScoredTest{name, visibility, possible, earned, TestOutcome{name, status, std::move(message), seconds}, {}, {}};
}

PerformanceResult measured(double student_ms, double solution_ms, double gbs, double credit, double limit,
                           cudalabs::config::MeasuredFigure figure, std::string explanation) {
  PerformanceMeasurement m;
  m.device = "NVIDIA H100 80GB HBM3";
  m.student_ms = {student_ms, student_ms * 0.995, student_ms * 1.006, 41};
  m.solution_ms = {solution_ms, solution_ms * 0.996, solution_ms * 1.004, 41};
  m.ratio = {student_ms / solution_ms, student_ms / solution_ms - 0.004, student_ms / solution_ms + 0.005, 41};
  m.target_met = true;
  m.rounds = 41;
  m.seconds = 2.7;
  m.bytes = 805306368;  // 3 arrays of 2^26 floats
  m.achieved_gbs = gbs;
  m.peak_bandwidth_gbs = 2986.4;
  m.sm_clock_mhz = 1980;
  m.clock_note = "SM clock measured during the run";
  cudalabs::config::Verdict verdict;
  verdict.limit = limit;
  verdict.figure = figure;
  verdict.credit = credit;
  verdict.explanation = std::move(explanation);
  return PerformanceResult{m, verdict};
}

// A full grade: passes, failures of every kind, one measured case at full and one at partial credit.
GradeResult graded_report() {
  GradeResult r;
  r.mode = "grade";
  r.lab = "01_vector_add";
  r.title = "Vector addition and SAXPY";
  r.submission = "submissions/Ünïcødé/";
  r.device = "NVIDIA H100 80GB HBM3";
  r.status_detail = "graded";
  r.staged_files = {"src/vector_add.cu"};
  r.ignored_files = {"notes_Ünïcødé.txt", "Makefile"};
  r.build = {true, true, "nvcc -O3 -arch=sm_90 -shared -o libstudent.so vector_add.cu",
             "vector_add.cu(12): warning #177-D: variable \"spare\" was declared but never referenced\n", 11.84, {}};
  r.tests = {
      test("SelfCheck.VectorAddSmall", Visibility::Public, 5, 5, TestStatus::Passed, "", 0.012),
      test("SelfCheck.SaxpySmall", Visibility::Public, 5, 0, TestStatus::Failed,
           std::string("3 of 1000 elements differ (tolerance abs 1.25e-4 + rel 2.4e-7):\n  [0] expected 1.5, got ") +
               kNasty + "\n  [999] expected -2, got nan",
           0.020),
      test("VectorAdd.LargePrime", Visibility::Hidden, 6, 0, TestStatus::Failed,
           std::string("c[1000002] should be 3.5 (a+b), got 0: elements past the last full block were not "
                       "written; input ") + kSecret,
           0.041),
      test("VectorAdd.Full2To26", Visibility::Hidden, 4, 0, TestStatus::Crashed,
           std::string("killed by SIGSEGV ") + kSecret, 0.310),
      test("Saxpy.SeveralSeeds", Visibility::Hidden, 4, 0, TestStatus::TimedOut,
           std::string("timed out after 20 s; seed ") + kSecret, 20.0),
      test("Saxpy.SpecialAlphas", Visibility::Hidden, 4, 4, TestStatus::Passed, "", 0.033),
      test("Performance.vector_add_2to26", Visibility::Hidden, 10, 10, TestStatus::Passed, "", 3.1),
      test("Performance.saxpy_2to26", Visibility::Hidden, 10, 6.2, TestStatus::Passed, "", 3.4),
  };
  r.tests[6].performance = measured(0.2765, 0.2712, 2912.5, 1.0, 1.10, {1.0195, 1.0155, 1.0245},
                                    "1.020x the solution's time (95% CI 1.016-1.025); required at most 1.1x: "
                                    "full points");
  r.tests[7].performance = measured(0.3408, 0.2770, 2363.0, 0.62, 0.85, {0.7912, 0.7871, 0.7950},
                                    "79.1% of this device's peak (95% CI 78.7-79.5%); required at least 85%: "
                                    "62% of the points");
  // Ran with --sanitize: one public test clean, one hidden test with a race (its excerpt names
  // the kernel and must not reach a student's view).
  r.tests[0].sanitizer = {{"memcheck", true, true, 0, ""}, {"racecheck", true, true, 0, ""}};
  r.tests[2].sanitizer = {{"memcheck", true, true, 0, ""},
                          {"racecheck", true, false, 1,
                           std::string("========= Error: Race reported between Write access at add_kernel+0x90 ") +
                               kSecret + "\n========= RACECHECK SUMMARY: 1 hazard displayed (1 error, 0 warnings)"}};
  r.points_earned = 25.2;
  r.points_possible = 48;
  r.stage_seconds = 0.004;
  r.test_seconds = 27.3;
  r.total_seconds = 39.5;
  return r;
}

// Code that does not compile: a zero, with the compiler's messages (escaped) as the explanation.
GradeResult build_failed_report() {
  GradeResult r;
  r.mode = "grade";
  r.lab = "01_vector_add";
  r.title = "Vector addition and SAXPY";
  r.submission = "submissions/Ünïcødé/vector_add.cu";
  r.status_detail = "the code did not compile; the compiler's messages are below";
  r.staged_files = {"vector_add.cu"};
  r.build = {true, false, "nvcc -O3 -arch=sm_90 -shared -o libstudent.so 'vector_add.cu'",
             std::string("vector_add.cu(7): error: identifier \"blockIdx_x\" is undefined\n"
                         "vector_add.cu(9): error: no operator \"<\" matches std::vector<float> & 'int'\n  ") +
                 kNasty + "\n2 errors detected in the compilation of \"vector_add.cu\".",
             3.2, {}};
  for (const char* name : {"SelfCheck.VectorAddSmall", "VectorAdd.LargePrime", "Performance.vector_add_2to26"}) {
    const Visibility visibility = std::string(name).rfind("SelfCheck", 0) == 0 ? Visibility::Public : Visibility::Hidden;
    r.tests.push_back(test(name, visibility, 5, 0, TestStatus::NotRun, "not run: the code did not compile", 0));
  }
  r.points_possible = 15;
  r.total_seconds = 3.3;
  return r;
}

// A forbidden include: score 0 before anything is compiled.
GradeResult rule_violation_report() {
  GradeResult r;
  r.mode = "grade";
  r.lab = "01_vector_add";
  r.title = "Vector addition and SAXPY";
  r.submission = "alice/";
  r.status = RunStatus::RuleViolation;
  r.status_detail = "score 0: vector_add.cu:3 includes <thrust/device_vector.h>";
  r.staged_files = {"vector_add.cu"};
  r.rule_violations = {
      "vector_add.cu:3 includes <thrust/device_vector.h>, which thrust/* forbids (\"write the kernels yourself in "
      "this lab\", config/labs/01_vector_add.yaml:15)",
      std::string("vector_add.cu:4 includes <cub/cub.cuh> & ") + kNasty};
  r.tests = {test("SelfCheck.VectorAddSmall", Visibility::Public, 5, 0, TestStatus::NotRun,
                  "not run: the code breaks a rule of the lab", 0),
             test("VectorAdd.LargePrime", Visibility::Hidden, 6, 0, TestStatus::NotRun,
                  "not run: the code breaks a rule of the lab", 0)};
  r.points_possible = 11;
  r.total_seconds = 0.02;
  return r;
}

const std::map<std::string, GradeResult>& fixtures() {
  static const std::map<std::string, GradeResult> all{
      {"graded", graded_report()}, {"build_failed", build_failed_report()}, {"rule_violation", rule_violation_report()}};
  return all;
}

constexpr ReportView kInstructor{true};
constexpr ReportView kStudent{false};

std::string read(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Compares `actual` with golden/<name>, or rewrites it when CUDALABS_UPDATE_GOLDEN=1.
void expect_golden(const std::string& name, const std::string& actual) {
  const fs::path file = fs::path(LABGRADE_GOLDEN_DIR) / name;
  const char* update = std::getenv("CUDALABS_UPDATE_GOLDEN");
  if (update && std::string(update) == "1") {
    std::ofstream(file, std::ios::binary) << actual;
    std::cout << "updated " << file.string() << "\n";
    return;
  }
  ASSERT_TRUE(fs::exists(file)) << file << " is missing; see the top of this file to generate it";
  const std::string expected = read(file);
  if (expected == actual) return;
  std::size_t at = 0;
  while (at < expected.size() && at < actual.size() && expected[at] == actual[at]) ++at;
  const std::size_t line = static_cast<std::size_t>(std::count(actual.begin(), actual.begin() + at, '\n')) + 1;
  ADD_FAILURE() << name << " differs from the golden file at line " << line << ":\n  expected: "
                << expected.substr(at, 80) << "\n  actual:   " << actual.substr(at, 80)
                << "\nIf the change is intended: CUDALABS_UPDATE_GOLDEN=1 and review the diff of " << file;
}

// "" when `xml` is well-formed, as far as what our writers emit needs (elements, attributes,
// character and entity references, comments, processing instructions, a DOCTYPE without an
// internal subset); otherwise what is wrong.
std::string xml_problem(const std::string& xml) {
  if (valid_utf8(xml) != xml) return "invalid UTF-8";
  for (unsigned char c : xml) {
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') return "a control character XML 1.0 forbids";
  }
  if (xml.find("\xEF\xBF\xBE") != std::string::npos || xml.find("\xEF\xBF\xBF") != std::string::npos) {
    return "U+FFFE or U+FFFF";
  }
  const auto is_name_char = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '-' || c == '.';
  };
  // A reference at xml[i] == '&': one of XML's five entities or a character reference.
  const auto reference_ok = [&](std::size_t i) {
    const std::size_t end = xml.find(';', i);
    if (end == std::string::npos || end - i > 10) return false;
    const std::string name = xml.substr(i + 1, end - i - 1);
    if (name == "amp" || name == "lt" || name == "gt" || name == "quot" || name == "apos") return true;
    if (name.size() < 2 || name[0] != '#') return false;
    const bool hex = name[1] == 'x';
    const std::string digits = name.substr(hex ? 2 : 1);
    if (digits.empty() || digits.find_first_not_of(hex ? "0123456789abcdefABCDEF" : "0123456789") != std::string::npos) {
      return false;
    }
    const unsigned long code = std::stoul(digits, nullptr, hex ? 16 : 10);
    return code == 0x9 || code == 0xA || code == 0xD || (code >= 0x20 && code <= 0xD7FF) ||
           (code >= 0xE000 && code <= 0xFFFD) || (code >= 0x10000 && code <= 0x10FFFF);
  };
  std::vector<std::string> open;
  bool root_done = false;
  std::size_t i = 0;
  while (i < xml.size()) {
    const auto skip_to = [&](const char* end) {
      const std::size_t at = xml.find(end, i);
      if (at == std::string::npos) return false;
      i = at + std::strlen(end);
      return true;
    };
    if (xml.compare(i, 2, "<?") == 0) {
      if (!skip_to("?>")) return "unterminated processing instruction";
    } else if (xml.compare(i, 4, "<!--") == 0) {
      if (!skip_to("-->")) return "unterminated comment";
    } else if (xml.compare(i, 9, "<!DOCTYPE") == 0) {
      if (!skip_to(">")) return "unterminated DOCTYPE";
    } else if (xml.compare(i, 2, "</") == 0) {
      const std::size_t end = xml.find('>', i);
      if (end == std::string::npos) return "unterminated end tag";
      std::string name = xml.substr(i + 2, end - i - 2);
      while (!name.empty() && std::isspace(static_cast<unsigned char>(name.back()))) name.pop_back();
      if (open.empty() || open.back() != name) return "</" + name + "> does not close the open element";
      open.pop_back();
      root_done = open.empty();
      i = end + 1;
    } else if (xml[i] == '<') {
      if (root_done) return "a second root element";
      std::size_t j = i + 1;
      while (j < xml.size() && is_name_char(xml[j])) ++j;
      const std::string name = xml.substr(i + 1, j - i - 1);
      if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return "a bad element name at " + std::to_string(i);
      std::vector<std::string> attributes;
      for (;;) {
        while (j < xml.size() && std::isspace(static_cast<unsigned char>(xml[j]))) ++j;
        if (j >= xml.size()) return "unterminated start tag <" + name;
        if (xml.compare(j, 2, "/>") == 0) {
          j += 2;
          root_done = open.empty();
          break;
        }
        if (xml[j] == '>') {
          open.push_back(name);
          ++j;
          break;
        }
        const std::size_t attribute_start = j;
        while (j < xml.size() && is_name_char(xml[j])) ++j;
        const std::string attribute = xml.substr(attribute_start, j - attribute_start);
        if (attribute.empty() || j + 1 >= xml.size() || xml[j] != '=' || (xml[j + 1] != '"' && xml[j + 1] != '\'')) {
          return "a malformed attribute in <" + name + ">";
        }
        if (std::find(attributes.begin(), attributes.end(), attribute) != attributes.end()) {
          return "attribute " + attribute + " twice in <" + name + ">";
        }
        attributes.push_back(attribute);
        const char quote = xml[j + 1];
        const std::size_t end = xml.find(quote, j + 2);
        if (end == std::string::npos) return "an unterminated attribute value";
        for (std::size_t k = j + 2; k < end; ++k) {
          if (xml[k] == '<') return "'<' in an attribute value of <" + name + ">";
          if (xml[k] == '&' && !reference_ok(k)) return "a bad reference in an attribute of <" + name + ">";
        }
        j = end + 1;
      }
      i = j;
    } else {
      const std::size_t end = std::min(xml.find('<', i), xml.size());
      for (std::size_t k = i; k < end; ++k) {
        if (xml[k] == '&' && !reference_ok(k)) return "a bad reference at " + std::to_string(k);
        if (xml.compare(k, 3, "]]>") == 0) return "']]>' in character data";
        if (open.empty() && !std::isspace(static_cast<unsigned char>(xml[k]))) return "text outside the root element";
      }
      i = end;
    }
  }
  if (!open.empty()) return "<" + open.back() + "> is never closed";
  if (!root_done) return "no root element";
  return "";
}

// xmllint's verdict when it is installed (Debian: libxml2-utils), else "".
std::string xmllint_problem(const std::string& text, const std::string& name) {
  if (std::system("command -v xmllint >/dev/null 2>&1") != 0) return "";
  const fs::path file = fs::path(::testing::TempDir()) / name;
  std::ofstream(file, std::ios::binary) << text;
  const std::string command = "xmllint --noout '" + file.string() + "' 2>&1";
  return std::system(command.c_str()) == 0 ? "" : "xmllint rejects " + file.string();
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size())) ++n;
  return n;
}

// --- golden files ---------------------------------------------------------------------------

TEST(ReportGolden, JUnit) {
  for (const auto& [name, report] : fixtures()) expect_golden(name + ".junit.xml", junit_report(report, kInstructor));
}

TEST(ReportGolden, Gradescope) {
  for (const auto& [name, report] : fixtures()) {
    expect_golden(name + ".gradescope.json",
                  gradescope_results(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
  }
}

TEST(ReportGolden, Html) {
  for (const auto& [name, report] : fixtures()) expect_golden(name + ".html", html_report(report, kInstructor));
  expect_golden("graded.student.html", html_report(graded_report(), kStudent));
}

// --- structure ------------------------------------------------------------------------------

TEST(JunitReport, IsWellFormedXmlWithOneTestcasePerTestAndRunProblem) {
  for (const auto& [name, report] : fixtures()) {
    for (const ReportView view : {kInstructor, kStudent}) {
      const std::string xml = junit_report(report, view);
      EXPECT_EQ(xml_problem(xml), "") << name;
      EXPECT_EQ(xmllint_problem(xml, "junit_" + name + ".xml"), "") << name;
    }
  }
  const std::string graded = junit_report(graded_report(), kInstructor);
  // 8 tests and the build; the failed public test, the partial performance case; crash and timeout.
  EXPECT_NE(graded.find("<testsuite name=\"01_vector_add\" tests=\"9\" failures=\"3\" errors=\"2\" skipped=\"0\""),
            std::string::npos) << graded;
  EXPECT_EQ(count(graded, "<testcase "), 9u);
  EXPECT_NE(graded.find("classname=\"01_vector_add.Performance\" name=\"saxpy_2to26\""), std::string::npos);
  EXPECT_NE(graded.find("<failure message=\"79.1% of this device&#39;s peak"), std::string::npos);
  EXPECT_NE(graded.find("got &lt;never written&gt; &amp; &quot;quoted&quot; &#39;single&#39; ]]&gt; \xEF\xBF\xBD \xEF\xBF\xBD"),
            std::string::npos) << "escaped failure message";

  const std::string failed_build = junit_report(build_failed_report(), kInstructor);
  EXPECT_NE(failed_build.find("name=\"build\" time=\"3.200\">\n      <error message=\"the code did not compile\" "
                              "type=\"build_failed\">$ nvcc"),
            std::string::npos) << failed_build;
  EXPECT_EQ(count(failed_build, "<skipped "), 3u);

  const std::string violation = junit_report(rule_violation_report(), kInstructor);
  EXPECT_NE(violation.find("name=\"forbidden rules\" time=\"0.000\">\n      <failure message=\"score 0: "
                           "vector_add.cu:3 includes &lt;thrust/device_vector.h&gt;\" type=\"rule_violation\">"),
            std::string::npos) << violation;
}

TEST(GradescopeReport, HasTheSpecifiedKeysAndTypes) {
  for (const auto& [name, report] : fixtures()) {
    const std::string text = gradescope_results(report).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
    const nlohmann::json json = nlohmann::json::parse(text);  // throws on invalid JSON
    SCOPED_TRACE(name);
    EXPECT_TRUE(json.at("score").is_number());
    EXPECT_TRUE(json.at("max_score").is_number());
    EXPECT_TRUE(json.at("execution_time").is_number_integer());
    EXPECT_TRUE(json.at("output").is_string());
    EXPECT_EQ(json.at("visibility"), "visible");
    EXPECT_EQ(json.at("stdout_visibility"), "hidden");
    ASSERT_EQ(json.at("tests").size(), report.tests.size());
    for (const auto& entry : json.at("tests")) {
      EXPECT_TRUE(entry.at("name").is_string());
      EXPECT_TRUE(entry.at("score").is_number());
      EXPECT_TRUE(entry.at("max_score").is_number());
      EXPECT_TRUE(entry.at("output").is_string());
      EXPECT_TRUE(entry.at("status") == "passed" || entry.at("status") == "failed") << entry;
      EXPECT_TRUE(entry.at("visibility") == "visible" || entry.at("visibility") == "after_published") << entry;
    }
  }
  const nlohmann::json graded = gradescope_results(graded_report());
  EXPECT_EQ(graded["score"], 25.2);
  EXPECT_EQ(graded["execution_time"], 40);
  EXPECT_EQ(graded["tests"][0]["visibility"], "visible");
  EXPECT_EQ(graded["tests"][2]["visibility"], "after_published");
  EXPECT_EQ(graded["tests"][7]["status"], "failed") << "partial credit is not a pass";
  ASSERT_EQ(graded["leaderboard"].size(), 2u);
  EXPECT_EQ(graded["leaderboard"][0]["name"], "Performance.vector_add_2to26 median ms");
  EXPECT_EQ(graded["leaderboard"][0]["value"], 0.2765);
  EXPECT_EQ(graded["leaderboard"][0]["order"], "asc");
  EXPECT_FALSE(gradescope_results(build_failed_report()).contains("leaderboard")) << "nothing was measured";

  const std::string output = gradescope_results(build_failed_report())["output"];
  EXPECT_NE(output.find("The code did not compile. Compiler output:\nvector_add.cu(7): error"), std::string::npos)
      << output;
  GradescopeOptions options;
  options.hidden_test_visibility = "after_due_date";
  EXPECT_EQ(gradescope_results(graded_report(), options)["tests"][2]["visibility"], "after_due_date");
}

// PrairieLearn's external-grader results, checked against the fields and types its documentation
// requires (docs/externalGrading.md, "Grading results"): `score` a number in [0, 1] whenever the
// submission is gradable; `gradable` a boolean; when false, `format_errors` a string or an array of
// strings; `tests` entries with a string `name`, numbers `points` and `max_points`, strings
// `message`, `output` and `description`; the whole file at most 1 MB. "" when it conforms.
std::string prairielearn_problem(const std::string& text, std::size_t limit = kPrairieLearnResultsLimit) {
  if (text.size() > limit) return "larger than PrairieLearn's limit: " + std::to_string(text.size()) + " bytes";
  if (valid_utf8(text) != text) return "invalid UTF-8";
  const nlohmann::json json = nlohmann::json::parse(text, nullptr, false);
  if (json.is_discarded() || !json.is_object()) return "not a JSON object";
  const bool gradable = !json.contains("gradable") || json.at("gradable") == true;
  if (json.contains("gradable") && !json.at("gradable").is_boolean()) return "gradable is not a boolean";
  if (gradable) {
    if (!json.contains("score") || !json.at("score").is_number()) return "a gradable result without a number score";
    const double score = json.at("score");
    if (score < 0 || score > 1) return "score outside [0, 1]";
  } else {
    if (!json.contains("format_errors")) return "not gradable, and no format_errors to say why";
    const auto& errors = json.at("format_errors");
    if (!errors.is_string() && !errors.is_array()) return "format_errors is neither a string nor an array";
    if (errors.is_array()) {
      for (const auto& error : errors) {
        if (!error.is_string()) return "format_errors holds a non-string";
      }
    }
  }
  for (const char* key : {"message", "output"}) {
    if (json.contains(key) && !json.at(key).is_string()) return std::string(key) + " is not a string";
  }
  if (json.contains("tests")) {
    if (!json.at("tests").is_array()) return "tests is not an array";
    for (const auto& entry : json.at("tests")) {
      if (!entry.is_object() || !entry.contains("name") || !entry.at("name").is_string()) return "a test without a name";
      for (const char* key : {"points", "max_points"}) {
        if (!entry.contains(key) || !entry.at(key).is_number()) return "a test without a number " + std::string(key);
      }
      for (const char* key : {"message", "output", "description"}) {
        if (entry.contains(key) && !entry.at(key).is_string()) return "a test's " + std::string(key) + " is not a string";
      }
      if (entry.at("points").get<double>() > entry.at("max_points").get<double>()) return "points above max_points";
    }
  }
  return "";
}

TEST(PrairieLearnReport, ConformsToTheDocumentedResultsFormat) {
  for (const auto& [name, report] : fixtures()) {
    SCOPED_TRACE(name);
    const std::string text = prairielearn_report(report, kInstructor);
    EXPECT_EQ(prairielearn_problem(text), "") << text;
    const nlohmann::json json = nlohmann::json::parse(text);
    EXPECT_EQ(json.at("gradable"), true) << "a compile error or a broken rule is the student's 0, a grade";
    ASSERT_EQ(json.at("tests").size(), report.tests.size());
  }
  const nlohmann::json graded = nlohmann::json::parse(prairielearn_report(graded_report(), kInstructor));
  EXPECT_DOUBLE_EQ(graded.at("score").get<double>(), 25.2 / 48);
  EXPECT_EQ(graded["tests"][0]["name"], "SelfCheck.VectorAddSmall");
  EXPECT_EQ(graded["tests"][0]["points"], 5);
  EXPECT_EQ(graded["tests"][0]["max_points"], 5);
  EXPECT_EQ(graded["tests"][0]["message"], "passed");
  EXPECT_EQ(graded["tests"][1]["message"], "failed");
  EXPECT_NE(graded["tests"][1]["output"].get<std::string>().find("expected 1.5"), std::string::npos)
      << "a public test's details reach the student";
  EXPECT_EQ(graded["tests"][3]["output"], "(details of hidden tests are not shown)");
  EXPECT_EQ(graded["tests"][3]["message"], "crashed");
  EXPECT_EQ(graded["tests"][7]["points"], 6.2);
  EXPECT_EQ(graded["tests"][7]["message"], "passed, below full credit");
  EXPECT_EQ(graded["tests"][6]["description"], "timed case (hidden)");

  const nlohmann::json failed_build = nlohmann::json::parse(prairielearn_report(build_failed_report(), kInstructor));
  EXPECT_EQ(failed_build.at("score"), 0);
  EXPECT_NE(failed_build.at("output").get<std::string>().find("Compiler output:\nvector_add.cu(7): error"),
            std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(prairielearn_report(rule_violation_report(), kInstructor)).at("score"), 0);

  // Not a grade: PrairieLearn must neither score it nor count the attempt.
  GradeResult no_gpu = graded_report();
  no_gpu.status = RunStatus::NoCudaDevice;
  GradeResult broken_yaml = graded_report();
  broken_yaml.status = RunStatus::ConfigurationError;
  GradeResult self_check = graded_report();
  self_check.mode = "check";
  GradeResult busy_machine = graded_report();
  busy_machine.status = RunStatus::MachineBusy;
  for (const GradeResult& report : {no_gpu, broken_yaml, self_check, busy_machine}) {
    const std::string text = prairielearn_report(report, kInstructor);
    EXPECT_EQ(prairielearn_problem(text), "") << text;
    const nlohmann::json json = nlohmann::json::parse(text);
    EXPECT_EQ(json.at("gradable"), false) << text;
    EXPECT_FALSE(json.contains("score")) << text;
    EXPECT_FALSE(json.at("format_errors").empty());
  }
  EXPECT_NE(nlohmann::json::parse(prairielearn_report(no_gpu, kInstructor))["format_errors"][0].get<std::string>().find(
                "no usable CUDA device"),
            std::string::npos);
  EXPECT_NE(nlohmann::json::parse(prairielearn_report(busy_machine, kInstructor))["format_errors"][0]
                .get<std::string>()
                .find("too busy to time your code fairly"),
            std::string::npos);
}

TEST(PrairieLearnReport, StaysWithinTheSizeLimit) {
  GradeResult huge = build_failed_report();
  huge.build.output.clear();
  for (int i = 0; i < 60000; ++i) huge.build.output += "vector_add.cu(7): error: \x01 Ünïcødé \xff an error line\n";
  GradeResult many = graded_report();
  for (int i = 0; i < 300; ++i) {
    many.tests.push_back(test("Many.Test" + std::to_string(i), Visibility::Public, 1, 0, TestStatus::Failed,
                              std::string(20000, '\x02') + "tail", 0.1));
  }
  many.points_possible += 300;
  for (const GradeResult& report : {huge, many}) {
    const std::string text = prairielearn_report(report, kInstructor);
    EXPECT_LE(text.size(), kPrairieLearnResultsLimit);
    EXPECT_EQ(prairielearn_problem(text), "");
    EXPECT_NE(text.find("more bytes cut: PrairieLearn takes at most 1 MB"), std::string::npos)
        << "a cut message says so";
  }
  // Any limit is kept, down to what the fields themselves need.
  const std::string small = prairielearn_results(many, 150000).dump(2, ' ', false, nlohmann::json::error_handler_t::replace);
  EXPECT_LE(small.size() + 1, 150000u);
  EXPECT_EQ(nlohmann::json::parse(small).at("tests").size(), many.tests.size()) << "every test stays listed";
}

TEST(HtmlReport, IsSelfContainedWellFormedAndEscaped) {
  for (const auto& [name, report] : fixtures()) {
    for (const ReportView view : {kInstructor, kStudent}) {
      const std::string html = html_report(report, view);
      SCOPED_TRACE(name);
      EXPECT_EQ(xml_problem(html), "") << "the page is written as well-formed XML too";
      EXPECT_EQ(xmllint_problem(html, "html_" + name + ".html"), "");
      for (const char* external : {"http:", "https:", "<script", "<link", "src=", "url(", "@import"}) {
        EXPECT_EQ(html.find(external), std::string::npos) << "the page must not fetch anything: " << external;
      }
    }
  }
  const std::string graded = html_report(graded_report(), kInstructor);
  EXPECT_EQ(graded.find("<never written>"), std::string::npos);
  EXPECT_NE(graded.find("got &lt;never written&gt; &amp; &quot;quoted&quot; &#39;single&#39; ]]&gt;"),
            std::string::npos);
  EXPECT_NE(graded.find("submissions/Ünïcødé/"), std::string::npos);
  EXPECT_EQ(count(graded, "<svg "), 4u) << "per measured case: time, and bandwidth against the copy peak";
  EXPECT_NE(graded.find("79.1%"), std::string::npos);

  const std::string failed_build = html_report(build_failed_report(), kInstructor);
  EXPECT_NE(failed_build.find("<h2>Compiler output</h2>"), std::string::npos);
  EXPECT_NE(failed_build.find("no operator &quot;&lt;&quot; matches std::vector&lt;float&gt; &amp; &#39;int&#39;"),
            std::string::npos);
  const std::string violation = html_report(rule_violation_report(), kInstructor);
  EXPECT_NE(violation.find("<h2>Rules broken (the lab scores 0)</h2>"), std::string::npos);
}

TEST(ReportFormats, StudentViewsNeverShowHiddenTestsDetails) {
  const GradeResult report = graded_report();
  std::ostringstream text;
  write_text_report(text, report, TextStyle{false, false});
  const std::map<std::string, std::string> views{
      {"junit", junit_report(report, kStudent)},
      {"html", html_report(report, kStudent)},
      {"gradescope", gradescope_results(report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)},
      {"prairielearn", prairielearn_report(report, kInstructor)},
      {"text", text.str()}};
  for (const auto& [format, rendered] : views) {
    EXPECT_EQ(rendered.find(kSecret), std::string::npos) << format;
    EXPECT_NE(rendered.find("LargePrime"), std::string::npos) << format << ": names stay";
    EXPECT_NE(rendered.find("expected 1.5"), std::string::npos) << format << ": public details stay";
  }
  EXPECT_NE(junit_report(report, kInstructor).find(kSecret), std::string::npos) << "instructors see everything";
  EXPECT_NE(html_report(report, kInstructor).find(kSecret), std::string::npos);
  // Hidden performance cases: the verdict, not the figures behind it.
  EXPECT_EQ(html_report(report, kStudent).find("<svg "), std::string::npos);
}

TEST(ReportFormats, SanitizerFindingsReachEveryFormat) {
  const GradeResult report = graded_report();
  std::ostringstream text;
  write_text_report(text, report, TextStyle{true, false});
  const std::map<std::string, std::string> views{
      {"junit", junit_report(report, kInstructor)},
      {"html", html_report(report, kInstructor)},
      {"gradescope", gradescope_results(report).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)},
      {"text", text.str()}};
  for (const auto& [format, rendered] : views) {
    EXPECT_NE(rendered.find("racecheck: 1 error"), std::string::npos) << format << ":\n" << rendered;
  }
  EXPECT_NE(views.at("junit").find("Race reported between Write access"), std::string::npos);
  EXPECT_NE(views.at("html").find("1 of 2 clean"), std::string::npos);
}

// --- text handling and files ----------------------------------------------------------------

TEST(MarkupEscape, ReplacesWhatXmlCannotCarry) {
  EXPECT_EQ(markup_escape("a<b>&\"'"), "a&lt;b&gt;&amp;&quot;&#39;");
  EXPECT_EQ(markup_escape("tab\tline\nret\r"), "tab\tline\nret&#13;");
  EXPECT_EQ(markup_escape("tab\tline\n", true), "tab&#9;line&#10;");
  const std::string replacement = "\xEF\xBF\xBD";
  EXPECT_EQ(markup_escape(std::string("\x01\x1b[31m", 6)), replacement + replacement + "[31m");
  EXPECT_EQ(markup_escape(std::string("nul\0", 4)), "nul" + replacement);
  EXPECT_EQ(markup_escape("\xff"), replacement);
  EXPECT_EQ(markup_escape("\xC0\xAF"), replacement + replacement) << "overlong '/'";
  EXPECT_EQ(markup_escape("\xED\xA0\x80"), replacement + replacement + replacement) << "a surrogate";
  EXPECT_EQ(markup_escape("\xEF\xBF\xBE"), replacement) << "U+FFFE";
  EXPECT_EQ(markup_escape("Ünïcødé €𝄞"), "Ünïcødé €𝄞");
  EXPECT_EQ(valid_utf8("ok\xffok\xE2\x82"), "ok" + replacement + "ok" + replacement + replacement);
  EXPECT_EQ(first_line("Ünïcødé and more\nsecond", 7), "Ünïcødé...");
  EXPECT_EQ(first_line("short", 10), "short");
}

TEST(ReportFiles, AreWrittenAtomicallyAndNeverOverADirectory) {
  const fs::path dir = fs::path(::testing::TempDir()) / "report_formats_files";
  fs::remove_all(dir);
  fs::create_directories(dir / "a_directory");
  write_junit_report(dir / "report.xml", graded_report(), kInstructor);
  EXPECT_EQ(read(dir / "report.xml"), junit_report(graded_report(), kInstructor));
  write_html_report(dir / "report.xml", build_failed_report(), kInstructor);  // replaces the file
  EXPECT_EQ(read(dir / "report.xml"), html_report(build_failed_report(), kInstructor));

  try {
    write_html_report(dir / "a_directory", graded_report(), kInstructor);
    ADD_FAILURE() << "wrote over a directory";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("cannot write the HTML report to " + (dir / "a_directory").string() +
                                             ": it is a directory"),
              std::string::npos)
        << error.what();
  }
  EXPECT_TRUE(fs::is_directory(dir / "a_directory"));
  EXPECT_THROW(write_gradescope_report(dir / "missing" / "results.json", graded_report()), std::runtime_error);
  for (const auto& entry : fs::directory_iterator(dir)) {
    EXPECT_EQ(entry.path().string().find(".partial"), std::string::npos) << "left behind: " << entry.path();
  }
}

TEST(ReportOutputs, WritesEachFormatWhereAsked) {
  const fs::path dir = fs::path(::testing::TempDir()) / "report_formats_outputs";
  fs::remove_all(dir);
  ReportOutputs outputs;
  outputs.output_dir = dir / "all";
  outputs.files["html"] = dir / "extra.html";
  prepare_report_outputs(outputs);  // creates the directory
  std::ostringstream out, notes;
  emit_reports(graded_report(), outputs, out, false, notes);
  for (const char* name : {"report.txt", "report.json", "report.junit.xml", "results.json", "report.html",
                           "prairielearn_results.json"}) {
    EXPECT_TRUE(fs::is_regular_file(dir / "all" / name)) << name;
    EXPECT_NE(out.str().find((dir / "all" / name).string()), std::string::npos) << "says where " << name << " went";
  }
  EXPECT_TRUE(fs::is_regular_file(dir / "extra.html"));
  EXPECT_NE(out.str().find("Score: 25.2 / 48"), std::string::npos) << "the text report on stdout";
  EXPECT_EQ(read(dir / "all" / "results.json"),
            gradescope_results(graded_report()).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");

  // One format on stdout, and nothing else there: it can be piped.
  ReportOutputs json_only;
  json_only.formats = {"json"};
  json_only.files["junit"] = dir / "report.xml";
  std::ostringstream json_out, json_notes;
  emit_reports(graded_report(), json_only, json_out, false, json_notes);
  EXPECT_EQ(nlohmann::json::parse(json_out.str())["lab"], "01_vector_add");
  EXPECT_NE(json_notes.str().find("JUnit report: "), std::string::npos);

  ReportOutputs two_on_stdout;
  two_on_stdout.formats = {"json", "html"};
  EXPECT_THROW(prepare_report_outputs(two_on_stdout), UsageError);
  ReportOutputs into_directory;
  into_directory.files["gradescope"] = dir;
  EXPECT_THROW(prepare_report_outputs(into_directory), UsageError);
  ReportOutputs unknown;
  unknown.formats = {"pdf"};
  EXPECT_THROW(prepare_report_outputs(unknown), UsageError);
}

// The roofline of a case with FLOPs: a 4096^3 matmul (683 FLOP/B) is past the ridge of an H100
// (66909 / 2986 = 22.4 FLOP/B), so the FP32 roof binds; a preview has no reference point.
TEST(ReportFormats, PlacesEachTimedCaseOnTheRoofline) {
  PerformanceResult matmul = measured(13.7, 6.85, 44.1, 1.0, 4.0, {2.0, 1.98, 2.02}, "2x the solution's time");
  matmul.measurement.flops = 2.0 * 4096.0 * 4096.0 * 4096.0;
  matmul.measurement.bytes = 3.0 * 4096 * 4096 * 4;
  matmul.measurement.fp32_peak_gflops = 66909;
  const auto roof = roofline_of(matmul.measurement);
  ASSERT_TRUE(roof);
  EXPECT_NEAR(roof->intensity, 682.7, 0.1);
  EXPECT_NEAR(roof->ridge, 22.4, 0.05);
  EXPECT_FALSE(roof->memory_bound);
  EXPECT_NEAR(roof->student_fraction, 2.0 * 4096.0 * 4096.0 * 4096.0 / 13.7e-3 / 1e9 / 66909, 1e-9);
  ASSERT_TRUE(roof->reference_fraction);
  EXPECT_NEAR(*roof->reference_fraction, 2 * roof->student_fraction, 1e-9);
  EXPECT_EQ(describe(*roof), "roofline: 683 FLOP/B, above the ridge at 22.4 FLOP/B; the FP32 roof (66909 GFLOP/s) "
                             "binds: you reach 15% of it, the reference 30%");
  GradeResult report = graded_report();
  report.tests[6].performance = matmul;
  const std::string html = html_report(report, kInstructor);
  EXPECT_NE(html.find("aria-label=\"Roofline of this GPU"), std::string::npos);
  EXPECT_NE(html.find(">reference</text>"), std::string::npos);
  const nlohmann::json json = report_to_json(report);
  EXPECT_EQ(json.at("tests")[6].at("performance").at("roofline").at("binding_roof"), "compute");

  // Timed alone (a preview): the student's point only; a case without bytes has no roofline.
  PerformanceMeasurement alone = matmul.measurement;
  alone.compared_with = cudalabs::events::kComparedWithNothing;
  EXPECT_FALSE(roofline_of(alone)->reference_fraction);
  alone.bytes = 0;
  EXPECT_FALSE(roofline_of(alone));
}

// Every format names what each kernel uses, as the compiler reported it.
TEST(ReportFormats, EveryFormatListsTheKernelsResources) {
  GradeResult report = graded_report();
  KernelResources tiled;
  tiled.name = "tiled_kernel<64u, 8u, 1u>";
  tiled.arch = "sm_90";
  tiled.registers = 32;
  tiled.shared_bytes = 16640;
  KernelResources spilling = tiled;
  spilling.name = "naive_kernel";
  spilling.shared_bytes = 0;
  spilling.spill_store_bytes = 24;
  spilling.spill_load_bytes = 16;
  report.build.attempted = true;
  report.build.succeeded = true;
  report.build.kernels = {tiled, spilling};
  const std::string line = "tiled_kernel<64u, 8u, 1u> (sm_90): 32 registers, 16640 B shared memory, no spills";
  const std::string spill = "naive_kernel (sm_90): 32 registers, spills 24 B to local memory and loads 16 B back";
  std::ostringstream text;
  write_text_report(text, report, TextStyle{false, true});
  for (const std::string& out : {text.str(), gradescope_results(report).at("output").get<std::string>()}) {
    EXPECT_NE(out.find(line), std::string::npos) << out;
    EXPECT_NE(out.find(spill), std::string::npos) << out;
  }
  const std::string junit = junit_report(report, kInstructor);
  EXPECT_NE(junit.find(markup_escape(line)), std::string::npos) << junit;
  EXPECT_NE(junit.find(spill), std::string::npos) << junit;
  EXPECT_NE(html_report(report, kInstructor).find(">tiled_kernel&lt;64u, 8u, 1u&gt;</td>"),
            std::string::npos);
  EXPECT_EQ(report_to_json(report).at("build").at("kernels")[1].at("spill_store_bytes"), 24);
}

// People read the points: at most two decimals (the JSON keeps the exact value).
TEST(ReportFormats, PointsHaveAtMostTwoDecimals) {
  EXPECT_EQ(format_points(95.4567), "95.46");
  EXPECT_EQ(format_points(4.0), "4");
  EXPECT_EQ(format_points(7.5), "7.5");
  EXPECT_EQ(format_points(0.004), "0");
  EXPECT_EQ(format_points(-0.001), "0");
  GradeResult report = graded_report();
  report.points_earned = 95.4567;
  std::ostringstream text;
  write_text_report(text, report, TextStyle{false, true});
  EXPECT_NE(text.str().find("Score: 95.46 / 48"), std::string::npos) << text.str();
  EXPECT_NE(html_report(report, kInstructor).find(">95.46 / 48<"), std::string::npos);
  EXPECT_DOUBLE_EQ(report_to_json(report).at("points_earned").get<double>(), 95.4567);
}

// A run whose tests could not run for a reason that is not the student's shows no score in any
// format (a 0 would read as one the student earned); a compile error is still a 0.
TEST(ReportFormats, ARunWithoutAScoreShowsNoPoints) {
  GradeResult no_gpu = graded_report();
  no_gpu.status = RunStatus::NoCudaDevice;
  no_gpu.status_detail = "not a grade: no CUDA device is usable here";
  no_gpu.points_earned = 0;
  for (auto& test : no_gpu.tests) test.points_earned = 0;
  GradeResult broken_yaml = no_gpu;
  broken_yaml.status = RunStatus::ConfigurationError;
  GradeResult busy_machine = no_gpu;
  busy_machine.status = RunStatus::MachineBusy;
  for (const GradeResult& report : {no_gpu, broken_yaml, busy_machine}) {
    SCOPED_TRACE(std::string(run_status_name(report.status)));
    EXPECT_FALSE(has_score(report));
    std::ostringstream text;
    write_text_report(text, report, TextStyle{false, true});
    EXPECT_EQ(text.str().find("Score:"), std::string::npos) << text.str();
    EXPECT_NE(text.str().find("No score (of 48 points)"), std::string::npos) << text.str();
    const std::string html = html_report(report, kInstructor);
    EXPECT_NE(html.find(": no score</title>"), std::string::npos);
    EXPECT_NE(html.find("<span class=\"points\">no score</span>"), std::string::npos);
    EXPECT_EQ(html.find("0 / 48"), std::string::npos);
    const nlohmann::json json = report_to_json(report);
    EXPECT_TRUE(json.at("points_earned").is_null());
    EXPECT_EQ(json.at("points_possible"), 48);
    for (const auto& test : json.at("tests")) EXPECT_TRUE(test.at("points_earned").is_null()) << test.at("name");
    EXPECT_EQ(junit_report(report, kInstructor).find("name=\"points_earned\""), std::string::npos);
  }
  const GradeResult compile_error = build_failed_report();
  EXPECT_TRUE(has_score(compile_error));
  EXPECT_TRUE(report_to_json(compile_error).at("points_earned").is_number());
  std::ostringstream text;
  write_text_report(text, compile_error, TextStyle{false, true});
  EXPECT_NE(text.str().find("Score: 0 / 15"), std::string::npos) << text.str();
}

// A run that is not a grade leaves nothing an LMS reads as a score: no results.json (an old one
// stays as it was), nothing on stdout for --format gradescope; the other reports still say why.
TEST(ReportOutputs, OnlyAGradeWritesTheGradescopeReport) {
  const fs::path dir = fs::path(::testing::TempDir()) / "report_formats_not_a_grade";
  fs::remove_all(dir);
  GradeResult no_gpu = graded_report();
  no_gpu.status = RunStatus::NoCudaDevice;
  no_gpu.status_detail = "not a grade: no CUDA device";
  GradeResult self_check = graded_report();
  self_check.mode = "check";
  GradeResult busy_machine = graded_report();
  busy_machine.status = RunStatus::MachineBusy;
  busy_machine.status_detail = "not graded: the machine was too busy to time Performance.saxpy_2to26 fairly";
  for (const auto& [name, report] :
       {std::pair{"no_gpu", no_gpu}, std::pair{"check", self_check}, std::pair{"busy_machine", busy_machine}}) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(is_a_grade(report));
    ReportOutputs outputs;
    outputs.output_dir = dir / name / "all";
    outputs.files["gradescope"] = dir / name / "results.json";
    prepare_report_outputs(outputs);
    std::ofstream(dir / name / "results.json") << "an earlier grade";
    std::ostringstream out, notes;
    emit_reports(report, outputs, out, false, notes);
    EXPECT_FALSE(fs::exists(dir / name / "all" / "results.json"));
    EXPECT_EQ(read(dir / name / "results.json"), "an earlier grade") << "left as it was";
    for (const char* other : {"report.txt", "report.json", "report.junit.xml", "report.html"}) {
      EXPECT_TRUE(fs::is_regular_file(dir / name / "all" / other)) << other;
    }
    // PrairieLearn is told, rather than left without a file: not gradable, no score, no attempt lost.
    const nlohmann::json prairielearn = nlohmann::json::parse(read(dir / name / "all" / "prairielearn_results.json"));
    EXPECT_EQ(prairielearn.at("gradable"), false);
    EXPECT_FALSE(prairielearn.contains("score"));
    EXPECT_NE(notes.str().find("no Gradescope report written to " + (dir / name / "results.json").string() +
                               ": this run is not a grade"),
              std::string::npos)
        << notes.str();
    EXPECT_NE(notes.str().find("left as it was"), std::string::npos) << notes.str();
    EXPECT_EQ(out.str().find("Gradescope report:"), std::string::npos) << out.str();

    ReportOutputs on_stdout;
    on_stdout.formats = {"gradescope"};
    std::ostringstream piped, piped_notes;
    emit_reports(report, on_stdout, piped, false, piped_notes);
    EXPECT_EQ(piped.str(), "");
    EXPECT_NE(piped_notes.str().find("no Gradescope report written to stdout"), std::string::npos);
  }
  // Code that does not compile is graded: a 0, with the compiler's messages, for the LMS too.
  EXPECT_TRUE(is_a_grade(build_failed_report()));
  EXPECT_TRUE(is_a_grade(rule_violation_report()));
  ReportOutputs outputs;
  outputs.files["gradescope"] = dir / "compile_error.json";
  std::ostringstream out, notes;
  emit_reports(build_failed_report(), outputs, out, false, notes);
  EXPECT_EQ(read(dir / "compile_error.json"),
            gradescope_results(build_failed_report()).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                "\n");
  EXPECT_EQ(notes.str(), "");
}

TEST(ReportFormats, EachFormatHasOneEntryAndItsOwnFile) {
  std::set<std::string_view> files;
  for (const ReportFormat& format : report_formats()) {
    EXPECT_EQ(find_report_format(format.name), &format);
    EXPECT_TRUE(files.insert(format.default_file).second) << "two formats write " << format.default_file;
    EXPECT_EQ(format.option.empty(), format.name == "text") << "every format but text has a file option";
    EXPECT_FALSE(format.render(graded_report(), ReportView{true}).empty()) << format.name;
  }
  EXPECT_EQ(find_report_format("pdf"), nullptr);
  EXPECT_EQ(report_format_names(" or "), "text, json, junit, gradescope, html or prairielearn");
}

}  // namespace
}  // namespace labgrade
