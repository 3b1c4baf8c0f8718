#pragma once
// What the report writers share: who the report is for, which details a reader may see, text
// made safe for XML and HTML, and writing a report file without leaving half of one behind.
#include <filesystem>
#include <string>
#include <string_view>

#include "model/grade_result.hpp"

namespace labgrade {

// Instructors see everything; students see hidden tests' names, status and points but not their
// inputs or expected values (the lab's YAML marks which tests are hidden).
struct ReportView {
  bool show_hidden_details = true;
};


// Whether the reader may see `test`'s failure message and measured figures.
bool details_visible(const ScoredTest& test, const ReportView& view);

// What a reader may learn about why `test` scored what it did: its message (and for a measured
// performance case the figures), or for a hidden test in a student's view only the verdict.
// Empty when there is nothing to say.
std::string visible_detail(const ScoredTest& test, const ReportView& view);

// What compute-sanitizer found when it ran `test` alone ("compute-sanitizer: memcheck: clean;
// racecheck: 2 errors"), with the sanitizer's excerpts when the reader may see the test's
// details. Empty when no sanitizer ran the test.
std::string sanitizer_detail(const ScoredTest& test, const ReportView& view);

// A performance case that was measured but not given full credit.
bool below_full_credit(const ScoredTest& test);

// How many tests ran under compute-sanitizer, and how many of those every tool found clean.
struct SanitizerTally {
  std::size_t ran = 0;
  std::size_t clean = 0;
};
SanitizerTally sanitizer_tally(const GradeResult& report);

std::string format_points(double points);  // "4", "7.5"

// "32 registers, 16640 B shared memory, no spills" (or "spills 24 B to local memory and loads 24
// B back": a kernel short of registers pays in memory traffic).
std::string describe_kernel_resources(const KernelResources& kernel);

// "Your kernels, as the compiler built them ...:" and one line per kernel; "" when there are none.
std::string kernel_resources_text(const GradeResult& report);

// The late policy's effect, for a result that has one (`labgrade batch`): "Late: submitted ...,
// 2 days after the deadline ...: -20% = -18.5 points (92.5 before the penalty)", or "On time: ...".
// Empty without one.
std::string late_penalty_line(const GradeResult& report);

// The lines an LMS report (Gradescope, PrairieLearn) shows before the tests: the late penalty,
// the device, the files used and ignored, broken rules, the compiler's messages.
std::string submission_overview(const GradeResult& report);

// "2.5 s in all: staging 0.00 s, build 1.7 s, tests 0.7 s" (", waited 3.1 s for the GPU" when it did).
std::string time_breakdown(const GradeResult& report);

// `text` with every invalid UTF-8 sequence replaced by U+FFFD.
std::string valid_utf8(std::string_view text);

// `text` as XML/HTML character data or attribute value: valid UTF-8, & < > " ' escaped, and the
// control characters XML 1.0 forbids (and U+FFFE/U+FFFF) replaced by U+FFFD. In an attribute
// (`attribute` true) tabs and line breaks become character references, which keeps them intact.
std::string markup_escape(std::string_view text, bool attribute = false);

// At most `max_chars` code points of valid UTF-8 `text`'s first line, with "..." when cut.
std::string first_line(std::string_view text, std::size_t max_chars);

// Writes `content` to `file` atomically (a temporary file beside it, then a rename), so a
// reader never sees half a report. Throws std::runtime_error naming `what` and `file` when
// `file` is a directory or cannot be written.
void write_report_file(const std::filesystem::path& file, std::string_view content, std::string_view what);

// Throws std::runtime_error when `file` could obviously not be written (it is a directory, or
// its directory does not exist), so labgrade can refuse before spending minutes on a grade.
void check_report_path(const std::filesystem::path& file, std::string_view what);

}  // namespace labgrade
