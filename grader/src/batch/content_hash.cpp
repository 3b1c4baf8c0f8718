#include "content_hash.hpp"

#include <algorithm>
#include <array>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace labgrade::batch {
namespace fs = std::filesystem;

void ContentHash::add(std::string_view bytes) {
  for (const unsigned char c : bytes) {
    state_ ^= c;
    state_ *= 1099511628211ull;
  }
}

void ContentHash::add_file(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  std::error_code error;
  add(std::to_string(fs::file_size(file, error)));
  add(std::string_view("\0", 1));
  std::array<char, 65536> buffer{};
  while (in.read(buffer.data(), buffer.size()) || in.gcount() > 0) {
    add(std::string_view(buffer.data(), static_cast<std::size_t>(in.gcount())));
  }
}

std::string ContentHash::hex() const { return fmt::format("{:016x}", state_); }

std::string hash_submission(const fs::path& submission) {
  ContentHash hash;
  if (!fs::is_directory(submission)) {
    hash.add("file");
    hash.add_file(submission);
    return hash.hex();
  }
  std::vector<fs::path> files;
  std::error_code error;
  for (fs::recursive_directory_iterator it(submission, fs::directory_options::none, error), end; it != end;
       it.increment(error)) {
    if (error) break;
    if (it->is_regular_file(error) && !it->is_symlink(error)) files.push_back(it->path());
  }
  if (error) throw std::runtime_error(fmt::format("cannot list {}: {}", submission.string(), error.message()));
  std::sort(files.begin(), files.end());
  hash.add("folder");
  for (const fs::path& file : files) {
    hash.add(file.lexically_relative(submission).generic_string());
    hash.add(std::string_view("\0", 1));
    hash.add_file(file);
  }
  return hash.hex();
}

std::string hash_files(const std::vector<fs::path>& files) {
  ContentHash hash;
  for (const fs::path& file : files) {
    hash.add(file.filename().string());
    hash.add_file(file);
  }
  return hash.hex();
}

}  // namespace labgrade::batch
