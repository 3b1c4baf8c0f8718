#pragma once
// Submissions as archives: a .zip, .tar.gz or .tgz file is unpacked into a fresh directory and
// staged like a folder. Every entry is listed and checked before anything is written: absolute
// paths, '..', links and special files are refused, and so are archives that unpack too large,
// or whose content is not the format their name says. A .zip needs no unzip: CMake reads it.
#include <cstdint>
#include <filesystem>
#include <string>

namespace labgrade {

// By name: *.zip, *.tar.gz, *.tgz (any case).
bool is_archive(const std::filesystem::path& file);

struct ArchiveLimits {
  std::uint64_t max_entry_bytes = 16 << 20;  // one file, unpacked
  std::uint64_t max_total_bytes = 64 << 20;  // all files, unpacked
  std::size_t max_entries = 10000;
};

// Unpacks `archive` into `destination` (created; must not exist or be empty). Throws
// SubmissionError with the reason (naming the entry) for an archive that is refused, and
// std::runtime_error when the tool it needs (cmake for a .zip, tar for a .tar.gz) is missing.
void extract_archive(const std::filesystem::path& archive, const std::filesystem::path& destination,
                     const ArchiveLimits& limits);

}  // namespace labgrade
