#pragma once
// The profile pass's figures in words (model/profile_result.hpp), shared by every report format:
// the text report's section, the LMS formats' overview, the HTML table's cells.
#include <string>

#include "model/grade_result.hpp"
#include "report/report_common.hpp"

namespace labgrade {

// "Profile (Nsight Compute, ...; 41.2 s; not scored):" then each case, its kernels, one line per
// figure (with the reference's in a grade) and, under a figure far off, the lab's hint; or the
// one line that says why the pass did not run. "" when no profile pass was asked for. A student's
// view never names the reference's kernels.
std::string profile_text(const GradeResult& report, const ReportView& view);

// The heading line alone (the first line of profile_text), for reports that print it apart.
std::string profile_heading(const ProfileReport& profile);

// A figure as a reader takes it in: 33,554,432 / 31 / 0.418 / 91.3.
std::string format_profile_figure(double value);

// "31 conflicts/request", or "n/a" for an absent figure.
std::string profile_value(const std::optional<double>& value, const std::string& unit);

// "your kernels: student::k (2 launches); the reference's: ..." (the reference's only where the
// reader may see them).
std::string profiled_kernels(const ProfiledCase& profiled, const ReportView& view);

}  // namespace labgrade
