#include "build/build_recipe.hpp"

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace labgrade {
namespace {

std::string required_string(const nlohmann::json& json, const char* field, const std::filesystem::path& file) {
  if (!json.contains(field) || !json[field].is_string()) {
    throw std::runtime_error(fmt::format("{}: field '{}' must be a string; rebuild with CMake", file.string(), field));
  }
  return json[field].get<std::string>();
}

std::vector<std::string> required_strings(const nlohmann::json& json, const char* field,
                                          const std::filesystem::path& file) {
  if (!json.contains(field) || !json[field].is_array()) {
    throw std::runtime_error(fmt::format("{}: field '{}' must be a list of strings", file.string(), field));
  }
  std::vector<std::string> values;
  for (const auto& item : json[field]) {
    if (!item.is_string()) {
      throw std::runtime_error(fmt::format("{}: field '{}' must hold strings only", file.string(), field));
    }
    values.push_back(item.get<std::string>());
  }
  return values;
}

}  // namespace

BuildRecipe load_build_recipe(const std::filesystem::path& file) {
  std::ifstream in(file);
  if (!in) {
    throw std::runtime_error(fmt::format(
        "{} not found: this lab has not been built (run `cmake --build` in the build directory)", file.string()));
  }
  nlohmann::json json;
  try {
    in >> json;
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(fmt::format("{}: not valid JSON: {}", file.string(), error.what()));
  }
  BuildRecipe recipe;
  recipe.lab = required_string(json, "lab", file);
  recipe.nvcc = required_string(json, "nvcc", file);
  recipe.host_compiler = required_string(json, "host_compiler", file);
  recipe.cuda_architectures = required_strings(json, "cuda_architectures", file);
  recipe.cuda_standard = required_string(json, "cuda_standard", file);
  recipe.device_compile_flags = required_strings(json, "device_compile_flags", file);
  recipe.include_dirs = required_strings(json, "include_dirs", file);
  recipe.student_library = required_string(json, "student_library", file);
  recipe.version_script = required_string(json, "version_script", file);
  recipe.selfcheck_harness = required_string(json, "selfcheck_harness", file);
  recipe.grade_harness = required_string(json, "grade_harness", file);
  if (!recipe.grade_harness.empty()) {
    recipe.student_runner = required_string(json, "student_runner", file);
    recipe.reference_runner = required_string(json, "reference_runner", file);
  }
  return recipe;
}

std::vector<std::string> nvcc_architecture_flags(const std::vector<std::string>& architectures) {
  std::vector<std::string> flags;
  for (const std::string& entry : architectures) {
    if (entry == "native" || entry == "all" || entry == "all-major") {
      flags.push_back("-arch=" + entry);
      continue;
    }
    const auto dash = entry.find('-');
    const std::string number = entry.substr(0, dash);
    const std::string kind = dash == std::string::npos ? "" : entry.substr(dash + 1);
    if (number.empty() || number.find_first_not_of("0123456789af") != std::string::npos ||
        !(kind.empty() || kind == "real" || kind == "virtual")) {
      throw std::invalid_argument(fmt::format("unsupported CUDA architecture entry '{}'", entry));
    }
    // Same meaning as CMake: a bare number embeds both machine code and PTX.
    const std::string code = kind == "real"      ? fmt::format("sm_{}", number)
                             : kind == "virtual" ? fmt::format("compute_{}", number)
                                                 : fmt::format("[compute_{0},sm_{0}]", number);
    flags.push_back(fmt::format("--generate-code=arch=compute_{},code={}", number, code));
  }
  return flags;
}

namespace {

std::vector<std::string> nvcc_base(const BuildRecipe& recipe) {
  std::vector<std::string> command{recipe.nvcc, "-std=c++" + recipe.cuda_standard, "-O3", "-lineinfo",
                                   "-Xcompiler=-fPIC", "-cudart=shared"};
  if (!recipe.host_compiler.empty()) command.push_back("-ccbin=" + recipe.host_compiler);
  for (auto& flag : nvcc_architecture_flags(recipe.cuda_architectures)) command.push_back(std::move(flag));
  return command;
}

}  // namespace

std::vector<std::string> student_compile_command(const BuildRecipe& recipe, const std::filesystem::path& source,
                                                 const std::filesystem::path& object,
                                                 const std::filesystem::path& device_code_dir) {
  std::vector<std::string> command = nvcc_base(recipe);
  command.push_back("-DLAB_IMPL=student");
  command.push_back("--resource-usage");  // each kernel's registers, shared memory, spills (kernel_resources.hpp)
  // The reference's own (CUDALABS_DEVICE_COMPILE_FLAGS, cmake/CudalabsLab.cmake), so both sides of
  // a ratio get the same machine code from the same source.
  command.insert(command.end(), recipe.device_compile_flags.begin(), recipe.device_compile_flags.end());
  for (const auto& dir : recipe.include_dirs) command.push_back("-I" + dir);
  // The PTX nvcc makes on the way, kept for build/shared_memory_use.hpp (no extra compile).
  if (!device_code_dir.empty()) command.insert(command.end(), {"--keep", "--keep-dir=" + device_code_dir.string()});
  command.insert(command.end(), {"-c", source.string(), "-o", object.string()});
  return command;
}

std::vector<std::string> student_link_command(const BuildRecipe& recipe,
                                              const std::vector<std::filesystem::path>& objects,
                                              const std::filesystem::path& output) {
  std::vector<std::string> command = nvcc_base(recipe);
  command.push_back("-shared");
  // Every symbol the student library needs must resolve now, not when a test first calls it.
  command.push_back("-Xlinker=--no-undefined");
  // Only the lab's API is exported, so nothing the student defines can replace a function the
  // test program calls (see cmake/student_library.map).
  command.push_back("-Xlinker=--version-script=" + recipe.version_script);
  command.push_back("-o");
  command.push_back(output.string());
  for (const auto& object : objects) command.push_back(object.string());
  return command;
}

}  // namespace labgrade
