// "For the instructor to review": notes read from the COMPILED student code (checks/review_scan.hpp).
// Each evasion of a source regex (a macro-spelled syscall, assembly through a macro, a /proc path
// put together from pieces, a constructor through a macro) is compiled for real and must still be
// listed; honest lab code (every reference solution and skeleton) must get no note. Host sources
// are compiled with c++; CUDA sources with the trusted build's own recipe (nvcc), and those tests
// skip where there is no nvcc or no recipe. Nothing here needs a GPU.
#include "checks/review_scan.hpp"

#include <algorithm>
#include <fstream>
#include <optional>
#include <ostream>

#include <gtest/gtest.h>

#include "build/build_recipe.hpp"
#include "lab_build_recipe.hpp"
#include "sandbox/child_process.hpp"

namespace labgrade {
namespace {
namespace fs = std::filesystem;

// A folder of this test's own: ctest runs this binary's tests side by side in one TempDir.
fs::path scratch() {
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = std::string("review_") + test->test_suite_name() + "_" + test->name();
  for (char& c : name) c = c == '/' ? '_' : c;
  const fs::path dir = fs::path(::testing::TempDir()) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Runs a compiler; the test fails (and says why) when it does not succeed.
bool compiles(const std::vector<std::string>& command) {
  ProcessSpec spec;
  spec.argv = command;
  spec.timeout_seconds = 600;
  spec.max_output_bytes = 1 << 20;
  const ProcessResult process = run_process(spec);
  EXPECT_TRUE(process.succeeded()) << shell_quote(command) << "\n" << process.output;
  return process.succeeded();
}

// `source` written as `name` and compiled for the host (c++, as position-independent as the
// student library); the object is `name`.o, as labgrade names it.
std::string compile_host(const std::string& name, const std::string& source) {
  const fs::path dir = scratch();
  std::ofstream(dir / name) << source;
  const fs::path object = dir / (name + ".o");
  if (!compiles({"c++", "-std=c++17", "-O2", "-fPIC", "-c", (dir / name).string(), "-o", object.string()})) return "";
  return object.string();
}

// `file` compiled exactly as labgrade compiles a student file of `lab`.
std::string compile_cuda(const BuildRecipe& recipe, const fs::path& file, const fs::path& dir) {
  const fs::path object = dir / (file.filename().string() + ".o");
  if (!compiles(student_compile_command(recipe, file, object))) return "";
  return object.string();
}

#define SKIP_WITHOUT_NVCC(recipe)                                                                         \
  do {                                                                                                     \
    if (!(recipe)) {                                                                                       \
      GTEST_SKIP() << "no nvcc or no build recipe (configure the project with CUDA): CUDA sources are not "  \
                      "compiled here";                                                                     \
    }                                                                                                      \
  } while (false)

std::string describe(const std::vector<ReviewNote>& notes) {
  std::string text;
  for (const auto& note : notes) text += note.where + ": " + note.construct + " - " + note.why + "\n";
  return text.empty() ? "(no notes)" : text;
}

// The note whose construct starts with `construct`; fails the test when there is none.
std::optional<ReviewNote> note_for(const std::vector<ReviewNote>& notes, const std::string& construct) {
  for (const auto& note : notes) {
    if (note.construct.rfind(construct, 0) == 0) return note;
  }
  ADD_FAILURE() << "no note \"" << construct << "...\" among:\n" << describe(notes);
  return std::nullopt;
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "\"" << (needle) << "\" not in: " << (haystack)

std::vector<ReviewNote> review(const std::string& object) { return review_objects({object}, "the compiled code", {}); }

// ---- the evasions of a source scan, host code --------------------------------------------------------

TEST(ReviewCompiledCode, ASyscallSpelledThroughAMacroIsNamedWithItsFunction) {
  const std::string object = compile_host("vector_add.cpp", R"(
#define PASTE(a, b) a##b
#define S PASTE(sys, call)
extern "C" long S(long, ...);
namespace student {
long thread_id() { return S(186); }
}
)");
  ASSERT_FALSE(object.empty());
  const auto notes = review(object);
  const auto note = note_for(notes, "raw system call (syscall)");
  ASSERT_TRUE(note);
  EXPECT_EQ(note->where, "vector_add.cpp, in student::thread_id()");
  EXPECT_CONTAINS(note->why, "system call");
}

TEST(ReviewCompiledCode, AnInlineAssemblySyscallThroughAMacroIsFoundInTheInstructions) {
  const std::string object = compile_host("vector_add.cpp", R"(
#define ASM __asm__ __volatile__
#define TRAP "sys" "call"
namespace student {
long raw(long n) { long r; ASM(TRAP : "=a"(r) : "a"(n) : "rcx", "r11", "memory"); return r; }
long old(long n) { long r; ASM("int $0x80" : "=a"(r) : "a"(n) : "memory"); return r; }
}
)");
  ASSERT_FALSE(object.empty());
  const auto notes = review(object);
  const auto instruction = note_for(notes, "raw system call instruction (syscall)");
  ASSERT_TRUE(instruction);
  EXPECT_EQ(instruction->where, "vector_add.cpp, in student::raw(long)");
  const auto int80 = note_for(notes, "raw system call instruction (int $0x80)");
  ASSERT_TRUE(int80);
  EXPECT_EQ(int80->where, "vector_add.cpp, in student::old(long)");
}

TEST(ReviewCompiledCode, AProcSelfMemPathPutTogetherFromPiecesBesidePwriteIsListed) {
  const std::string object = compile_host("vector_add.cpp", R"(
#include <fcntl.h>
#include <unistd.h>
#include <string>
namespace student {
long patch(void* where, const void* bytes, unsigned long n) {
  std::string path = std::string("/pr") + "oc/se" + "lf/m" + "em";
  const int fd = open(path.c_str(), O_RDWR);
  return pwrite(fd, bytes, n, reinterpret_cast<long>(where));
}
}
)");
  ASSERT_FALSE(object.empty());
  const auto notes = review(object);
  const auto path = note_for(notes, "/proc path");
  const auto opens = note_for(notes, "opening files (open)");
  const auto writes = note_for(notes, "reading or writing files (pwrite)");
  ASSERT_TRUE(path && opens && writes);
  EXPECT_CONTAINS(path->construct, "self/m");
  EXPECT_CONTAINS(path->construct, "put together from pieces");
  EXPECT_EQ(opens->where, "vector_add.cpp, in student::patch(void*, void const*, unsigned long)");
  EXPECT_EQ(writes->where, opens->where);
  EXPECT_CONTAINS(writes->why, "/proc/self/mem");
}

TEST(ReviewCompiledCode, AProcPathStoredOneConstantAtATimeIsListed) {
  // A char array: GCC stores this one with immediates (movabs), so the text is in no data
  // section; another compiler may copy it from .rodata instead. Either way it is listed.
  const std::string object = compile_host("vector_add.cpp", R"(
#include <fcntl.h>
namespace student {
int mem() {
  char path[] = {'/', 'p', 'r', 'o', 'c', '/', 's', 'e', 'l', 'f', '/', 'm', 'e', 'm', 0};
  return open(path, O_RDWR);
}
}
)");
  ASSERT_FALSE(object.empty());
  const auto notes = review(object);
  const auto path = note_for(notes, "/proc path");
  ASSERT_TRUE(path);
  EXPECT_CONTAINS(path->construct, "/proc");
  if (path->construct.rfind("/proc path built in code", 0) == 0) {
    EXPECT_EQ(path->where, "vector_add.cpp, in student::mem()");
  }
  const auto opens = note_for(notes, "opening files (open)");
  ASSERT_TRUE(opens);
  EXPECT_EQ(opens->where, "vector_add.cpp, in student::mem()");
}

TEST(ReviewCompiledCode, AConstructorThroughAMacroIsNamed) {
  const std::string object = compile_host("vector_add.cpp", R"(
#define EARLY __attribute__((constructor))
namespace {
int calls = 0;
EARLY void early() { ++calls; __asm__ volatile("" ::: "memory"); }
}
namespace student { int api() { return calls; } }
)");
  ASSERT_FALSE(object.empty());
  const auto notes = review(object);
  const auto constructor = note_for(notes, "static constructor (constructor attribute or section)");
  ASSERT_TRUE(constructor);
  EXPECT_EQ(constructor->where, "vector_add.cpp, in (anonymous namespace)::early()");
  EXPECT_CONTAINS(constructor->why, "before the test program's main");
}

TEST(ReviewCompiledCode, MemoryProtectionAndLibraryWalkingAreListed) {
  const std::string object = compile_host("vector_add.cpp", R"(
#include <link.h>
#include <sys/mman.h>
namespace student {
int unprotect(void* page) { return mprotect(page, 4096, PROT_READ | PROT_WRITE | PROT_EXEC); }
int walk() { return dl_iterate_phdr([](dl_phdr_info*, size_t, void*) { return 0; }, nullptr); }
}
)");
  ASSERT_FALSE(object.empty());
  const auto notes = review(object);
  const auto mprotect = note_for(notes, "changing memory protection (mprotect)");
  const auto walk = note_for(notes, "walking the loaded libraries (dl_iterate_phdr)");
  ASSERT_TRUE(mprotect && walk);
  EXPECT_EQ(mprotect->where, "vector_add.cpp, in student::unprotect(void*)");
  EXPECT_EQ(walk->where, "vector_add.cpp, in student::walk()");
}

TEST(ReviewCompiledCode, OrdinaryHostCodeGetsNoNote) {
  // Debugging output, a format string with a '/', a lookup table, std::vector: no note.
  const std::string object = compile_host("vector_add.cpp", R"(
#include <cstdio>
#include <vector>
namespace student {
namespace { constexpr float kTable[4] = {1.0f, 0.5f, 0.25f, 0.125f}; }
float sum(const std::vector<float>& values, int block) {
  float total = 0;
  for (float v : values) total += v * kTable[block & 3];
  std::printf("block %d/%d: %f (processed from memory)\n", block, 4, total);
  return total;
}
}
)");
  ASSERT_FALSE(object.empty());
  const auto notes = review(object);
  EXPECT_TRUE(notes.empty()) << describe(notes);
}

TEST(ReviewCompiledCode, WithoutObjdumpTheReportSaysTheCodeWasNotReviewed) {
  const std::string object = compile_host("vector_add.cpp", "namespace student { int api() { return 1; } }\n");
  ASSERT_FALSE(object.empty());
  const auto notes = review_objects({object}, "the compiled code of vector_add.cpp", {}, "/nonexistent/objdump");
  ASSERT_EQ(notes.size(), 1u) << describe(notes);
  EXPECT_EQ(notes[0].construct, "compiled code not reviewed");
  EXPECT_EQ(notes[0].where, "the compiled code of vector_add.cpp");
  EXPECT_CONTAINS(notes[0].why, "binutils");
}

// ---- the pieces --------------------------------------------------------------------------------------

TEST(ReviewCompiledCode, DumpedStringsAreTheRunsOfPrintableBytes) {
  const std::string dump = "\nx.o:     file format elf64-x86-64\n\n"
                           "Contents of section .rodata.str1.1:\n"
                           " 0000 6f632f73 65006261 7369635f 73747269  oc/se.basic_stri\n"
                           " 0010 6e673a3a 61707065 6e64006c 662f6d00  ng::append.lf/m.\n"
                           " 0020 656d00                               em.             \n"
                           "Contents of section .rodata:\n"
                           " 0000 00002f70 00000000                    ../p....        \n";
  EXPECT_EQ(dumped_strings(dump), (std::vector<std::string>{"oc/se", "basic_string::append", "lf/m", "em", "/p"}));
}

TEST(ReviewCompiledCode, ProcPathsAreFoundWholeOrPutTogether) {
  EXPECT_EQ(proc_paths({"cudaMemcpy failed", "/proc/self/maps", "%d/%d"}),
            (std::vector<std::string>{"/proc/self/maps"}));
  // Put together in the order stored, past strings that are no piece of a path.
  EXPECT_EQ(proc_paths({"oc/se", "basic_string::append", "lf/m", "em"}), (std::vector<std::string>{"oc/self/mem"}));
  // Kernel names and messages of honest code: nothing.
  EXPECT_TRUE(proc_paths({"_ZN7student14process_kernelEPKfPfi", "memory", "self", "processed 4/4"}).empty());
}

TEST(ReviewCompiledCode, TheDisassemblyGivesSystemCallsCallsAndStoredText) {
  const std::string listing =
      "Disassembly of section .text:\n\n"
      "0000000000000000 <_ZN7student5patchEPvPKvm>:\n"
      "   0:\tmovabs $0x65732f636f72702f,%rax\n"
      "  20:\tmov    %rax,0x1(%rsp)\n"
      "  2a:\tmovabs $0x6d656d2f666c65,%rax\n"
      "  3b:\tcall   40 <_ZN7student5patchEPvPKvm+0x40>\t3c: R_X86_64_PLT32\topen-0x4\n"
      "  40:\tlea    0x0(%rip),%rsi        # 47 <x+0x47>\t43: R_X86_64_PC32\t.LC0-0x4\n"
      "  47:\tsyscall \n"
      "\n"
      "Disassembly of section .text.startup:\n\n"
      "0000000000000010 <_ZL24__sti____cudaRegisterAllv>:\n"
      "  10:\tint    $0x80\n";
  const auto functions = parse_disassembly(listing);
  ASSERT_EQ(functions.size(), 2u);
  EXPECT_EQ(functions[0].section, ".text");
  EXPECT_EQ(functions[0].stored_text, "/proc/seelf/mem");
  EXPECT_EQ(functions[0].references, (std::vector<std::string>{"open"}));
  EXPECT_EQ(functions[0].calls, (std::vector<std::string>{"open"}));
  EXPECT_EQ(functions[0].system_calls, (std::vector<std::string>{"syscall"}));
  EXPECT_TRUE(functions[0].writes_memory);
  EXPECT_EQ(functions[1].section, ".text.startup");
  EXPECT_EQ(functions[1].address, 0x10u);
  EXPECT_EQ(functions[1].system_calls, (std::vector<std::string>{"int $0x80"}));
}

// ---- CUDA sources, compiled as labgrade compiles them ------------------------------------------------

TEST(ReviewCompiledCuda, EveryEvasionInACudaFileIsListed) {
  const auto recipe = recipe_for("01_vector_add");
  SKIP_WITHOUT_NVCC(recipe);
  const fs::path dir = scratch();
  std::ofstream(dir / "vector_add.cu") << R"(
#include <fcntl.h>
#include <unistd.h>
#include <string>
#include "vector_add.cuh"
#define S sys##call
#define ASM __asm__ __volatile__
#define TRAP "sys" "call"
#define EARLY __attribute__((constructor))
extern "C" long S(long, ...);
namespace {
long raw(long n) { long r; ASM(TRAP : "=a"(r) : "a"(n) : "rcx", "r11", "memory"); return r; }
EARLY void early() {
  std::string path = std::string("/pr") + "oc/se" + "lf/m" + "em";
  const int fd = static_cast<int>(S(2, path.c_str(), 2));
  static const float one = 1.0f;
  pwrite(fd, &one, sizeof one, raw(39));
}
__global__ void add_kernel(const float* a, const float* b, float* c, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
}  // namespace
namespace LAB_IMPL {
cudaError_t vector_add(const float* a, const float* b, float* c, std::size_t n, cudaStream_t stream) {
  if (n == 0) return cudaSuccess;
  add_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, stream>>>(a, b, c, n);
  return cudaGetLastError();
}
cudaError_t saxpy(float, const float*, float*, std::size_t, cudaStream_t) { return cudaErrorNotYetImplemented; }
}  // namespace LAB_IMPL
)";
  const std::string object = compile_cuda(*recipe, dir / "vector_add.cu", dir);
  ASSERT_FALSE(object.empty());
  const auto notes = review(object);
  for (const char* construct : {"raw system call (syscall)", "raw system call instruction (syscall)", "/proc path",
                                "reading or writing files (pwrite)",
                                "static constructor (constructor attribute or section)"}) {
    const auto note = note_for(notes, construct);
    if (note) {
      EXPECT_EQ(note->where.rfind("vector_add.cu", 0), 0u) << note->where;
    }
  }
  const auto constructor = note_for(notes, "static constructor (constructor attribute or section)");
  ASSERT_TRUE(constructor);
  EXPECT_CONTAINS(constructor->where, "early()");
  // nvcc's own constructor (registering the fat binary) is not one of them.
  EXPECT_EQ(describe(notes).find("cudaRegister"), std::string::npos) << describe(notes);
}

TEST(ReviewCompiledCuda, IostreamAndALookupTableAreToldApart) {
  const auto recipe = recipe_for("01_vector_add");
  SKIP_WITHOUT_NVCC(recipe);
  const fs::path dir = scratch();
  // std::cout alone: GCC < 13 initialises <iostream> in every file that includes it; not a note.
  std::ofstream(dir / "debug.cu") << R"(
#include <iostream>
namespace student {
__global__ void add(const float* a, float* b, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) b[i] += a[i]; }
cudaError_t run(const float* a, float* b, int n) {
  if (n < 0) std::cout << "negative n " << n << std::endl;
  add<<<(n + 255) / 256, 256>>>(a, b, n);
  return cudaGetLastError();
}
}
)";
  // A global std::vector is built by code at load: a note, naming what it calls.
  std::ofstream(dir / "table.cu") << R"(
#include <vector>
namespace student {
namespace { std::vector<float> table(256, 0.5f); }
float at(int i) { return table[i]; }
}
)";
  const std::string debug = compile_cuda(*recipe, dir / "debug.cu", dir);
  const std::string table = compile_cuda(*recipe, dir / "table.cu", dir);
  ASSERT_FALSE(debug.empty() || table.empty());
  const auto debug_notes = review(debug);
  EXPECT_TRUE(debug_notes.empty()) << describe(debug_notes);
  const auto table_notes = review(table);
  const auto constructor = note_for(table_notes, "static constructor (global objects initialised with code)");
  ASSERT_TRUE(constructor);
  EXPECT_EQ(constructor->where.rfind("table.cu, in the initialisation of its global objects", 0), 0u)
      << constructor->where;
}

// Honest code: each lab's reference solution and untouched skeleton, compiled as labgrade does, has
// nothing to review.
struct LabFile {
  std::string lab;
  std::string folder;  // "solutions" or "labs"
};

// How GoogleTest names a parameter in its output (instead of its bytes).
void PrintTo(const LabFile& file, std::ostream* out) { *out << file.folder << "/" << file.lab; }

std::vector<LabFile> lab_files() {
  std::vector<LabFile> files;
  for (const auto& entry : fs::directory_iterator(fs::path(CUDALABS_SOURCE_DIR) / "config" / "labs")) {
    if (entry.path().extension() != ".yaml") continue;
    for (const char* folder : {"solutions", "labs"}) files.push_back({entry.path().stem().string(), folder});
  }
  std::sort(files.begin(), files.end(),
            [](const LabFile& a, const LabFile& b) { return a.lab + a.folder < b.lab + b.folder; });
  return files;
}

class HonestLabCode : public ::testing::TestWithParam<LabFile> {};

TEST_P(HonestLabCode, HasNothingToReview) {
  const auto recipe = recipe_for(GetParam().lab);
  SKIP_WITHOUT_NVCC(recipe);
  const fs::path folder = fs::path(CUDALABS_SOURCE_DIR) / GetParam().folder / GetParam().lab;
  const fs::path dir = scratch();
  std::vector<std::string> objects;
  // The student files are the lab's .cu files other than the self-check test.
  for (const auto& entry : fs::directory_iterator(folder)) {
    const fs::path file = entry.path();
    if (file.extension() != ".cu" || file.filename() == "selfcheck_test.cu") continue;
    objects.push_back(compile_cuda(*recipe, file, dir));
    ASSERT_FALSE(objects.back().empty());
  }
  ASSERT_FALSE(objects.empty()) << "no student file in " << folder;
  const auto notes = review_objects(objects, "the compiled code", {});
  EXPECT_TRUE(notes.empty()) << describe(notes);
}

INSTANTIATE_TEST_SUITE_P(Labs, HonestLabCode, ::testing::ValuesIn(lab_files()),
                         [](const auto& info) { return info.param.folder + "_" + info.param.lab; });

}  // namespace
}  // namespace labgrade
