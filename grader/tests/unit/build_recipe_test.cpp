#include "build/build_recipe.hpp"

#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>

#include "build/kernel_resources.hpp"
#include "checks/kernel_requirements.hpp"
#include "sandbox/child_process.hpp"

namespace labgrade {
namespace {

TEST(NvccArchitectureFlags, FollowsCMakeMeaningOfEachEntry) {
  EXPECT_EQ(nvcc_architecture_flags({"90"}),
            (std::vector<std::string>{"--generate-code=arch=compute_90,code=[compute_90,sm_90]"}));
  EXPECT_EQ(nvcc_architecture_flags({"80-real", "90a-virtual"}),
            (std::vector<std::string>{"--generate-code=arch=compute_80,code=sm_80",
                                      "--generate-code=arch=compute_90a,code=compute_90a"}));
  EXPECT_EQ(nvcc_architecture_flags({"native"}), (std::vector<std::string>{"-arch=native"}));
}

TEST(NvccArchitectureFlags, RejectsWhatNvccWouldMisread) {
  EXPECT_THROW(nvcc_architecture_flags({"sm_90"}), std::invalid_argument);
  EXPECT_THROW(nvcc_architecture_flags({"90-fast"}), std::invalid_argument);
  EXPECT_THROW(nvcc_architecture_flags({""}), std::invalid_argument);
}

BuildRecipe sample_recipe() {
  BuildRecipe recipe;
  recipe.nvcc = "/usr/local/cuda/bin/nvcc";
  recipe.host_compiler = "/usr/bin/g++";
  recipe.cuda_architectures = {"90"};
  recipe.cuda_standard = "17";
  recipe.include_dirs = {"/course/labs/01_vector_add", "/course/common/include"};
  recipe.version_script = "/course/cmake/student_library.map";
  return recipe;
}

bool has(const std::vector<std::string>& command, const std::string& flag) {
  return std::find(command.begin(), command.end(), flag) != command.end();
}

TEST(StudentBuildCommands, CompileEachSourceInTheStudentNamespace) {
  const auto command = student_compile_command(sample_recipe(), "/tmp/work/vector_add.cu", "/tmp/o/vector_add.cu.o");
  EXPECT_EQ(command.front(), "/usr/local/cuda/bin/nvcc");
  for (const char* expected : {"-std=c++17", "-c", "/tmp/work/vector_add.cu", "-Xcompiler=-fPIC", "-cudart=shared",
                               "-ccbin=/usr/bin/g++", "-DLAB_IMPL=student", "-I/course/labs/01_vector_add"}) {
    EXPECT_TRUE(has(command, expected)) << expected << " in " << shell_quote(command);
  }
  EXPECT_FALSE(has(command, "-shared"));
}

TEST(StudentBuildCommands, LinkTheObjectsIntoASharedLibraryWithNothingUnresolved) {
  const auto command = student_link_command(sample_recipe(), {"/tmp/o/a.cu.o", "/tmp/o/b.cu.o"}, "/tmp/bin/lib.so");
  for (const char* expected : {"-shared", "-cudart=shared", "-Xlinker=--no-undefined", "/tmp/o/a.cu.o", "/tmp/o/b.cu.o",
                               "-Xlinker=--version-script=/course/cmake/student_library.map"}) {
    EXPECT_TRUE(has(command, expected)) << expected << " in " << shell_quote(command);
  }
  EXPECT_EQ(*(std::find(command.begin(), command.end(), "-o") + 1), "/tmp/bin/lib.so");
}

class BuildRecipeFile : public ::testing::Test {
 protected:
  std::filesystem::path write(const std::string& text) {
    // One file per test: ctest runs this binary's tests side by side in one scratch folder.
    const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    const auto file = std::filesystem::path(::testing::TempDir()) / ("recipe_" + test + ".json");
    std::ofstream(file) << text;
    return file;
  }
};

TEST_F(BuildRecipeFile, LoadsEveryField) {
  const auto file = write(R"({"lab":"01_vector_add","nvcc":"/n","host_compiler":"","cuda_architectures":["80","90"],
    "cuda_standard":"17","device_compile_flags":["--split-compile=8"],"include_dirs":["/a"],"student_library":"liblab.so","version_script":"/c/student_library.map",
    "selfcheck_harness":"/s","grade_harness":""})");
  const BuildRecipe recipe = load_build_recipe(file);
  EXPECT_EQ(recipe.lab, "01_vector_add");
  EXPECT_EQ(recipe.cuda_architectures, (std::vector<std::string>{"80", "90"}));
  EXPECT_EQ(recipe.student_library, "liblab.so");
  EXPECT_EQ(recipe.device_compile_flags, (std::vector<std::string>{"--split-compile=8"}));
  EXPECT_EQ(recipe.version_script, "/c/student_library.map");
  EXPECT_TRUE(recipe.grade_harness.empty());
}

TEST_F(BuildRecipeFile, NamesTheMissingField) {
  const auto file = write(R"({"lab":"01_vector_add"})");
  try {
    load_build_recipe(file);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("nvcc"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(file.string()), std::string::npos) << error.what();
  }
}

TEST_F(BuildRecipeFile, TellsHowToBuildWhenMissing) {
  try {
    load_build_recipe("/nonexistent/cudalabs/labs/01_vector_add.json");
    FAIL() << "expected an error";
  } catch (const std::runtime_error& error) {
    EXPECT_NE(std::string(error.what()).find("cmake --build"), std::string::npos) << error.what();
  }
}

// ptxas's --resource-usage lines, as nvcc 13 prints them for a kernel that spills and a device
// function that is not an entry point; a compiler warning between them stays in the output.
TEST(KernelResources, ReadsEachEntryAndLeavesTheOtherMessages) {
  std::string output =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function "
      "'_ZN7student45_GLOBAL__N__17ea621d_12_transpose_cu_3e51d4f012tiled_kernelILj64ELj8ELj1EEEvPKfPfjj' for "
      "'sm_90'\n"
      "ptxas info    : Function properties for "
      "_ZN7student45_GLOBAL__N__17ea621d_12_transpose_cu_3e51d4f012tiled_kernelILj64ELj8ELj1EEEvPKfPfjj\n"
      "    8 bytes stack frame, 24 bytes spill stores, 16 bytes spill loads\n"
      "ptxas info    : Used 255 registers, used 1 barriers, 16640 bytes smem\n"
      "ptxas info    : Compile time = 10.479 ms\n"
      "transpose.cu(12): warning #177-D: variable \"unused\" was declared but never referenced\n"
      "ptxas info    : Function properties for _Z6helperf\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Compiling entry function '_ZN7student12naive_kernelEPKfPfjj' for 'sm_90'\n"
      "ptxas info    : Function properties for _ZN7student12naive_kernelEPKfPfjj\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 10 registers, used 0 barriers\n";
  const std::vector<KernelResources> kernels = take_resource_usage(output);
  ASSERT_EQ(kernels.size(), 2u);
  EXPECT_EQ(kernels[0].name, "tiled_kernel<64u, 8u, 1u>");
  EXPECT_EQ(kernels[0].arch, "sm_90");
  EXPECT_EQ(kernels[0].registers, 255);
  EXPECT_EQ(kernels[0].barriers, 1);
  EXPECT_EQ(kernels[0].shared_bytes, 16640);
  EXPECT_EQ(kernels[0].stack_bytes, 8);
  EXPECT_EQ(kernels[0].spill_store_bytes, 24);
  EXPECT_EQ(kernels[0].spill_load_bytes, 16);
  EXPECT_EQ(kernels[1].name, "naive_kernel");
  EXPECT_EQ(kernels[1].registers, 10);
  EXPECT_EQ(kernels[1].shared_bytes, 0);
  EXPECT_EQ(output, "transpose.cu(12): warning #177-D: variable \"unused\" was declared but never referenced\n");
}

TEST(KernelResources, NamesKernelsAsTheirAuthorsWroteThem) {
  EXPECT_EQ(kernel_display_name("_ZN7student17vector_add_kernelEPKfS1_Pfm"), "vector_add_kernel");
  EXPECT_EQ(kernel_display_name("_ZN7student45_GLOBAL__N__17ea621d_12_transpose_cu_3e51d4f012naive_kernelEPKfPfjj"),
            "naive_kernel");
  EXPECT_EQ(kernel_display_name("not_mangled"), "not_mangled");
}

// The lab's `kernels:` on what the compiler reported: a template's every instantiation must meet
// it; a kernel that is not there is named too.
TEST(KernelRequirements, NameEachKernelThatMissesWhatTheLabAsks) {
  KernelResources tiled64;
  tiled64.name = "tiled_kernel<64u, 8u>";
  tiled64.arch = "sm_90";
  tiled64.shared_bytes = 16640;
  KernelResources tiled32 = tiled64;
  tiled32.name = "tiled_kernel<32u, 8u>";
  tiled32.shared_bytes = 0;
  KernelResources naive = tiled64;
  naive.name = "naive_kernel";
  naive.shared_bytes = 0;
  naive.spill_store_bytes = 8;
  using cudalabs::config::KernelRequirement;
  const std::vector<KernelRequirement> required = {
      {"tiled_kernel", "shared_memory", "stage the tile (step 2)"},
      {"naive_kernel", "no_spills", "keep it in registers"},
      {"conflict_free_kernel", "shared_memory", "pad the tile (step 3)"}};
  const std::vector<std::string> unmet = unmet_kernel_requirements(required, {tiled64, tiled32, naive});
  ASSERT_EQ(unmet.size(), 3u);
  EXPECT_EQ(unmet[0], "tiled_kernel<32u, 8u> (sm_90) uses no (static) shared memory: stage the tile (step 2)");
  EXPECT_EQ(unmet[1], "naive_kernel (sm_90) spills registers to local memory: keep it in registers");
  EXPECT_NE(unmet[2].find("no kernel named conflict_free_kernel was compiled"), std::string::npos) << unmet[2];
  tiled32.shared_bytes = 4096;
  naive.spill_store_bytes = 0;
  EXPECT_EQ(unmet_kernel_requirements({required[0], required[1]}, {tiled64, tiled32, naive}).size(), 0u);
}

// The student's compile asks the compiler for each kernel's resources.
TEST(StudentBuildCommands, AskForEachKernelsResources) {
  BuildRecipe recipe;
  recipe.nvcc = "/usr/local/cuda/bin/nvcc";
  recipe.cuda_architectures = {"90"};
  const auto command = student_compile_command(recipe, "a.cu", "a.o");
  EXPECT_NE(std::find(command.begin(), command.end(), "--resource-usage"), command.end());
}

// The submission is compiled with the reference's device flags (CUDALABS_DEVICE_COMPILE_FLAGS).
TEST(StudentBuildCommands, TakeTheReferencesDeviceFlags) {
  BuildRecipe recipe = sample_recipe();
  recipe.device_compile_flags = {"--split-compile=8"};
  const auto command = student_compile_command(recipe, "a.cu", "a.o");
  EXPECT_NE(std::find(command.begin(), command.end(), "--split-compile=8"), command.end());
}

}  // namespace
}  // namespace labgrade
