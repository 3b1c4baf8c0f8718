#include "stage/archive_extract.hpp"

#include <algorithm>
#include <cctype>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "sandbox/child_process.hpp"
#include "stage/staging.hpp"

namespace labgrade {
namespace fs = std::filesystem;
namespace {

enum class Format { Zip, TarGz };

struct Entry {
  std::string name;
  char type = '-';  // first character of its mode: '-' file, 'd' directory, 'l' link, 'h' hard link, ...
  std::uint64_t bytes = 0;
};

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

Format format_of(const fs::path& file) {
  const std::string name = lower(file.filename().string());
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".zip") == 0 ? Format::Zip : Format::TarGz;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> words_of(const std::string& line) {
  std::vector<std::string> words;
  std::istringstream stream(line);
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

// Runs a trusted tool on the untrusted archive; its stdout, or an exception saying what failed.
std::string run_tool(const std::vector<std::string>& argv, const std::string& package, const fs::path& archive,
                     std::uint64_t max_file_bytes = 0) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.timeout_seconds = 120;
  spec.max_output_bytes = 16 << 20;
  spec.limits.max_file_bytes = max_file_bytes;
  spec.extra_env = {{"LC_ALL", "C"}, {"TZ", "UTC"}};
  const ProcessResult process = run_process(spec);
  if (process.exited && process.exit_code == 127 &&
      process.output.find("cannot run " + argv[0]) != std::string::npos) {
    throw std::runtime_error(fmt::format("{} is needed to unpack {}: install the Debian package {}", argv[0],
                                         archive.filename().string(), package));
  }
  if (!process.succeeded() || process.output_bytes_dropped > 0) {
    throw SubmissionError(fmt::format("the archive {} cannot be unpacked ({} {}): {}", archive.filename().string(),
                                      argv[0], process.describe_end(spec.timeout_seconds), process.output));
  }
  return process.output;
}

// Names from one listing, types and sizes from the verbose one, paired by position.
std::vector<Entry> list_entries(const fs::path& archive, Format format) {
  const std::string path = archive.string();
  std::vector<std::string> names, details;
  if (format == Format::Zip) {
    names = lines_of(run_tool({"unzip", "-Z1", path}, "unzip", archive));
    // zipinfo's short format, between a two-line header and a one-line trailer:
    // "-rw-r--r--  3.0 unx      123 tx defN 24-Jan-01 12:00 name"
    for (const std::string& line : lines_of(run_tool({"unzip", "-Z", "-s", path}, "unzip", archive))) {
      const auto words = words_of(line);
      // Unix modes are 10 characters ("-rw-r--r--"), FAT ones (zips made on Windows) 7 ("-rw-a--").
      const bool mode = !words.empty() && words[0].size() >= 7 && words[0].size() <= 10 &&
                        words[0].find_first_not_of("-dlrwxsStTbcpah?") == std::string::npos;
      if (mode && words.size() >= 4) {
        details.push_back(line);
      }
    }
  } else {
    // -P: list names exactly as stored (no stripping of "/" or "../", and no warning about it).
    names = lines_of(run_tool({"tar", "-tPzf", path}, "tar", archive));
    details = lines_of(run_tool({"tar", "-tvPzf", path}, "tar", archive));  // "-rw-r--r-- u/g 123 date time name"
  }
  if (names.size() != details.size()) {
    throw SubmissionError(fmt::format("the archive {} has entries labgrade cannot list safely (unusual names?); "
                                      "submit a folder or a plain .zip/.tar.gz of your source files",
                                      archive.filename().string()));
  }
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto words = words_of(details[i]);
    Entry entry{names[i], details[i].empty() ? '?' : details[i][0], 0};
    const std::size_t size_field = format == Format::Zip ? 3 : 2;
    if (words.size() > size_field) entry.bytes = std::strtoull(words[size_field].c_str(), nullptr, 10);
    entries.push_back(entry);
  }
  return entries;
}

// Why an entry must not be unpacked, or "" when it is fine.
std::string entry_problem(const Entry& entry) {
  const std::string& name = entry.name;
  const auto odd = [](unsigned char c) { return c < ' ' || c == 0x7f || c == '\\'; };
  if (name.empty() || std::any_of(name.begin(), name.end(), odd)) return "has control characters or '\\' in its name";
  if (name.front() == '/') return "is an absolute path";
  for (const auto& part : fs::path(name)) {
    if (part == "..") return "contains '..' (it would land outside the submission)";
  }
  if (entry.type == 'l' || entry.type == 'h') return "is a link; put the file itself in the archive";
  if (entry.type != '-' && entry.type != 'd') return "is not a regular file or folder";
  return "";
}

}  // namespace

bool is_archive(const fs::path& file) {
  const std::string name = lower(file.filename().string());
  for (const std::string suffix : {".zip", ".tar.gz", ".tgz"}) {
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0) return true;
  }
  return false;
}

void extract_archive(const fs::path& archive, const fs::path& destination, const ArchiveLimits& limits) {
  const Format format = format_of(archive);
  const std::vector<Entry> entries = list_entries(archive, format);
  const std::string shown = archive.filename().string();
  if (entries.size() > limits.max_entries) {
    throw SubmissionError(fmt::format("the archive {} holds {} entries; at most {} are accepted", shown,
                                      entries.size(), limits.max_entries));
  }
  std::uint64_t total = 0;
  for (const Entry& entry : entries) {
    if (const std::string problem = entry_problem(entry); !problem.empty()) {
      throw SubmissionError(fmt::format("the archive {} was refused: its entry '{}' {}", shown, entry.name, problem));
    }
    if (entry.bytes > limits.max_entry_bytes) {
      throw SubmissionError(fmt::format("the archive {} was refused: its entry '{}' unpacks to {} bytes; at most {} "
                                        "are accepted per file", shown, entry.name, entry.bytes, limits.max_entry_bytes));
    }
    total += entry.bytes;
  }
  if (total > limits.max_total_bytes) {
    throw SubmissionError(fmt::format("the archive {} unpacks to {} bytes; at most {} are accepted", shown, total,
                                      limits.max_total_bytes));
  }
  fs::create_directories(destination);
  // The file-size limit is the backstop should a listing understate a size.
  if (format == Format::Zip) {
    run_tool({"unzip", "-q", "-n", archive.string(), "-d", destination.string()}, "unzip", archive,
             limits.max_entry_bytes + 1);
  } else {
    run_tool({"tar", "-xzf", archive.string(), "-C", destination.string(), "--no-same-owner",
              "--no-same-permissions"}, "tar", archive, limits.max_entry_bytes + 1);
  }
}

}  // namespace labgrade
