#pragma once
// Which functions of a student's source still hold a `TODO(student)` comment: what `check` lists,
// with a GPU or without one (where no test runs to find an unimplemented call).
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace labgrade {

// The functions (kernels included) whose bodies contain "TODO(student)" in a comment, or whose
// definition such a comment directly precedes, in the order they appear, each once. A light
// reading of C++: namespaces are looked into, string and character literals skipped; a marker
// followed by a declaration or a block's end belongs to no function.
std::vector<std::string> functions_marked_todo(std::string_view source);

// The same over several files, each function once; a file that does not exist is passed over.
std::vector<std::string> functions_marked_todo_in(const std::vector<std::filesystem::path>& files);

}  // namespace labgrade
