#pragma once
// A whole file as bytes.
#include <filesystem>
#include <string>

namespace labgrade {

// The file's bytes ("" when it cannot be read).
std::string read_whole_file(const std::filesystem::path& path);

}  // namespace labgrade
