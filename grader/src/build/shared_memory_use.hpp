#pragma once
// Whether the student's device code can touch shared memory, read from the PTX nvcc made of each
// .cu file (the compile keeps it: student_compile_command's `device_code_dir`). racecheck looks
// for hazards in shared memory only, so a grade whose kernels never name the shared state space
// has nothing for it to find: the sanitizer pass leaves it out (a lab 01 grade's racecheck runs
// cost 5-8 s of tool time against memcheck's 2 on the H100) and says why in the report.
//
// What counts as a use: any `.shared` state space in the PTX outside comments: a __shared__ or
// `extern __shared__` variable, ld/st/atom/red on shared memory, a conversion between generic
// and shared addresses (cvta), cp.async, ldmatrix, mbarrier and cluster (distributed shared
// memory) instructions; inline PTX is part of the file, so it is read too. Not seen, on purpose: a
// generic address into the shared window made up by arithmetic alone; that is why a lab whose
// YAML makes the sanitizer's findings cost points always runs racecheck (stages.cpp).
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace labgrade {

// The first shared-memory construct in one PTX file ("ld.shared.f32 (line 36)"), none when the
// file has none.
std::optional<std::string> first_shared_memory_use(const std::string& ptx);

struct SharedMemoryUse {
  bool known = false;     // every .cu file's PTX was found and read
  bool possible = true;   // some kernel may access shared memory (always true when not known)
  std::string evidence;   // where ("reduce.cu: ld.shared.f32 (line 36)"), or why it is not known
};

// The first function among `called` (the undefined symbols of the student's objects) through
// which device code that is not in their PTX can run: a module or library loaded from bytes
// (cuModuleLoadData, cudaLibraryLoadData), compiled at run time (NVRTC, nvJitLink, the driver's
// linker), or a driver function found without linking it (cudaGetDriverEntryPoint, dlsym). With
// one, the PTX says nothing about the kernels that run, so racecheck runs.
std::optional<std::string> device_code_loader(const std::vector<std::string>& called);

// `sources`: the student's compiled source files; `device_code_dirs`: for each, the folder its
// compile kept its intermediate files in (the same order). Files other than .cu have no device code.
SharedMemoryUse read_shared_memory_use(const std::vector<std::filesystem::path>& sources,
                                       const std::vector<std::filesystem::path>& device_code_dirs);

}  // namespace labgrade
