#pragma once
// A class roster as a CSV file (an LMS export): the student ids of its `student_id` column (also
// accepted: `sid`, `id`, `email`, in that order), or of its first column when no header names one.
#include <filesystem>
#include <string>
#include <vector>

namespace labgrade::serve {

// Throws UsageError naming the file (and the line) when it cannot be read or an id is empty,
// holds a control character or a '/', or begins with '@' (bridges' ids); ids in file order,
// duplicates once.
std::vector<std::string> read_roster(const std::filesystem::path& file);

}  // namespace labgrade::serve
