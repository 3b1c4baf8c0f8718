#pragma once
// `labgrade list`: every lab with its title and points, in aligned columns; a lab whose YAML is
// broken is reported with its file:line error after the others, never hiding them.
#include <ostream>

#include "session/grading_session.hpp"

namespace labgrade::cli {

// Titles wider than this are cut with "…" so that the points column stays aligned.
inline constexpr std::size_t kMaxTitleColumns = 48;

// Prints the course's name and one line per lab on `out`, each broken lab's errors on `errors`.
// Returns 0, or the configuration-error exit code when any lab's YAML is broken. Throws
// cudalabs::config::ConfigError when course.yaml itself is broken.
int list_labs(const CoursePaths& paths, std::ostream& out, std::ostream& errors);

}  // namespace labgrade::cli
