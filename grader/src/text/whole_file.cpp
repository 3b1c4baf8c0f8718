#include "text/whole_file.hpp"

#include <fstream>
#include <sstream>

namespace labgrade {

std::string read_whole_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

}  // namespace labgrade
