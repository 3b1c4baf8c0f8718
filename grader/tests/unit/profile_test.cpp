// The profile pass's host side, on recorded Nsight Compute logs (fixtures/ncu/): reading ncu's
// raw CSV, the figures and hints the lab's `profile:` asks for, and every report format's view of
// them; ncu missing, not permitted, or silent about a metric.
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "report/gradescope_report.hpp"
#include "report/html_report.hpp"
#include "report/json_report.hpp"
#include "report/junit_report.hpp"
#include "report/profile_text.hpp"
#include "report/text_report.hpp"
#include "run/ncu_csv.hpp"
#include "run/ncu_tool.hpp"
#include "run/profile_figures.hpp"
#include "run/profile_pass.hpp"

namespace labgrade {
namespace {

namespace config = cudalabs::config;

std::string fixture(const std::string& name) {
  std::ifstream in(std::string(LABGRADE_UNIT_FIXTURES) + "/ncu/" + name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (text.str().empty()) throw std::runtime_error("missing fixture ncu/" + name);
  return text.str();
}

config::ProfileMetricSpec metric(std::string name, std::string hint = "", std::optional<double> ratio_above = {},
                                 std::optional<double> above = {}) {
  config::ProfileMetricSpec spec;
  spec.name = std::move(name);
  spec.hint = std::move(hint);
  spec.hint_when_ratio_above = ratio_above;
  spec.hint_when_above = above;
  return spec;
}

// Lab 04's own profile: store sectors per request, bank conflicts per shared load, DRAM throughput.
config::ProfileSpec transpose_spec() {
  config::ProfileSpec spec;
  spec.metrics = {metric("global_store_sectors_per_request", "strided stores (step 2)", 2.0, 8.0),
                  metric("shared_load_bank_conflicts_per_request", "pad the tile, tile[32][33] (Steps, 3)", 4.0, 4.0),
                  metric("dram_throughput")};
  for (auto& m : spec.metrics) m.label = std::string(config::find_derived_metric(m.name)->meaning);
  return spec;
}

// ---- ncu's raw CSV -----------------------------------------------------------------------------

TEST(NcuCsv, ReadsUnitsLaunchesAndNumbersWithSeparators) {
  const NcuLog log = parse_ncu_log(fixture("transpose_student_unpadded.csv"));
  EXPECT_FALSE(log.permission_denied);
  EXPECT_TRUE(log.errors.empty());
  ASSERT_EQ(log.launches.size(), 1u);
  const NcuLaunch& launch = log.launches[0];
  EXPECT_EQ(launch.id, "0");
  // ncu prints the symbol (--print-kernel-base mangled); the launch columns are not metrics, the
  // device attributes and rollups ncu adds are kept like any column.
  EXPECT_EQ(launch.kernel, "_ZN7student26transpose_coalesced_kernelEPKfPfii");
  EXPECT_EQ(launch.values.at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"), "65,011,712");
  EXPECT_EQ(ncu_number(launch.values.at("l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum")), 65011712.0);
  EXPECT_EQ(log.units.at("gpu__time_duration.sum"), "ns");
  EXPECT_EQ(launch.values.at("device__attribute_display_name"), "NVIDIA H100 80GB HBM3");
  EXPECT_EQ(log.units.at("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"), "sector");
  EXPECT_EQ(launch.values.count("Block Size"), 0u);  // launch columns are not metrics
}

TEST(NcuCsv, NumbersAndNamesAsAReaderKnowsThem) {
  EXPECT_EQ(ncu_number("52.31"), 52.31);
  EXPECT_EQ(ncu_number("1,284,512"), 1284512.0);
  EXPECT_FALSE(ncu_number("n/a"));
  EXPECT_FALSE(ncu_number(""));
  EXPECT_EQ(split_csv_line(R"("a","b ""quoted""","c,d")"), (std::vector<std::string>{"a", "b \"quoted\"", "c,d"}));
  EXPECT_EQ(kernel_base_name("void student::tiled_kernel<64u, 8u>(const float *, float *, int)"),
            "student::tiled_kernel<64u, 8u>");
  EXPECT_EQ(kernel_base_name("student::(anonymous namespace)::vector_add_kernel(const float *, unsigned long)"),
            "student::(anonymous namespace)::vector_add_kernel");
  EXPECT_EQ(kernel_base_name("plain_kernel"), "plain_kernel");
  // Symbols are demangled here: ncu 2025.3's own "demangled" names drop the namespaces.
  EXPECT_EQ(kernel_base_name("_ZN8solution12_GLOBAL__N_112tiled_kernelILi64ELi8ELi1EEEvPKfPfjj"),
            "solution::(anonymous namespace)::tiled_kernel<64, 8, 1>");
  EXPECT_EQ(kernel_base_name("_ZN8cudalabs6remote12_GLOBAL__N_111null_kernelEv"),
            "cudalabs::remote::(anonymous namespace)::null_kernel");
  EXPECT_EQ(kernel_base_name("_Znot_a_symbol"), "_Znot_a_symbol");
}

TEST(NcuCsv, PermissionErrorIsRecognised) {
  const NcuLog log = parse_ncu_log(fixture("not_permitted.csv"));
  EXPECT_TRUE(log.permission_denied);
  ASSERT_EQ(log.errors.size(), 1u);
  EXPECT_EQ(log.errors[0].rfind("ERR_NVGPUCTRPERM - The user does not have permission", 0), 0u) << log.errors[0];
  EXPECT_TRUE(log.launches.empty());
  EXPECT_NE(counters_not_permitted().find("ERR_NVGPUCTRPERM"), std::string::npos);
}

TEST(NcuCsv, AnEmptyOrForeignLogHasNoLaunches) {
  EXPECT_TRUE(parse_ncu_log("").launches.empty());
  EXPECT_TRUE(parse_ncu_log("Running main() from gtest_main.cc\n[ RUN      ] Preview.sum\n").launches.empty());
}

// ---- figures and hints ----------------------------------------------------------------------

TEST(ProfileFigures, DerivedFiguresBesideTheReferencesWithTheHint) {
  const NcuLog student = parse_ncu_log(fixture("transpose_student_unpadded.csv"));
  const NcuLog reference = parse_ncu_log(fixture("transpose_reference_padded.csv"));
  const ProfiledCase profiled = profiled_case("Performance.conflict_free_8192", transpose_spec(), student, &reference, nullptr);
  EXPECT_EQ(profiled.problem, "");
  ASSERT_EQ(profiled.student_kernels.size(), 1u);
  EXPECT_EQ(profiled.student_kernels[0].name, "student::transpose_coalesced_kernel");
  ASSERT_EQ(profiled.reference_kernels.size(), 1u);
  EXPECT_EQ(profiled.reference_kernels[0].name, "solution::(anonymous namespace)::tiled_kernel<64, 8, 1>");
  ASSERT_EQ(profiled.metrics.size(), 3u);

  const ProfiledMetric& stores = profiled.metrics[0];
  EXPECT_EQ(stores.student, 4.0);  // 8,388,608 sectors / 2,097,152 requests: coalesced
  EXPECT_EQ(stores.reference, 4.0);
  EXPECT_EQ(stores.unit, "sectors/request");
  EXPECT_EQ(stores.hint, "");

  const ProfiledMetric& conflicts = profiled.metrics[1];
  EXPECT_EQ(conflicts.student, 31.0);
  EXPECT_EQ(conflicts.reference, 0.0);
  EXPECT_EQ(conflicts.hint, "pad the tile, tile[32][33] (Steps, 3)");
  EXPECT_EQ(conflicts.hint_because, "the reference's is 0");

  const ProfiledMetric& dram = profiled.metrics[2];
  EXPECT_NEAR(*dram.student, 24.61, 1e-9);
  EXPECT_EQ(dram.unit, "%");
}

TEST(ProfileFigures, ARatioToTheReferenceAndAnAbsoluteLimit) {
  ProfiledMetric figure;
  figure.student = 31;
  figure.reference = 1;
  apply_hint(figure, metric("x", "pad it", 4.0));
  EXPECT_EQ(figure.hint_because, "31x the reference's");
  ProfiledMetric close;
  close.student = 3;
  close.reference = 1;
  apply_hint(close, metric("x", "pad it", 4.0));
  EXPECT_EQ(close.hint, "");
  ProfiledMetric alone;  // a self-check: no reference, so only the absolute limit can hold
  alone.student = 31;
  apply_hint(alone, metric("x", "pad it", 4.0, 4.0));
  EXPECT_EQ(alone.hint_because, "above 4");
  // Beside the reference only the ratio counts: the naive step's strided stores (32 sectors per
  // request) are the reference's too, and no mistake of the student's.
  ProfiledMetric shared;
  shared.student = 32;
  shared.reference = 32;
  apply_hint(shared, metric("x", "stage the tile", 2.0, 8.0));
  EXPECT_EQ(shared.hint, "");
  ProfiledMetric both_zero;
  both_zero.student = 0;
  both_zero.reference = 0;
  apply_hint(both_zero, metric("x", "pad it", 4.0));
  EXPECT_EQ(both_zero.hint, "");
  config::ProfileMetricSpec below = metric("x", "more warps");
  below.hint_when_ratio_below = 0.5;
  ProfiledMetric low;
  low.student = 20;
  low.reference = 80;
  apply_hint(low, below);
  EXPECT_EQ(low.hint_because, "0.25x the reference's");
}

TEST(ProfileFigures, LaunchesAddUpOrAverageByDurationWithoutTheFrameworksKernels) {
  const NcuLog log = parse_ncu_log(fixture("reduction_check.csv"));
  const auto launches = code_launches(log);
  ASSERT_EQ(launches.size(), 2u);  // cudalabs::remote::...::null_kernel is the framework's
  const auto kernels = kernels_of(launches);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "student::sum_blocks_kernel<256u>");
  config::ProfileSpec spec;
  spec.metrics = {metric("shared_bank_conflicts"), metric("dram_throughput"), metric("achieved_occupancy"),
                  metric("stall_barrier")};
  const auto figures = profile_figures(spec, launches, log, nullptr, nullptr);
  ASSERT_EQ(figures.size(), 4u);
  EXPECT_EQ(figures[0].student, 1200.0 + 800.0 + 50.0);  // counters add up over launches
  // Percentages are weighted by each launch's duration: (80 * 300000 + 2 * 100000) / 400000.
  EXPECT_NEAR(*figures[1].student, 60.5, 1e-9);
  EXPECT_NEAR(*figures[2].student, 70.0, 1e-9);
  EXPECT_FALSE(figures[1].reference);  // a self-check has no reference
  // n/a in one launch: no figure, and the reason.
  EXPECT_FALSE(figures[3].student);
  EXPECT_NE(figures[3].missing.find("'n/a'"), std::string::npos) << figures[3].missing;
}

TEST(ProfileFigures, AMetricMissingFromTheLogIsSaidToBeMissing) {
  const NcuLog log = parse_ncu_log(fixture("transpose_student_unpadded.csv"));
  config::ProfileSpec spec;
  spec.metrics = {metric("achieved_occupancy"), metric("global_load_sectors_per_request")};
  const auto figures = profile_figures(spec, code_launches(log), log, nullptr, nullptr);
  EXPECT_FALSE(figures[0].student);
  EXPECT_NE(figures[0].missing.find("ncu reported no sm__warps_active.avg.pct_of_peak_sustained_active"),
            std::string::npos)
      << figures[0].missing;
  EXPECT_FALSE(figures[1].student);
  EXPECT_NE(figures[1].missing.find("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"), std::string::npos);
}

TEST(ProfileFigures, ACaseThatDidNotFinishOrRanNoKernelSaysSo) {
  const NcuLog none = parse_ncu_log(fixture("not_permitted.csv"));
  TestOutcome crashed{"Performance.conflict_free_8192", TestStatus::Crashed, "killed by SIGSEGV\nmore", 2.0};
  const ProfiledCase profiled = profiled_case("Performance.conflict_free_8192", transpose_spec(), none, nullptr, &crashed);
  EXPECT_NE(profiled.problem.find("did not finish under ncu (crashed): killed by SIGSEGV"), std::string::npos)
      << profiled.problem;
  EXPECT_NE(profiled.problem.find("ncu: ERR_NVGPUCTRPERM"), std::string::npos) << profiled.problem;
  for (const ProfiledMetric& m : profiled.metrics) EXPECT_FALSE(m.student);
}

// ---- finding ncu and its command line -------------------------------------------------------

TEST(NcuTool, AChosenNcuThatIsNotAProgramIsSaidToBeSo) {
  ::setenv("CUDALABS_NCU", "/nonexistent/ncu", 1);
  std::string why_not;
  EXPECT_TRUE(find_ncu("/usr/local/cuda/bin/nvcc", why_not).empty());
  ::unsetenv("CUDALABS_NCU");
  EXPECT_EQ(why_not, "CUDALABS_NCU names /nonexistent/ncu, which is not an executable file");
}

TEST(NcuTool, NoNcuAnywhereNamesWhatToInstall) {
  const char* path = std::getenv("PATH");
  const std::string saved = path ? path : "";
  ::setenv("PATH", "/nonexistent", 1);
  std::string why_not;
  const auto found = find_ncu("/nonexistent/bin/nvcc", why_not);
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_TRUE(found.empty());
  EXPECT_NE(why_not.find("Nsight Compute (ncu) was found neither next to /nonexistent/bin/nvcc nor on PATH"),
            std::string::npos)
      << why_not;
}

TEST(NcuTool, TheHarnessIsProfiledOnlyInsideItsMarkedRange) {
  const std::vector<std::string> metrics{"gpu__time_duration.sum", "dram__bytes.sum"};
  const auto runner = ncu_launcher("/opt/ncu", metrics, "/w/{test}.csv", false);
  EXPECT_EQ(runner.front(), "/opt/ncu");
  EXPECT_NE(std::find(runner.begin(), runner.end(), "gpu__time_duration.sum,dram__bytes.sum"), runner.end());
  EXPECT_EQ(runner[runner.size() - 2], "--log-file");
  EXPECT_EQ(runner.back(), "/w/{test}.csv");
  EXPECT_EQ(std::find(runner.begin(), runner.end(), "--profile-from-start"), runner.end());
  const auto harness = ncu_launcher("/opt/ncu", metrics, "/w/Preview.sum.csv", true);
  const auto from_start = std::find(harness.begin(), harness.end(), "--profile-from-start");
  ASSERT_NE(from_start, harness.end());
  EXPECT_EQ(*(from_start + 1), "off");
  EXPECT_EQ(harness.back(), "/w/Preview.sum.csv");
}

// ---- the reports --------------------------------------------------------------------------

GradeResult graded_with_profile() {
  GradeResult report;
  report.mode = "grade";
  report.lab = "04_transpose";
  report.title = "Matrix transpose";
  report.submission = "alice/";
  report.device = "NVIDIA H100 80GB HBM3";
  report.build.attempted = true;
  report.build.succeeded = true;
  report.build.command = "nvcc ...";
  report.tests = {{"Performance.conflict_free_8192", config::Visibility::Hidden, 10, 3,
                   {"Performance.conflict_free_8192", TestStatus::Failed, "1.8x the solution's time", 4.0}, {}, {}}};
  report.points_possible = 10;
  report.points_earned = 3;
  report.total_seconds = 80;
  ProfileReport& profile = report.profile.emplace();
  profile.ran = true;
  profile.ncu = "/usr/local/cuda/bin/ncu";
  profile.with_reference = true;
  profile.seconds = 41.25;
  const NcuLog student = parse_ncu_log(fixture("transpose_student_unpadded.csv"));
  const NcuLog reference = parse_ncu_log(fixture("transpose_reference_padded.csv"));
  profile.cases.push_back(profiled_case("Performance.conflict_free_8192", transpose_spec(), student, &reference, nullptr));
  profile.cases.back().hidden = true;
  return report;
}

TEST(ProfileReports, TextShowsEachFigureBesideTheReferencesAndTheHint) {
  std::ostringstream out;
  write_text_report(out, graded_with_profile(), TextStyle{});
  const std::string text = out.str();
  EXPECT_NE(text.find("Profile (Nsight Compute, each timed call once, yours and the reference's; 41.2 s; not scored):"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("bank conflicts per shared-memory load instruction: 31 conflicts/request (the reference's: 0 "
                      "conflicts/request)"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("-> the reference's is 0: pad the tile, tile[32][33] (Steps, 3)"), std::string::npos) << text;
  EXPECT_NE(text.find("DRAM throughput (% of peak): 24.6 % (the reference's: 77.6 %)"), std::string::npos) << text;
  EXPECT_NE(text.find("the reference's: solution::"), std::string::npos);  // an instructor sees its kernels
  EXPECT_NE(text.find("profile pass 41.2 s"), std::string::npos) << text;    // in the time line too
  // A student's view names only their own kernels.
  std::ostringstream student;
  write_text_report(student, graded_with_profile(), TextStyle{false, false});
  EXPECT_EQ(student.str().find("solution::"), std::string::npos) << student.str();
  EXPECT_NE(student.str().find("your kernels: student::transpose_coalesced_kernel"), std::string::npos);
}

TEST(ProfileReports, JsonCarriesEveryFigureAndHowLongThePassTook) {
  const nlohmann::json json = report_to_json(graded_with_profile());
  const nlohmann::json& profile = json.at("profile");
  EXPECT_EQ(profile["ran"], true);
  EXPECT_EQ(profile["seconds"], 41.25);
  EXPECT_EQ(profile["with_reference"], true);
  const nlohmann::json& profiled = profile["cases"][0];
  EXPECT_EQ(profiled["test"], "Performance.conflict_free_8192");
  EXPECT_EQ(profiled["hidden"], true);
  EXPECT_EQ(profiled["student_kernels"][0]["name"], "student::transpose_coalesced_kernel");
  EXPECT_EQ(profiled["student_kernels"][0]["launches"], 1);
  const nlohmann::json& conflicts = profiled["metrics"][1];
  EXPECT_EQ(conflicts["name"], "shared_load_bank_conflicts_per_request");
  EXPECT_EQ(conflicts["student"], 31.0);
  EXPECT_EQ(conflicts["reference"], 0.0);
  EXPECT_EQ(conflicts["hint_because"], "the reference's is 0");
  // Without --profile the report has no such field (older readers see what they always saw).
  GradeResult plain = graded_with_profile();
  plain.profile.reset();
  EXPECT_FALSE(report_to_json(plain).contains("profile"));
}

TEST(ProfileReports, HtmlHasATablePerCaseAndStaysWellFormed) {
  const std::string html = html_report(graded_with_profile(), ReportView{});
  EXPECT_NE(html.find("<h2>Profile (Nsight Compute)</h2>"), std::string::npos);
  EXPECT_NE(html.find("<th class=\"num\">the reference's</th>"), std::string::npos);
  EXPECT_NE(html.find("31 conflicts/request"), std::string::npos);
  EXPECT_NE(html.find("the reference&#39;s is 0: pad the tile, tile[32][33] (Steps, 3)"), std::string::npos) << html;
}

TEST(ProfileReports, LmsFormatsCarryTheLinesForTheStudent) {
  const nlohmann::json gradescope = gradescope_results(graded_with_profile());
  const std::string output = gradescope["output"];
  EXPECT_NE(output.find("31 conflicts/request"), std::string::npos) << output;
  EXPECT_EQ(output.find("solution::"), std::string::npos) << output;  // always a student's view
  const std::string junit = junit_report(graded_with_profile(), ReportView{});
  EXPECT_NE(junit.find("name=\"profile\""), std::string::npos);
}

TEST(ProfileReports, APassThatCouldNotRunIsOneLineAndChangesNothingElse) {
  GradeResult report = graded_with_profile();
  GradeResult without = report;
  without.profile.reset();
  report.profile = ProfileReport{};
  report.profile->unavailable = counters_not_permitted();
  std::ostringstream with_text, without_text;
  write_text_report(with_text, report, TextStyle{});
  write_text_report(without_text, without, TextStyle{});
  const std::string line = "\nProfile (Nsight Compute): " + counters_not_permitted() + "\n";
  std::string expected = without_text.str();
  // The one line, placed where the section goes (before the kernels and compiler sections, which
  // this report does not have): everything else is the same.
  EXPECT_EQ(with_text.str(), expected + line);
  EXPECT_EQ(report_to_json(report)["points_earned"], report_to_json(without)["points_earned"]);
  EXPECT_EQ(report_to_json(report)["profile"]["ran"], false);
  EXPECT_EQ(profile_text(report, ReportView{}), "Profile (Nsight Compute): " + counters_not_permitted() + "\n");
}

}  // namespace
}  // namespace labgrade
