#pragma once
// PrairieLearn's external-grader results (/grade/results/results.json), as its documentation
// describes them (docs/externalGrading.md of PrairieLearn, "Grading results";
// https://prairielearn.readthedocs.io/en/latest/externalGrading/#grading-results):
//   score       a number in [0, 1], required when the submission is gradable
//   gradable    false: "invalid, not gradable"; no points are given or taken and the student
//               loses no attempt (then `format_errors`, a string or an array of strings, says why)
//   message, output, tests[]: {name, description, points, max_points, message, output}
// and "this file should be limited to 1 MB": kPrairieLearnResultsLimit below.
//
// What labgrade calls a grade (is_a_grade: a compile error and a broken rule included, each a 0
// the student earned) is gradable; a run that could not grade (no CUDA device: the tests never
// ran; a self-check) is not, so PrairieLearn neither scores it nor counts the attempt. Everything
// in it is for the student: hidden tests show only their name, status and points.
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "model/grade_result.hpp"
#include "report/report_common.hpp"

namespace labgrade {

// PrairieLearn's documented limit on results.json ("should be limited to 1 MB"), taken as the
// smaller reading, 10^6 bytes.
inline constexpr std::size_t kPrairieLearnResultsLimit = 1000000;

// The results object; its JSON text (dump(2), invalid UTF-8 replaced) is at most `size_limit`
// bytes: long messages are cut, each saying so.
nlohmann::json prairielearn_results(const GradeResult& report, std::size_t size_limit = kPrairieLearnResultsLimit);

// The report format's renderer: that object as text.
std::string prairielearn_report(const GradeResult& report, const ReportView& view);

}  // namespace labgrade
