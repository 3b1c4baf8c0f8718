#pragma once
// The report people read in a terminal.
#include <ostream>

#include "model/grade_result.hpp"

namespace labgrade {

struct TextStyle {
  bool color = false;
  bool show_hidden_details = true;  // instructors see everything; students' view hides hidden tests' details
};

// Colour when `stream_is_tty` and NO_COLOR is unset (https://no-color.org).
TextStyle text_style_for_terminal(bool stream_is_tty);

void write_text_report(std::ostream& out, const GradeResult& report, const TextStyle& style);

}  // namespace labgrade
