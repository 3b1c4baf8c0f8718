// Typed, position-aware readers for YAML configuration files.
//
// Readers never throw on bad input: they record a Diagnostic and carry on, so one run of a
// loader reports every problem in a file. Loaders throw once at the end (throw_if_any).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "cudalabs/course/diagnostics.hpp"

namespace cudalabs::config::detail {

// Every problem found in one file.
class FileDiagnostics {
 public:
  explicit FileDiagnostics(std::string file);

  // `where` is yaml-cpp's 0-based mark; a null mark (missing file, empty document) means "no position".
  void add(const YAML::Mark& where, std::string field, std::string message);
  const std::string& file() const { return file_; }
  bool empty() const { return diagnostics_.empty(); }

  // Throws ConfigError with every diagnostic, in file order, if there is any.
  void throw_if_any() const;

 private:
  std::string file_;
  std::vector<Diagnostic> diagnostics_;
};

// Dotted field paths: field_path("defaults", "max_source_bytes") == "defaults.max_source_bytes",
// item_path("tests", 2) == "tests[2]".
std::string field_path(std::string_view parent, std::string_view key);
std::string item_path(std::string_view list, std::size_t index);

// The whole file as YAML; nullopt (after reporting) when missing, unreadable or not valid YAML.
std::optional<YAML::Node> load_yaml_file(const std::filesystem::path& file, FileDiagnostics& diagnostics);

enum class NumberRange { Any, NonNegative, Positive };

// A node and where it sits: its field path, and the position to point at (the key when the
// value is empty, because yaml-cpp marks an empty value at the next token).
struct Located {
  YAML::Node node;
  std::string field;
  YAML::Mark mark;
};

struct StringItem {
  std::string value;
  std::string field;
  YAML::Mark mark;
};

// Reads the fields of one YAML map, reporting into the file's diagnostics.
class MapReader {
 public:
  // A reader when `value` is a map; otherwise reports "expected <what>, got ..." and returns nullopt.
  static std::optional<MapReader> open(const Located& value, FileDiagnostics& diagnostics,
                                       std::string_view what = "a map");

  const std::string& field() const { return map_.field; }

  // Reports keys outside `allowed` (suggesting the nearest one), keys given twice and keys that
  // are not plain names.
  void check_keys(const std::vector<std::string>& allowed) const;
  // The same without a fixed set of keys, for maps whose keys the user names (tolerances).
  void check_duplicate_keys() const;

  std::optional<Located> find(std::string_view key) const;
  std::optional<YAML::Mark> key_mark(std::string_view key) const;
  // The map's entries whose keys are plain names, in file order.
  std::vector<std::pair<std::string, Located>> entries() const;

  // require_*: a missing key is reported at this map's position. optional_*: absence is fine,
  // a bad value is not. A nullopt / empty result always comes with a diagnostic, except for an
  // absent optional key.
  std::optional<std::string> require_string(std::string_view key) const;
  std::optional<double> require_number(std::string_view key, NumberRange range) const;
  std::optional<double> optional_number(std::string_view key, NumberRange range) const;
  // `true` or `false`, nothing else (YAML 1.1's yes/no/on/off are refused: they read as strings
  // in other tools).
  std::optional<bool> optional_bool(std::string_view key) const;
  std::optional<std::uint64_t> require_positive_integer(std::string_view key) const;
  std::optional<std::uint64_t> optional_positive_integer(std::string_view key) const;
  std::optional<std::string> require_choice(std::string_view key, const std::vector<std::string>& choices) const;
  // Non-empty lists; `items` names what the list holds, for messages ("file names").
  std::vector<Located> require_list(std::string_view key, std::string_view items) const;
  std::vector<StringItem> require_string_list(std::string_view key, std::string_view items) const;
  std::optional<MapReader> optional_map(std::string_view key, std::string_view what) const;
  std::optional<MapReader> require_map(std::string_view key, std::string_view what) const;

 private:
  MapReader(Located map, FileDiagnostics& diagnostics);
  std::optional<Located> require(std::string_view key, std::string_view expected) const;

  Located map_;
  FileDiagnostics* diagnostics_;
};

}  // namespace cudalabs::config::detail
