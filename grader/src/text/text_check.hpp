#pragma once
// Is a submitted file source text? The compiler would take a binary, but a grade built from one
// is neither reviewable nor what a student meant to hand in.
#include <string>

namespace labgrade {

// "" for valid UTF-8 text without NUL bytes; otherwise what is wrong and where ("a NUL byte at
// line 3", "bytes that are not UTF-8 at line 12").
std::string text_problem(const std::string& text);

}  // namespace labgrade
