#include "cli/lab_list.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cudalabs/course/course_config.hpp"
#include "cudalabs/course/diagnostics.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "model/exit_codes.hpp"
#include "text/utf8.hpp"

namespace labgrade::cli {

int list_labs(const CoursePaths& paths, std::ostream& out, std::ostream& errors) {
  const auto course = cudalabs::config::load_course_config(paths.course_config());
  struct Row {
    std::string id;
    std::optional<cudalabs::config::LabConfig> lab;
    std::string error;  // what the loader said, file:line first, when the YAML is broken
  };
  std::vector<Row> rows;
  std::size_t id_columns = 0, title_columns = 0;
  for (const std::string& id : paths.lab_ids()) {
    Row row{id, std::nullopt, ""};
    try {
      row.lab = cudalabs::config::load_lab_config(paths.lab_config(id));
      title_columns = std::max(title_columns, std::min(display_width(row.lab->title), kMaxTitleColumns));
    } catch (const cudalabs::config::ConfigError& error) {
      row.error = error.what();
    }
    id_columns = std::max(id_columns, display_width(id));
    rows.push_back(std::move(row));
  }

  out << course.course << "\n\n";
  std::size_t broken = 0;
  for (const Row& row : rows) {
    if (!row.lab) {
      ++broken;
      continue;
    }
    out << fmt::format("  {}  {}  {:>5g} points\n", fit_to_width(row.id, id_columns),
                       fit_to_width(row.lab->title, title_columns), row.lab->total_points);
  }
  if (broken == 0) return 0;
  errors << fmt::format("\nlabgrade: {} lab{} not listed, {} YAML {} broken:\n", broken, broken == 1 ? " is" : "s are",
                        broken == 1 ? "its" : "their", broken == 1 ? "is" : "are");
  for (const Row& row : rows) {
    if (row.lab) continue;
    errors << "  " << row.id << ":\n";
    std::string indented = row.error;
    for (std::size_t at = 0; (at = indented.find('\n', at)) != std::string::npos; at += 5) indented.insert(at + 1, "    ");
    errors << "    " << indented << "\n";
  }
  return kConfigExitCode;
}

}  // namespace labgrade::cli
