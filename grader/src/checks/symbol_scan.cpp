// The compiled-library half of the forbid checks (include_scan.hpp is the source half): undefined symbols, from nm, against the rules.
#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "checks/symbol_scan.hpp"
#include "sandbox/child_process.hpp"

namespace labgrade {

using cudalabs::config::ForbidRule;
using cudalabs::config::glob_match;

namespace {
// The whitespace-separated fields of one line of nm's output.
std::vector<std::string> nm_fields(const std::string& line) {
  std::istringstream fields(line);
  std::vector<std::string> words;
  for (std::string word; fields >> word;) words.push_back(word);
  return words;
}
}  // namespace

std::vector<std::string> parse_nm_undefined(const std::string& nm_output) {
  std::vector<std::string> symbols;
  std::istringstream lines(nm_output);
  for (std::string line; std::getline(lines, line);) {
    // "                 U name@VERSION"; an address column, when present, comes first.
    const std::vector<std::string> words = nm_fields(line);
    if (words.size() < 2) continue;
    const std::string& type = words[words.size() - 2];
    if (type != "U" && type != "w" && type != "v") continue;
    std::string name = words.back();
    name.erase(std::min(name.find('@'), name.size()));
    if (!name.empty()) symbols.push_back(name);
  }
  return symbols;
}

std::string demangle(const std::string& symbol) {
  if (symbol.rfind("_Z", 0) != 0) return symbol;
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> text(abi::__cxa_demangle(symbol.c_str(), nullptr, nullptr, &status),
                                                   std::free);
  return status == 0 && text ? std::string(text.get()) : symbol;
}

std::vector<RuleViolation> check_symbols(const std::vector<std::string>& symbols, const std::vector<ForbidRule>& rules,
                                         const std::string& location) {
  std::vector<RuleViolation> violations;
  for (const std::string& symbol : symbols) {
    const std::string readable = demangle(symbol);
    for (const ForbidRule& rule : rules) {
      if (!glob_match(rule.pattern, symbol) && !glob_match(rule.pattern, readable)) continue;
      const std::string found = readable == symbol ? symbol : fmt::format("{} ({})", readable, symbol);
      violations.push_back(RuleViolation{rule, "calling " + found, location});
      break;
    }
  }
  return violations;
}

namespace {

// nm's output for `library` with `which` (--undefined-only or --defined-only).
std::string run_nm(const std::filesystem::path& library, const char* which, const ResourceLimits& limits) {
  ProcessSpec spec;
  // -p: symbol-table order, no sorting. The library is untrusted input to nm, hence the limits.
  // An object file has no dynamic symbol table; a shared library or executable is read through it.
  spec.argv = library.extension() == ".o" ? std::vector<std::string>{"nm", which, "-p", library.string()}
                                          : std::vector<std::string>{"nm", "-D", which, "-p", library.string()};
  spec.timeout_seconds = 60;
  spec.max_output_bytes = 16 << 20;
  spec.limits = limits;
  const ProcessResult process = run_process(spec);
  if (process.exited && process.exit_code == 127 && process.output.find("cannot run nm") != std::string::npos) {
    throw std::runtime_error("nm is needed to check the compiled code against the lab's rules: "
                             "install the Debian package binutils");
  }
  if (!process.succeeded() || process.output_bytes_dropped > 0) {
    throw std::runtime_error(fmt::format("nm could not list the symbols of {} ({}):\n{}", library.string(),
                                         process.describe_end(spec.timeout_seconds), process.output));
  }
  return process.output;
}

bool starts_with(const std::string& text, const std::string& prefix) { return text.rfind(prefix, 0) == 0; }

}  // namespace

std::vector<std::string> undefined_symbols(const std::filesystem::path& library, const ResourceLimits& limits) {
  return parse_nm_undefined(run_nm(library, "--undefined-only", limits));
}

std::vector<std::string> defined_symbols(const std::filesystem::path& file, const ResourceLimits& limits) {
  return parse_nm_strong_definitions(run_nm(file, "--defined-only", limits));
}

std::vector<std::string> parse_nm_strong_definitions(const std::string& nm_output) {
  std::vector<std::string> symbols;
  std::istringstream lines(nm_output);
  for (std::string line; std::getline(lines, line);) {
    const std::vector<std::string> words = nm_fields(line);
    if (words.size() < 2 || words[words.size() - 2].size() != 1) continue;
    const char type = words[words.size() - 2][0];
    // Upper case is global; W and V are weak, U undefined, A an absolute (linker) symbol.
    if (!(type >= 'A' && type <= 'Z') || type == 'W' || type == 'V' || type == 'U' || type == 'A') continue;
    std::string name = words.back();
    name.erase(std::min(name.find('@'), name.size()));
    if (!name.empty()) symbols.push_back(name);
  }
  return symbols;
}

bool allowed_student_definition(const std::string& symbol) {
  // What nvcc and the toolchain generate around the student's own code: fat binaries and their
  // registration, kernel launch stubs, anonymous namespaces renamed to unique _GLOBAL__N_<hash>.
  for (const char* generated : {"__cuda", "__fatbin", "__nv_", "__device_stub__", "_GLOBAL__N_", "__sti__",
                                "_GLOBAL__sub_I"}) {
    if (starts_with(symbol, generated)) return true;
  }
  if (symbol == "_init" || symbol == "_fini") return true;
  std::string readable = demangle(symbol);
  // Data the compiler emits for a class of the API: typeinfo, vtables, guard variables.
  for (const char* about : {"typeinfo name for ", "typeinfo for ", "vtable for ", "VTT for ", "construction vtable for ",
                            "guard variable for "}) {
    if (starts_with(readable, about)) {
      readable.erase(0, std::string(about).size());
      break;
    }
  }
  // nvcc gives anonymous namespaces a unique global name (_GLOBAL__N__<hash>_<file>): the
  // demangler shows it as "(anonymous namespace)"; nothing outside this file can name it.
  return starts_with(readable, std::string(kStudentNamespace) + "::") || starts_with(readable, "__device_stub__") ||
         starts_with(readable, "_GLOBAL__N_") || starts_with(readable, "(anonymous namespace)::");
}

std::vector<RuleViolation> check_definitions(const std::vector<std::string>& symbols, const std::string& location,
                                             const std::string& verb) {
  static const cudalabs::config::ForbidRule kOnlyTheApi{
      "definitions outside namespace student",
      fmt::format("student code may define, at global scope, only the lab's API (namespace {}), so that nothing it "
                  "defines can stand in for a function the test program uses; put helpers in an anonymous "
                  "namespace or inside namespace {}, or mark them static",
                  kStudentNamespace, kStudentNamespace),
      "", 0, ""};
  std::vector<RuleViolation> violations;
  for (const std::string& symbol : symbols) {
    if (allowed_student_definition(symbol)) continue;
    const std::string readable = demangle(symbol);
    const std::string found = readable == symbol ? symbol : fmt::format("{} ({})", readable, symbol);
    violations.push_back(RuleViolation{kOnlyTheApi, verb + " " + found, location});
  }
  return violations;
}

}  // namespace labgrade
