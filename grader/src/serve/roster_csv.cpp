#include "serve/roster_csv.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <set>

#include <fmt/format.h>

#include "model/exit_codes.hpp"

namespace labgrade::serve {
namespace {

// One RFC 4180 line (no line breaks inside quotes: a roster has none).
std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

std::string trimmed(std::string text) {
  const auto space = [](unsigned char c) { return std::isspace(c) != 0; };
  text.erase(text.begin(), std::find_if_not(text.begin(), text.end(), space));
  text.erase(std::find_if_not(text.rbegin(), text.rend(), space).base(), text.end());
  return text;
}

std::string lowered(std::string text) {
  for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return text;
}

}  // namespace

std::vector<std::string> read_roster(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) throw UsageError(fmt::format("cannot read the roster {}", file.string()));
  std::vector<std::vector<std::string>> rows;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (rows.empty() && line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a spreadsheet's BOM
    if (!trimmed(line).empty()) rows.push_back(split_csv_line(line));
  }
  if (rows.empty()) throw UsageError(fmt::format("the roster {} is empty", file.string()));
  std::size_t column = 0;
  std::size_t first = 0;
  for (const char* name : {"student_id", "sid", "id", "email"}) {
    const auto& header = rows[0];
    const auto found = std::find_if(header.begin(), header.end(), [&](const std::string& cell) {
      return lowered(trimmed(cell)) == name;
    });
    if (found != header.end()) {
      column = static_cast<std::size_t>(found - header.begin());
      first = 1;
      break;
    }
  }
  std::vector<std::string> ids;
  std::set<std::string> seen;
  for (std::size_t row = first; row < rows.size(); ++row) {
    const std::string id = column < rows[row].size() ? trimmed(rows[row][column]) : std::string();
    const bool control = std::any_of(id.begin(), id.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; });
    if (id.empty() || control || id.front() == '@' || id.find('/') != std::string::npos) {
      throw UsageError(fmt::format("{}, line {}: the student id is {}", file.string(), row + 1,
                                   id.empty() ? "empty"
                                   : control  ? "not printable"
                                              : "'" + id + "': '@' first and '/' are kept for bridges"));
    }
    if (seen.insert(id).second) ids.push_back(id);
  }
  if (ids.empty()) throw UsageError(fmt::format("the roster {} lists no student", file.string()));
  return ids;
}

}  // namespace labgrade::serve
