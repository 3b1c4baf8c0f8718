#include "run/ncu_csv.hpp"

#include <cxxabi.h>

#include <cerrno>
#include <cstdlib>
#include <memory>

#include "text/text_lines.hpp"

namespace labgrade {
namespace {

constexpr std::string_view kErrorPrefix = "==ERROR==";
constexpr std::string_view kPermissionError = "ERR_NVGPUCTRPERM";

bool starts_with(std::string_view text, std::string_view prefix) { return text.substr(0, prefix.size()) == prefix; }

std::string trimmed(std::string_view text) {
  const auto begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) return "";
  const auto end = text.find_last_not_of(" \t");
  return std::string(text.substr(begin, end - begin + 1));
}

}  // namespace

std::vector<std::string> split_csv_line(std::string_view line) {
  std::vector<std::string> cells;
  std::string cell;
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cell += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        cell += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.push_back(std::move(cell));
      cell.clear();
    } else {
      cell += c;
    }
  }
  cells.push_back(std::move(cell));
  return cells;
}

NcuLog parse_ncu_log(std::string_view text) {
  NcuLog log;
  std::vector<std::string> header;
  std::size_t id_column = 0, kernel_column = 0;
  bool units_expected = false;
  for (const std::string& line : split_lines(text)) {
    if (line.find(kPermissionError) != std::string::npos) log.permission_denied = true;
    if (starts_with(line, kErrorPrefix)) {
      log.errors.push_back(trimmed(std::string_view(line).substr(kErrorPrefix.size())));
      continue;
    }
    // The table's lines are quoted; anything else is the tool's (or the program's) own.
    if (!starts_with(line, "\"")) continue;
    std::vector<std::string> cells = split_csv_line(line);
    if (!cells.empty() && cells[0] == "ID") {  // a header (each process's table may repeat it)
      header = std::move(cells);
      id_column = 0;
      kernel_column = header.size();
      for (std::size_t i = 0; i < header.size(); ++i) {
        if (header[i] == "Kernel Name") kernel_column = i;
      }
      units_expected = true;
      continue;
    }
    if (header.empty()) continue;
    if (units_expected && !cells.empty() && cells[0].empty()) {
      for (std::size_t i = 0; i < cells.size() && i < header.size(); ++i) {
        if (!cells[i].empty()) log.units[header[i]] = cells[i];
      }
      units_expected = false;
      continue;
    }
    units_expected = false;
    NcuLaunch launch;
    launch.id = cells.size() > id_column ? cells[id_column] : "";
    launch.kernel = cells.size() > kernel_column ? cells[kernel_column] : "";
    // The launch columns come first; every column after "Kernel Name" that names a metric is one.
    for (std::size_t i = 0; i < cells.size() && i < header.size(); ++i) {
      if (header[i].find("__") != std::string::npos) launch.values[header[i]] = cells[i];
    }
    log.launches.push_back(std::move(launch));
  }
  return log;
}

std::optional<double> ncu_number(std::string_view cell) {
  std::string digits;
  for (const char c : cell) {
    if (c != ',' && c != ' ') digits += c;
  }
  if (digits.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double value = std::strtod(digits.c_str(), &end);
  if (errno != 0 || end != digits.c_str() + digits.size()) return std::nullopt;
  return value;
}

std::string kernel_base_name(std::string_view printed) {
  std::string name(printed);
  if (name.rfind("_Z", 0) == 0) {
    int status = 0;
    const std::unique_ptr<char, decltype(&std::free)> demangled(
        abi::__cxa_demangle(name.c_str(), nullptr, nullptr, &status), &std::free);
    if (status == 0 && demangled) name = demangled.get();
  }
  // The parameter list: the last top-level parenthesised group ("(anonymous namespace)" comes
  // before it; template arguments may hold parentheses of their own).
  std::size_t end = name.size();
  int depth = 0;
  for (std::size_t i = name.size(); i-- > 0;) {
    if (name[i] == ')') ++depth;
    if (name[i] == '(' && --depth == 0) {
      end = i;
      break;
    }
  }
  name.resize(end);
  // A kernel returns void; the demangler writes the return type of a template's instance.
  constexpr std::string_view kVoid = "void ";
  if (name.rfind(kVoid, 0) == 0) name.erase(0, kVoid.size());
  return trimmed(name);
}

}  // namespace labgrade
