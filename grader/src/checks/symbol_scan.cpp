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

std::vector<std::string> parse_nm_undefined(const std::string& nm_output) {
  std::vector<std::string> symbols;
  std::istringstream lines(nm_output);
  for (std::string line; std::getline(lines, line);) {
    // "                 U name@VERSION"; an address column, when present, comes first.
    std::istringstream fields(line);
    std::vector<std::string> words;
    for (std::string word; fields >> word;) words.push_back(word);
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

std::vector<std::string> undefined_symbols(const std::filesystem::path& library, const ResourceLimits& limits) {
  ProcessSpec spec;
  // -p: symbol-table order, no sorting. The library is untrusted input to nm, hence the limits.
  // An object file has no dynamic symbol table; a shared library or executable is read through it.
  spec.argv = library.extension() == ".o"
                  ? std::vector<std::string>{"nm", "--undefined-only", "-p", library.string()}
                  : std::vector<std::string>{"nm", "-D", "--undefined-only", "-p", library.string()};
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
  return parse_nm_undefined(process.output);
}

}  // namespace labgrade
