// How trustworthy are labgrade's timing verdicts? Grades lab 01 submissions repeatedly through
// the real pipeline (stage, nvcc, harness in a child process, interleaved timing) and reports:
//   1. noise: the reference graded as a submission N times: spread of the student/solution ratio
//      (target: every run within 1.00 +- 0.02) and of the absolute medians;
//   2. stability: a submission ~10% slower than the reference against max_ratio_to_solution 1.05
//      (must fail every time) and against 1.20 (must pass every time): verdict flips (target 0);
//   3. overhead: wall time of the timing phase per performance case (target < 3 s);
//   4. the reference vs the physical limit: vector_add GB/s / in-process copy GB/s (target >= 0.85).
// Thresholds for 2. come from a temporary course tree (config/ only) so the lab's real YAML is
// untouched. Usage: grading_bench [--runs N] [--json FILE]
#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "session/grading_session.hpp"

namespace fs = std::filesystem;
using labgrade::CoursePaths;
using labgrade::GradeResult;

namespace {

const std::string kLab = "01_vector_add";

struct Sample {
  double ratio = 0, student_ms = 0, solution_ms = 0, measure_seconds = 0, achieved_gbs = 0, peak_gbs = 0;
  double credit = 0;
  bool passed = false;
};

// The lab's YAML with vector_add judged on the ratio alone, all or nothing (saxpy_2to26 is a
// public case, timed alone against the copy bandwidth: it keeps its real threshold).
fs::path course_with_ratio_threshold(const fs::path& real_root, double ratio, const fs::path& where) {
  fs::create_directories(where / "config" / "labs");
  fs::copy_file(real_root / "config" / "course.yaml", where / "config" / "course.yaml",
                fs::copy_options::overwrite_existing);
  std::ifstream in(real_root / "config" / "labs" / (kLab + ".yaml"));
  std::string yaml((std::istreambuf_iterator<char>(in)), {});
  yaml = yaml.substr(0, yaml.find("\nperformance:"));
  yaml += fmt::format(R"(
performance:
  - {{name: vector_add_2to26, points: 10, visibility: hidden, threshold: {{max_ratio_to_solution: {0}}}}}
  - {{name: saxpy_2to26, points: 10, visibility: public, threshold: {{min_fraction_of_peak_bandwidth: 0.85}}}}
)", ratio);
  std::ofstream(where / "config" / "labs" / (kLab + ".yaml")) << yaml;
  return where;
}

std::map<std::string, Sample> grade_once(const CoursePaths& paths, const fs::path& submission) {
  labgrade::RunRequest request;
  request.lab = kLab;
  request.submission = submission;
  const GradeResult report = labgrade::grade_submission(paths, request);
  std::map<std::string, Sample> samples;
  for (const auto& test : report.tests) {
    if (!test.performance) continue;
    const auto& m = test.performance->measurement;
    if (m.solution_ms.samples == 0) continue;  // timed alone (a public case): no ratio to study
    samples[test.name] = Sample{m.ratio.median, m.student_ms.median, m.solution_ms.median, m.seconds,
                                m.achieved_gbs, m.peak_bandwidth_gbs, test.performance->verdict.credit,
                                test.performance->verdict.credit >= 1.0};
  }
  if (samples.empty()) {
    throw std::runtime_error(fmt::format("no performance case was measured grading {} ({}): {}", submission.string(),
                                         report.status_detail, report.build.output));
  }
  return samples;
}

struct Series {
  std::map<std::string, std::vector<Sample>> by_case;
};

Series grade_repeatedly(const CoursePaths& paths, const fs::path& submission, int runs, const std::string& label) {
  Series series;
  for (int run = 0; run < runs; ++run) {
    for (const auto& [name, sample] : grade_once(paths, submission)) {
      series.by_case[name].push_back(sample);
      std::printf("  %-22s run %2d  %-32s ratio %.4f  student %.4f ms  solution %.4f ms  %s  (%.2f s timing)\n",
                  label.c_str(), run + 1, name.c_str(), sample.ratio, sample.student_ms, sample.solution_ms,
                  sample.passed ? "pass" : "FAIL", sample.measure_seconds);
    }
  }
  return series;
}

double spread_of(const std::vector<Sample>& samples, double Sample::*field, double* low, double* high) {
  *low = 1e300;
  *high = -1e300;
  for (const auto& s : samples) {
    *low = std::min(*low, s.*field);
    *high = std::max(*high, s.*field);
  }
  return *high - *low;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 10;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--runs" && i + 1 < argc) {
      runs = std::stoi(argv[++i]);
    } else if (arg == "--json" && i + 1 < argc) {
      json_path = argv[++i];
    } else {
      std::fprintf(stderr, "usage: %s [--runs N] [--json FILE]\n", argv[0]);
      return 2;
    }
  }
  try {
    const fs::path root = CUDALABS_SOURCE_DIR, build = CUDALABS_BINARY_DIR;
    const fs::path scratch = fs::temp_directory_path() / "cudalabs-grading-bench";
    fs::remove_all(scratch);
    const fs::path reference = root / "solutions" / kLab;
    const fs::path slower = root / "bench" / "submissions" / kLab / "slower_10pct";
    nlohmann::json out;
    bool ok = true;

    std::printf("1. noise: the reference graded as a submission %d times (real YAML)\n", runs);
    const Series noise = grade_repeatedly(CoursePaths{root, build}, reference, runs, "reference");
    for (const auto& [name, samples] : noise.by_case) {
      double low = 0, high = 0, s_low = 0, s_high = 0, r_low = 0, r_high = 0, t_low = 0, t_high = 0;
      spread_of(samples, &Sample::ratio, &low, &high);
      spread_of(samples, &Sample::student_ms, &s_low, &s_high);
      spread_of(samples, &Sample::solution_ms, &r_low, &r_high);
      spread_of(samples, &Sample::measure_seconds, &t_low, &t_high);
      const bool within = low >= 0.98 && high <= 1.02;
      ok = ok && within && t_high < 3.0;
      std::printf("   %-28s ratio %.4f..%.4f (%s)  student %.4f..%.4f ms  solution %.4f..%.4f ms  timing %.2f..%.2f s\n",
                  name.c_str(), low, high, within ? "within 1.00+-0.02" : "OUTSIDE 1.00+-0.02", s_low, s_high, r_low,
                  r_high, t_low, t_high);
      out["noise"][name] = {{"ratio_min", low}, {"ratio_max", high}, {"student_ms_min", s_low},
                            {"student_ms_max", s_high}, {"solution_ms_min", r_low}, {"solution_ms_max", r_high},
                            {"timing_seconds_max", t_high}};
      if (name == "Performance.vector_add_2to26") {
        const Sample& first = samples.front();
        std::printf("   reference vector_add: %.0f GB/s of %.0f GB/s copy = %.3f (target >= 0.85)\n",
                    first.achieved_gbs, first.peak_gbs, first.achieved_gbs / first.peak_gbs);
        out["reference_fraction_of_copy"] = first.achieved_gbs / first.peak_gbs;
        ok = ok && first.achieved_gbs / first.peak_gbs >= 0.85;
      }
    }

    for (const double threshold : {1.05, 1.20}) {
      const bool should_pass = threshold > 1.1;
      std::printf("\n2. stability: ~10%% slower submission against max_ratio_to_solution %.2f (expect %s)\n",
                  threshold, should_pass ? "pass" : "fail");
      const fs::path course = course_with_ratio_threshold(root, threshold, scratch / fmt::format("{:.2f}", threshold));
      const Series stability = grade_repeatedly(CoursePaths{course, build}, slower, runs, "slower_10pct");
      const auto& samples = stability.by_case.at("Performance.vector_add_2to26");
      int flips = 0;
      for (const auto& s : samples) flips += s.passed != should_pass;
      double low = 0, high = 0;
      spread_of(samples, &Sample::ratio, &low, &high);
      std::printf("   vector_add ratio %.4f..%.4f; verdicts against expectation: %d of %d\n", low, high, flips, runs);
      out["stability"][fmt::format("{:.2f}", threshold)] = {{"ratio_min", low}, {"ratio_max", high}, {"flips", flips},
                                                            {"runs", runs}};
      ok = ok && flips == 0;
    }
    fs::remove_all(scratch);
    if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
    std::printf("\n%s\n", ok ? "all targets met" : "SOME TARGETS MISSED");
    return ok ? 0 : 1;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "grading_bench: %s\n", error.what());
    return 2;
  }
}
