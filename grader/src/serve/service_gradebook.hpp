#pragma once
// The service's gradebook of one lab: a row per student (bridge students as "@bridge/<id>"), the
// grade being the last graded run's (as Gradescope's active submission), with the best one and the
// counts beside it. `labgrade serve --data DATA --gradebook LAB` prints it as CSV.
#include <ostream>
#include <string>

#include "serve/service_store.hpp"

namespace labgrade::serve {

// RFC 4180 CSV with a header row. Columns: student_id, last_graded_points, points_possible,
// last_graded_status, last_graded_at (UTC, ISO 8601), best_graded_points, graded_runs,
// self_checks, pending (queued or running). A text cell a spreadsheet would read as a formula
// gets a leading '.
void write_service_gradebook(std::ostream& out, const ServiceStore& store, const std::string& lab);

}  // namespace labgrade::serve
