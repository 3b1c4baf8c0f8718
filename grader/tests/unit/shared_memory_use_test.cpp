// Whether a submission's kernels can touch shared memory (build/shared_memory_use.hpp), which
// decides whether racecheck runs in a sanitizer pass. The PTX reader on text, then on code
// compiled with the trusted build's own recipe (every lab's solution, lab 01's race fixture, and
// the ways a kernel reaches shared memory without a __shared__ array of its own); those skip
// where there is no nvcc or no recipe. Nothing here needs a GPU.
#include "build/shared_memory_use.hpp"

#include <fstream>
#include <optional>

#include <gtest/gtest.h>

#include "build/build_recipe.hpp"
#include "lab_build_recipe.hpp"
#include "sandbox/child_process.hpp"

namespace labgrade {
namespace {
namespace fs = std::filesystem;

TEST(SharedMemoryPtx, GlobalLoadsAndStoresAreNoUse) {
  EXPECT_EQ(first_shared_memory_use(".visible .entry k(.param .u64 p)\n{\n\tld.global.f32 %f1, [%rd1];\n"
                                    "\tst.global.f32 [%rd2], %f1;\n\tret;\n}\n"),
            std::nullopt);
}

TEST(SharedMemoryPtx, EachWayOfNamingTheSpaceIsFoundWithItsLine) {
  EXPECT_EQ(first_shared_memory_use("{\n\tld.shared.f32 \t%f2, [%r9];\n}"), "ld.shared.f32 (line 2)");
  EXPECT_EQ(first_shared_memory_use(".extern .shared .align 16 .b8 t[];"), ".shared (line 1)");
  EXPECT_EQ(first_shared_memory_use("\n\n\tcvta.to.shared.u64 %rd1, %rd2;"), "cvta.to.shared.u64 (line 3)");
  EXPECT_EQ(first_shared_memory_use("\tmapa.shared::cluster.u32 %r1, %r2, %r3;"), "mapa.shared::cluster.u32 (line 1)");
  EXPECT_EQ(first_shared_memory_use("\tcp.async.ca.shared.global [%r1], [%rd1], 16;"),
            "cp.async.ca.shared.global (line 1)");
}

TEST(SharedMemoryPtx, CommentsStringsAndLongerNamesAreNoUse) {
  EXPECT_EQ(first_shared_memory_use("// ld.shared.f32 in a comment\n/* st.shared.f32\n */\tret;\n"), std::nullopt);
  EXPECT_EQ(first_shared_memory_use("\t.file\t1 \"/home/a.shared/k.cu\"\n"), std::nullopt);
  EXPECT_EQ(first_shared_memory_use("\t.global .u32 x.shared_count;\n"), std::nullopt);
  // A comment before a use keeps the use's line.
  EXPECT_EQ(first_shared_memory_use("/* one\ntwo */\n\tst.shared.u32 [%r1], %r2;"), "st.shared.u32 (line 3)");
}

TEST(SharedMemoryLoaders, DeviceCodeFromBytesRunTimeCompilationOrAFoundDriverFunctionIsNamed) {
  EXPECT_EQ(device_code_loader({"cudaMalloc", "cudaLaunchKernel", "cudaGetLastError"}), std::nullopt);
  EXPECT_EQ(device_code_loader({"cudaFree", "cuModuleLoadData"}), "cuModuleLoadData");
  EXPECT_EQ(device_code_loader({"cudaLibraryLoadData"}), "cudaLibraryLoadData");
  EXPECT_EQ(device_code_loader({"nvrtcCompileProgram"}), "nvrtcCompileProgram");
  EXPECT_EQ(device_code_loader({"cudaGetDriverEntryPointByVersion"}), "cudaGetDriverEntryPointByVersion");
  EXPECT_EQ(device_code_loader({"dlsym"}), "dlsym");
}

// ---- compiled code --------------------------------------------------------------------------

fs::path scratch() {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = fs::path(::testing::TempDir()) /
                       (std::string("shared_memory_") + test->test_suite_name() + "_" + test->name());
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Every .cu of `folder` compiled as labgrade compiles a student's (PTX kept), then read.
SharedMemoryUse compiled_use(const BuildRecipe& recipe, const fs::path& folder) {
  const fs::path dir = scratch();
  std::vector<fs::path> sources, kept;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.path().extension() != ".cu") continue;
    sources.push_back(entry.path());
    kept.push_back(dir / (entry.path().filename().string() + ".device"));
    fs::create_directories(kept.back());
    ProcessSpec spec;
    spec.argv = student_compile_command(recipe, entry.path(), dir / (entry.path().filename().string() + ".o"), kept.back());
    spec.timeout_seconds = 600;
    spec.max_output_bytes = 1 << 20;
    const ProcessResult process = run_process(spec);
    EXPECT_TRUE(process.succeeded()) << process.output;
  }
  return read_shared_memory_use(sources, kept);
}

SharedMemoryUse compiled_source(const BuildRecipe& recipe, const std::string& source) {
  const fs::path folder = scratch().string() + "-src";
  fs::remove_all(folder);
  fs::create_directories(folder);
  std::ofstream(folder / "kernels.cu") << source;
  return compiled_use(recipe, folder);
}

#define RECIPE_OR_SKIP(name)                                                                              \
  const std::optional<BuildRecipe> name = recipe_for("01_vector_add");                                  \
  if (!name) GTEST_SKIP() << "no nvcc or no build recipe (configure the project with CUDA): CUDA sources are not " \
                             "compiled here"

TEST(SharedMemoryCompiled, LabOnesSolutionHasNoneAndItsRaceFixtureHasSome) {
  RECIPE_OR_SKIP(recipe);
  const SharedMemoryUse solution = compiled_use(*recipe, fs::path(CUDALABS_SOURCE_DIR) / "solutions/01_vector_add");
  EXPECT_TRUE(solution.known) << solution.evidence;
  EXPECT_FALSE(solution.possible) << solution.evidence;
  const SharedMemoryUse racy = compiled_use(
      *recipe, fs::path(CUDALABS_SOURCE_DIR) / "grader/tests/cli/submissions/01_vector_add/missing_syncthreads");
  EXPECT_TRUE(racy.known);
  EXPECT_TRUE(racy.possible);
  EXPECT_NE(racy.evidence.find("vector_add.cu: "), std::string::npos) << racy.evidence;
}

// Three of the nine solutions with shared arrays (each compile takes seconds): a tile, a tree
// reduction, atomics on shared counters.
TEST(SharedMemoryCompiled, SolutionsWithSharedArraysAreSeen) {
  for (const std::string lab : {"04_transpose", "05_reduction", "07_histogram"}) {
    const std::optional<BuildRecipe> recipe = recipe_for(lab);
    if (!recipe) GTEST_SKIP() << "no nvcc or no build recipe for " << lab;
    const SharedMemoryUse use = compiled_use(*recipe, fs::path(CUDALABS_SOURCE_DIR) / "solutions" / lab);
    EXPECT_TRUE(use.possible) << lab;
  }
}

TEST(SharedMemoryCompiled, DynamicSharedMemoryInlinePtxAndMacrosAreSeen) {
  RECIPE_OR_SKIP(recipe);
  // extern __shared__, reached through a plain pointer.
  EXPECT_TRUE(compiled_source(*recipe, "__global__ void k(float* c) { extern __shared__ float t[]; float* p = t;\n"
                                       "  p[threadIdx.x] = c[threadIdx.x]; __syncthreads();\n"
                                       "  c[threadIdx.x] = p[(threadIdx.x + 1) % blockDim.x]; }\n")
                  .possible);
  // Shared memory only inside inline PTX (a .shared variable it declares itself).
  EXPECT_TRUE(compiled_source(*recipe, "__global__ void k(unsigned* c) { unsigned v;\n"
                                       "  asm volatile(\"{ .shared .u32 s; st.shared.u32 [s], %1; ld.shared.u32 %0, [s]; }\"\n"
                                       "               : \"=r\"(v) : \"r\"(c[0]));\n  c[1] = v; }\n")
                  .possible);
  // A macro that spells __shared__ is still a shared array once compiled.
  EXPECT_TRUE(compiled_source(*recipe, "#define ON_CHIP __sha##red__\n__global__ void k(float* c) {\n"
                                       "  ON_CHIP float t[32]; t[threadIdx.x] = c[threadIdx.x]; __syncthreads();\n"
                                       "  c[threadIdx.x] = t[31 - threadIdx.x]; }\n")
                  .possible);
}

TEST(SharedMemoryCompiled, RegistersShufflesAndGlobalAtomicsAreNoUse) {
  RECIPE_OR_SKIP(recipe);
  const SharedMemoryUse use = compiled_source(
      *recipe, "__global__ void k(const float* a, float* sum, int n) {\n"
               "  float v = threadIdx.x < n ? a[threadIdx.x] : 0.f;\n"
               "  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);\n"
               "  if (threadIdx.x % 32 == 0) atomicAdd(sum, v); }\n");
  EXPECT_TRUE(use.known) << use.evidence;
  EXPECT_FALSE(use.possible) << use.evidence;
}

TEST(SharedMemoryCompiled, ACuFileWithoutKeptPtxIsNotKnown) {
  const fs::path dir = scratch();
  fs::create_directories(dir / "a.cu.device");
  const SharedMemoryUse use = read_shared_memory_use({dir / "a.cu"}, {dir / "a.cu.device"});
  EXPECT_FALSE(use.known);
  EXPECT_TRUE(use.possible);
  EXPECT_EQ(use.evidence, "a.cu: the compile left no PTX to read");
  // Host-only files need none.
  const SharedMemoryUse host = read_shared_memory_use({dir / "main.cpp"}, {dir / "none"});
  EXPECT_TRUE(host.known);
  EXPECT_FALSE(host.possible);
}

}  // namespace
}  // namespace labgrade
