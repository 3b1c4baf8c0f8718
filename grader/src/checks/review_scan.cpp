#include "checks/review_scan.hpp"

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "sandbox/child_process.hpp"
#include "checks/include_scan.hpp"

namespace labgrade {
namespace {

struct Construct {
  const char* pattern;  // ECMAScript regex on a line of code without comments
  const char* what;
  const char* why;
};

// What memory-patching needs and lab code does not (edit here to review more).
const Construct kConstructs[] = {
    {R"(\bsyscall\s*\()", "raw system call (syscall)", "bypasses the C library and the symbol rules"},
    {R"(\b(asm|__asm__|__asm)\b)", "inline assembly", "can do anything the symbol rules would refuse (PTX asm in "
                                                      "device code is harmless)"},
    {R"(\b(mprotect|pkey_mprotect)\b)", "changing memory protection (mprotect)",
     "needed to patch code or read-only data of the test program"},
    {R"(/proc/)", "reading /proc/self (or another /proc file)",
     "exposes the test program's memory map and memory"},
    {R"(\bdl_iterate_phdr\b|_GLOBAL_OFFSET_TABLE_|\blink_map\b|\b_r_debug\b)", "walking the loaded libraries",
     "finds the test program's GOT and functions"},
    {R"(__attribute__\s*\(\(\s*(__)?constructor|\[\[\s*gnu::constructor|\.init_array|\.preinit_array|\.ctors)",
     "static constructor (constructor attribute or section)", "runs before the test program's main"},
};

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read the staged file " + file.string());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::vector<ReviewNote> review_sources(const std::vector<std::filesystem::path>& files,
                                       const std::vector<std::string>& shown_as) {
  static const std::vector<std::regex> patterns = [] {
    std::vector<std::regex> compiled;
    for (const Construct& construct : kConstructs) compiled.emplace_back(construct.pattern);
    return compiled;
  }();
  std::vector<ReviewNote> notes;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const std::string name = i < shown_as.size() ? shown_as[i] : files[i].filename().string();
    std::istringstream lines(without_comments(read_text(files[i])));
    int number = 0;
    for (std::string line; std::getline(lines, line);) {
      ++number;
      for (std::size_t c = 0; c < patterns.size(); ++c) {
        if (!std::regex_search(line, patterns[c])) continue;
        notes.push_back(ReviewNote{kConstructs[c].what, fmt::format("{}:{}", name, number), kConstructs[c].why});
      }
    }
  }
  return notes;
}

int constructor_entries(const std::string& readelf_relocations) {
  // "Relocation section '.rela.init_array' at offset 0x8c20 contains 1 entry:"
  static const std::regex section(R"(Relocation section '\.rela?\.(init_array|ctors|preinit_array)[^']*' .*contains (\d+) entr)");
  int entries = 0;
  std::istringstream lines(readelf_relocations);
  for (std::string line; std::getline(lines, line);) {
    std::smatch match;
    if (std::regex_search(line, match, section)) entries += std::stoi(match[2]);
  }
  return entries;
}

std::vector<ReviewNote> review_objects(const std::vector<std::string>& objects, const std::string& shown_as,
                                       const ResourceLimits& limits) {
  int constructors = 0;
  for (const std::string& object : objects) {
    ProcessSpec spec;
    spec.argv = {"readelf", "-rW", object};  // untrusted input to readelf, hence the limits
    spec.timeout_seconds = 60;
    spec.max_output_bytes = 16 << 20;
    spec.limits = limits;
    const ProcessResult process = run_process(spec);
    if (!process.succeeded()) continue;  // review notes are advice: a tool failure costs nothing
    // nvcc registers each object's fat binary with one constructor of its own.
    constructors += std::max(0, constructor_entries(process.output) - 1);
  }
  if (constructors == 0) return {};
  return {ReviewNote{"static constructor", fmt::format("{} ({} in the compiled code)", shown_as, constructors),
                     "runs before the test program's main"}};
}

}  // namespace labgrade
