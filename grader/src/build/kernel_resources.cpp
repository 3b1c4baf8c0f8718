#include "build/kernel_resources.hpp"

#include <cxxabi.h>

#include <cstdlib>
#include <memory>
#include <regex>
#include <sstream>

namespace labgrade {
namespace {

long number(const std::smatch& match, std::size_t group) { return match[group].matched ? std::stol(match[group]) : 0; }

// The name without its namespaces, return type and parameters: the text before the parameter
// list's '(' (at template depth 0), after the last "::" outside template arguments.
std::string shorten(const std::string& demangled) {
  int depth = 0;
  std::size_t open = std::string::npos;
  for (std::size_t i = 0; i < demangled.size(); ++i) {
    const char c = demangled[i];
    if (c == '<') ++depth;
    if (c == '>') --depth;
    if (c == '(' && depth == 0) {
      // "(anonymous namespace)" is part of the qualified name, not the parameter list.
      if (demangled.compare(i, 21, "(anonymous namespace)") == 0) {
        i += 20;
        continue;
      }
      open = i;
      break;
    }
  }
  std::string head = demangled.substr(0, open);
  depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < head.size(); ++i) {
    if (head[i] == '<') ++depth;
    if (head[i] == '>') --depth;
    if (depth == 0 && head[i] == ' ') start = i + 1;  // after the return type
    if (depth == 0 && head.compare(i, 2, "::") == 0) start = i + 2;
  }
  return head.substr(start);
}

}  // namespace

std::string kernel_display_name(const std::string& mangled) {
  int status = 0;
  const std::unique_ptr<char, void (*)(void*)> demangled(abi::__cxa_demangle(mangled.c_str(), nullptr, nullptr, &status),
                                                        std::free);
  if (status != 0 || !demangled) return mangled;
  return shorten(demangled.get());
}

std::vector<KernelResources> take_resource_usage(std::string& output) {
  static const std::regex entry(R"(^ptxas info\s*: Compiling entry function '([^']+)' for '([^']+)')");
  static const std::regex properties(R"(^ptxas info\s*: Function properties for (\S+))");
  static const std::regex frame(R"(^\s*(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(^ptxas info\s*: Used (\d+) registers(?:, used (\d+) barriers)?(?:, (\d+) bytes smem)?)");
  std::vector<KernelResources> kernels;
  std::string kept;
  std::istringstream lines(output);
  bool frame_next = false;  // the line after "Function properties for <the current kernel>"
  std::smatch match;
  for (std::string line; std::getline(lines, line);) {
    if (frame_next && std::regex_search(line, match, frame)) {
      frame_next = false;
      KernelResources& kernel = kernels.back();
      kernel.stack_bytes = number(match, 1);
      kernel.spill_store_bytes = number(match, 2);
      kernel.spill_load_bytes = number(match, 3);
      continue;
    }
    frame_next = false;
    if (std::regex_search(line, match, entry)) {
      KernelResources kernel;
      kernel.mangled = match[1];
      kernel.name = kernel_display_name(kernel.mangled);
      kernel.arch = match[2];
      kernels.push_back(std::move(kernel));
    } else if (std::regex_search(line, match, properties)) {
      frame_next = !kernels.empty() && match[1] == kernels.back().mangled;
    } else if (std::regex_search(line, match, used)) {
      if (!kernels.empty()) {
        kernels.back().registers = static_cast<int>(number(match, 1));
        kernels.back().barriers = static_cast<int>(number(match, 2));
        kernels.back().shared_bytes = number(match, 3);
      }
    } else if (line.rfind("ptxas info", 0) == 0) {
      // gmem totals, compile times: nothing a student acts on
    } else if (line.find("bytes stack frame,") != std::string::npos && line.find("spill") != std::string::npos) {
      // a device function's frame (not an entry point)
    } else {
      kept += line + "\n";
    }
  }
  output = kept;
  return kernels;
}

}  // namespace labgrade
