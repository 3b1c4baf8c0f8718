#pragma once
// A whole file as bytes: for sources, templates and handouts labgrade reads in one piece.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace labgrade {

// Throws std::runtime_error("cannot read <file>") when it cannot be opened.
inline std::string read_file_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace labgrade
