#pragma once
// Reading what Nsight Compute wrote with `--csv --page raw --print-units base --print-kernel-base
// mangled` (its --log-file; seen with ncu 2025.3): the tool's own lines (==PROF==, ==WARNING==,
// ==ERROR==), then a table whose header row names the launch columns ("ID", "Process ID", ...,
// "Kernel Name", ..., "CC") and then one column per metric (each asked-for metric with its .avg,
// .max, .min, .sum rollups, and device__attribute_*, launch__* ... besides), a row of units (empty
// under the launch columns), and one row per profiled kernel launch, numbers with thousands
// separators.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace labgrade {

struct NcuLaunch {
  std::string id;      // ncu's launch number within its process
  std::string kernel;  // as printed: the symbol, "_ZN7student1kILi32EEEvPKfi"
  std::map<std::string, std::string> values;  // metric -> its cell, as printed ("1,024", "n/a")
};

struct NcuLog {
  std::vector<NcuLaunch> launches;
  std::map<std::string, std::string> units;  // metric -> unit from the units row ("sector", "%")
  // ERR_NVGPUCTRPERM: this user may not read the GPU's performance counters (ncu still runs the
  // program, profiling nothing).
  bool permission_denied = false;
  std::vector<std::string> errors;  // the "==ERROR==" lines, without the prefix
};

// Never throws: what it cannot read is left out (a row shorter than the header keeps the cells
// it has; a cell that is not a number reads as absent through ncu_number).
NcuLog parse_ncu_log(std::string_view text);

// A cell as a number: thousands separators ignored; nullopt for "", "n/a" and anything else.
std::optional<double> ncu_number(std::string_view cell);

// The kernel's name as a reader knows it, without its return type and parameter list: a symbol
// demangled ("_ZN7student1kILi32EEEvPKfi" -> "student::k<32>"), or a name ncu printed demangled
// ("void student::k<32>(const float *, int)" -> the same).
std::string kernel_base_name(std::string_view printed);

// The cells of one CSV line ("" quoting, commas inside quotes).
std::vector<std::string> split_csv_line(std::string_view line);

}  // namespace labgrade
