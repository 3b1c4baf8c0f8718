#pragma once
// gradebook.csv: one row per student, for an LMS import or a spreadsheet. The columns are listed
// in README.md ("Grading a whole class"); the header names every test and timed case.
#include <ostream>
#include <string>
#include <vector>

#include "cudalabs/course/lab_config.hpp"
#include "results_store.hpp"

namespace labgrade::batch {

// RFC 4180: quoted when needed. A text field a spreadsheet would take for a formula (=, +, -,
// @, tab or carriage return first) gets a leading ' so that opening the file runs nothing.
std::string csv_field(const std::string& text);

// A number rounded to 1/100 of a point, without trailing zeros; "" for nullopt.
std::string csv_points(const std::optional<double>& points);

void write_gradebook(std::ostream& out, const cudalabs::config::LabConfig& lab, const std::vector<SubmissionRow>& rows);

}  // namespace labgrade::batch
