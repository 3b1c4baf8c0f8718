#include "stage/archive_extract.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <system_error>
#include <vector>

#include <fmt/format.h>
#include <unistd.h>

#include "sandbox/child_process.hpp"
#include "stage/submission_error.hpp"

namespace labgrade {
namespace fs = std::filesystem;
namespace {

// How one archive format is listed and unpacked. A .zip goes to `cmake -E tar` (CMake bundles
// libarchive, and a machine that built labgrade has CMake; unzip is often missing); a .tar.gz to
// GNU tar, which reads nothing but a gzip'd tar.
struct Tool {
  std::vector<std::string> list_names;    // one name per line, exactly as stored
  std::vector<std::string> list_details;  // "mode ... size <date words> name", one line per entry
  std::size_t date_words;                 // words between the size and the name in list_details
  std::vector<std::string> extract;       // run in the destination folder
  std::string needs;                      // what to install when the tool is missing
};

struct Entry {
  std::string name;
  char type = '-';  // first character of its mode: '-' file, 'd' directory, 'l' link, 'h' hard link, ...
  std::uint64_t bytes = 0;
};

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(), [](unsigned char c) { return std::tolower(c); });
  return text;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_zip(const fs::path& file) { return ends_with(lower(file.filename().string()), ".zip"); }

// The CMake that configured labgrade's build, else the first `cmake` on PATH.
std::string cmake_program() {
#ifdef CUDALABS_CMAKE_COMMAND
  if (::access(CUDALABS_CMAKE_COMMAND, X_OK) == 0) return CUDALABS_CMAKE_COMMAND;
#endif
  return "cmake";
}

Tool tool_for(const fs::path& archive) {
  const std::string path = archive.string();
  if (is_zip(archive)) {
    const std::string cmake = cmake_program();
    // "-rw-r--r--  0 0      0          16 23 Nov 11:12 my_lab/vector_add.cu" (libarchive's ls -l style)
    return Tool{{cmake, "-E", "tar", "tf", path}, {cmake, "-E", "tar", "tvf", path}, 3,
                {cmake, "-E", "tar", "xf", path}, "CMake (any version labgrade builds with)"};
  }
  // -P: list names exactly as stored (no stripping of "/" or "../", and no warning about it).
  // "-rw-r--r-- u/g 123 2024-01-01 12:00 name"
  return Tool{{"tar", "-tPzf", path}, {"tar", "-tvPzf", path}, 2,
              {"tar", "-xzf", path, "--no-same-owner", "--no-same-permissions"}, "the Debian package tar"};
}

// The first bytes each format must start with. libarchive (behind `cmake -E tar`) guesses the
// format from the content, not the name, and some formats it reads (mtree) name files on this
// machine whose contents it then copies: only a real zip may reach it.
std::string format_problem(const fs::path& archive) {
  std::ifstream in(archive, std::ios::binary);
  std::array<char, 4> head{};
  in.read(head.data(), head.size());
  const std::string magic(head.data(), static_cast<std::size_t>(in.gcount()));
  if (is_zip(archive)) {
    // A local file header, or the end record of an empty zip.
    return magic == std::string("PK\x03\x04", 4) || magic == std::string("PK\x05\x06", 4) ? "" : "a zip archive";
  }
  return magic.size() >= 2 && magic.compare(0, 2, "\x1f\x8b") == 0 ? "" : "a gzip-compressed tar archive";
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream stream(text);
  for (std::string line; std::getline(stream, line);) lines.push_back(line);
  return lines;
}

std::vector<std::string> words_of(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream stream(text);
  for (std::string word; stream >> word;) words.push_back(word);
  return words;
}

// Runs a trusted tool on the untrusted archive; its stdout, or an exception saying what failed.
std::string run_tool(const std::vector<std::string>& argv, const Tool& tool, const fs::path& archive,
                     const fs::path& working_dir = {}, std::uint64_t max_file_bytes = 0) {
  ProcessSpec spec;
  spec.argv = argv;
  spec.working_dir = working_dir;
  spec.timeout_seconds = 120;
  spec.max_output_bytes = 16 << 20;
  spec.limits.max_file_bytes = max_file_bytes;
  // UTF-8 names listed as they are (libarchive prints nothing for a name the C locale cannot show).
  spec.extra_env = {{"LC_ALL", "C.UTF-8"}, {"TZ", "UTC"}};
  const ProcessResult process = run_process(spec);
  if (process.exited && process.exit_code == 127 &&
      process.output.find("cannot run " + argv[0]) != std::string::npos) {
    throw std::runtime_error(fmt::format("{} is needed to unpack {}: install {}", argv[0],
                                         archive.filename().string(), tool.needs));
  }
  if (!process.succeeded() || process.output_bytes_dropped > 0) {
    throw SubmissionError(fmt::format("the archive {} cannot be unpacked ({} {}): {}", archive.filename().string(),
                                      argv[0], process.describe_end(spec.timeout_seconds), process.output));
  }
  return process.output;
}

// The entry's type and size from its verbose line, which must end with " <name>" for a file or a
// folder (a link's line goes on with its target). Read from the right, so that owner names with
// spaces cannot shift the size. nullopt when the line does not belong to `name`.
std::optional<Entry> parse_details(const std::string& line, const std::string& name, std::size_t date_words) {
  Entry entry{name, line.empty() ? '?' : line[0], 0};
  if (entry.type != '-' && entry.type != 'd') return entry;  // refused whatever its size
  if (!ends_with(line, " " + name)) return std::nullopt;
  const auto words = words_of(line.substr(0, line.size() - name.size() - 1));
  if (words.size() < date_words + 2) return std::nullopt;  // mode ... size date
  const std::string& size = words[words.size() - date_words - 1];
  if (size.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  entry.bytes = std::strtoull(size.c_str(), nullptr, 10);
  return entry;
}

// Names from one listing, types and sizes from the verbose one, paired by position.
std::vector<Entry> list_entries(const fs::path& archive, const Tool& tool) {
  const std::vector<std::string> names = lines_of(run_tool(tool.list_names, tool, archive));
  const std::vector<std::string> details = lines_of(run_tool(tool.list_details, tool, archive));
  const auto unlistable = [&] {
    return SubmissionError(fmt::format("the archive {} has entries labgrade cannot list safely (unusual names?); "
                                       "submit a folder or a plain .zip/.tar.gz of your source files",
                                       archive.filename().string()));
  };
  if (names.size() != details.size()) throw unlistable();
  std::vector<Entry> entries;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::optional<Entry> entry = parse_details(details[i], names[i], tool.date_words);
    if (!entry) throw unlistable();
    entries.push_back(*entry);
  }
  return entries;
}

// Why an entry must not be unpacked, or "" when it is fine.
std::string entry_problem(const Entry& entry) {
  const std::string& name = entry.name;
  const auto odd = [](unsigned char c) { return c < ' ' || c == 0x7f || c == '\\'; };
  if (name.empty()) return "has a name labgrade cannot read";
  if (std::any_of(name.begin(), name.end(), odd)) return "has control characters or '\\' in its name";
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
    if (name.size() > suffix.size() && ends_with(name, suffix)) return true;
  }
  return false;
}

void extract_archive(const fs::path& archive, const fs::path& destination, const ArchiveLimits& limits) {
  const std::string shown = archive.filename().string();
  if (const std::string expected = format_problem(archive); !expected.empty()) {
    throw SubmissionError(fmt::format("the archive {} was refused: its content is not {}, as its name says", shown,
                                      expected));
  }
  const Tool tool = tool_for(archive);
  const std::vector<Entry> entries = list_entries(archive, tool);
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
  // Absolute, since the tool runs inside the destination. The file-size limit is the backstop
  // should a listing understate a size.
  Tool absolute = tool_for(fs::absolute(archive));
  run_tool(absolute.extract, absolute, archive, destination, limits.max_entry_bytes + 1);
}

}  // namespace labgrade
