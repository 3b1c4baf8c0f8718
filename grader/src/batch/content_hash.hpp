#pragma once
// Fingerprints that decide whether a stored result still stands: what a student submitted, and
// how the lab is graded. 64-bit FNV-1a over a canonical byte stream: it detects change, it does
// not authenticate (a student gains nothing from a collision: it would only keep an old grade of
// their own).
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace labgrade::batch {

class ContentHash {
 public:
  void add(std::string_view bytes);
  // A file's bytes, preceded by its length so that boundaries between parts count.
  void add_file(const std::filesystem::path& file);
  std::string hex() const;  // 16 hex digits

 private:
  std::uint64_t state_ = 14695981039346656037ull;
};

// A submission folder (every regular file below it, by relative path; links are not followed)
// or a single file (an archive). Throws std::runtime_error when it cannot be read.
std::string hash_submission(const std::filesystem::path& submission);

// The files that decide a grade besides the submission: the YAML files and the prebuilt harness.
std::string hash_files(const std::vector<std::filesystem::path>& files);

}  // namespace labgrade::batch
