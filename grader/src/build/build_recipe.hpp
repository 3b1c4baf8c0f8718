#pragma once
// How to rebuild a lab's student library from a submission: written by CMake at configure time
// (build/cudalabs/labs/<lab>.json, see cmake/CudalabsLab.cmake) so that labgrade compiles
// student code with exactly the compiler, architectures and include paths of the trusted build.
#include <filesystem>
#include <string>
#include <vector>

namespace labgrade {

struct BuildRecipe {
  std::string lab;
  std::string nvcc;
  std::string host_compiler;
  std::vector<std::string> cuda_architectures;
  std::string cuda_standard;
  std::vector<std::string> device_compile_flags;  // also the reference's (CUDALABS_DEVICE_COMPILE_FLAGS)
  std::vector<std::string> include_dirs;
  std::string student_library;    // file name the harnesses load, e.g. liblab_01_vector_add_student.so
  std::string version_script;     // linker map exporting only namespace student (cmake/student_library.map)
  std::string selfcheck_harness;  // absolute path of the public self-check binary
  std::string grade_harness;      // absolute path of the hidden-suite binary (the judge); empty in a student release
  // The judge's runners (cudalabs/remote/judge.hpp), placed beside it: the one that loads the
  // student library and the one with the solution linked in. Empty with grade_harness.
  std::string student_runner;
  std::string reference_runner;
};

// Throws std::runtime_error naming the file and the field when the recipe is missing or malformed.
BuildRecipe load_build_recipe(const std::filesystem::path& file);

// nvcc flags for CMake-style architecture entries: "90", "90-real", "90-virtual", "native", "all".
std::vector<std::string> nvcc_architecture_flags(const std::vector<std::string>& architectures);

// The student library is built in two steps, so the forbid: rules can look at what the student's
// own object code calls, not at what the toolchain links in beside it (some toolchains link parts
// of libstdc++ statically into a shared library, bringing open(), ioctl() and friends along).
// `device_code_dir`, when given, keeps nvcc's intermediate files there (the PTX among them).
std::vector<std::string> student_compile_command(const BuildRecipe& recipe, const std::filesystem::path& source,
                                                 const std::filesystem::path& object,
                                                 const std::filesystem::path& device_code_dir = {});
std::vector<std::string> student_link_command(const BuildRecipe& recipe,
                                              const std::vector<std::filesystem::path>& objects,
                                              const std::filesystem::path& output);

}  // namespace labgrade
