// forbid: checks without running anything: #include scanning, nm output parsing, symbol rules.
#include "checks/include_scan.hpp"
#include "checks/symbol_scan.hpp"

#include <algorithm>
#include <fstream>

#include <gtest/gtest.h>

namespace labgrade {
namespace {
namespace fs = std::filesystem;
using cudalabs::config::ForbidRule;

ForbidRule rule(const std::string& pattern, const std::string& why = "") {
  return ForbidRule{pattern, why, "config/course.yaml", 7, "forbid.x[0]"};
}

std::vector<RuleViolation> scan(const std::string& source, const std::vector<ForbidRule>& rules) {
  // One file per test: ctest runs the tests of this binary side by side in one scratch folder.
  const std::string test = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const fs::path file = fs::path(::testing::TempDir()) / ("include_scan_" + test + ".cu");
  std::ofstream(file) << source;
  return scan_includes({file}, {"sub/vector_add.cu"}, rules);
}

TEST(IncludeScan, FindsAForbiddenIncludeWithItsLine) {
  const auto found = scan("#include \"vector_add.cuh\"\n\n  #  include <fstream>\n", {rule("fstream", "no files")});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].location, "sub/vector_add.cu:3");
  EXPECT_EQ(found[0].found, "#include <fstream>");
  EXPECT_EQ(found[0].describe(),
            "sub/vector_add.cu:3: #include <fstream> is not allowed (rule 'fstream', config/course.yaml:7 "
            "(forbid.x[0])): no files");
}

TEST(IncludeScan, IgnoresCommentsButNotStringsThatLookLikeThem) {
  const auto found = scan("// #include <fstream>\n/* #include <fstream>\n*/ const char* s = \"/*\";\n"
                          "#include <fstream> // real\n",
                          {rule("fstream")});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].location, "sub/vector_add.cu:4");
}

TEST(IncludeScan, MatchesGlobsPathsAndIncludeNext) {
  const auto found = scan("#include <sys/socket.h>\n#include_next \"/usr/include/c++/12/fstream\"\n"
                          "#include <cstdio>\n#include <thrust/sort.h>\n",
                          {rule("sys/*"), rule("fstream"), rule("thrust/*")});
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].rule.pattern, "sys/*");
  EXPECT_EQ(found[1].rule.pattern, "fstream");
  EXPECT_EQ(found[1].location, "sub/vector_add.cu:2");
  EXPECT_EQ(found[2].rule.pattern, "thrust/*");
}

TEST(IncludeScan, JoinsContinuationLines) {
  const auto found = scan("#include \\\n  <fstream>\nint x;\n", {rule("fstream")});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].location, "sub/vector_add.cu:1");
}

TEST(IncludeScan, AHeaderNamedByAMacroIsAViolation) {
  const auto found = scan("#define HEADER <fstream>\n#include HEADER\n", {rule("thrust/*")});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].location, "sub/vector_add.cu:2");
  EXPECT_NE(found[0].describe().find("write the header's name"), std::string::npos) << found[0].describe();
}

TEST(IncludeScan, NoRulesNoViolations) {
  EXPECT_TRUE(scan("#include <fstream>\n#include MACRO\n", {}).empty());
}

TEST(NmOutput, ReadsUndefinedNamesWithoutVersions) {
  const std::string output =
      "                 w _ITM_deregisterTMCloneTable\n"
      "                 U cudaGetLastError@libcudart.so.13\n"
      "                 U _ZNSt14basic_ifstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode@GLIBCXX_3.4\n"
      "0000000000001139 T defined_here\n"
      "nm: warning: something odd\n";
  EXPECT_EQ(parse_nm_undefined(output),
            (std::vector<std::string>{"_ITM_deregisterTMCloneTable", "cudaGetLastError",
                                      "_ZNSt14basic_ifstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode"}));
}

TEST(SymbolCheck, MatchesRawAndDemangledNames) {
  const std::vector<std::string> symbols{"cudaGetLastError", "cudaMemcpyAsync",
                                         "_ZNSt14basic_ifstreamIcSt11char_traitsIcEEC1EPKcSt13_Ios_Openmode",
                                         "system"};
  const auto found = check_symbols(symbols, {rule("cudaMemcpy*", "compute on the GPU"), rule("std::basic_*fstream*"),
                                             rule("system"), rule("sys*")},
                                   "the compiled code of vector_add.cu");
  ASSERT_EQ(found.size(), 3u);
  EXPECT_EQ(found[0].found, "calling cudaMemcpyAsync");
  EXPECT_EQ(found[0].describe(),
            "the compiled code of vector_add.cu: calling cudaMemcpyAsync is not allowed (rule 'cudaMemcpy*', "
            "config/course.yaml:7 (forbid.x[0])): compute on the GPU");
  EXPECT_NE(found[1].found.find("std::basic_ifstream<char, std::char_traits<char> >::basic_ifstream(char const*"),
            std::string::npos) << found[1].found;
  EXPECT_EQ(found[2].rule.pattern, "system");  // the first rule that matches, once
}

TEST(SymbolCheck, DemangleLeavesCNamesAlone) {
  EXPECT_EQ(demangle("fopen"), "fopen");
  EXPECT_EQ(demangle("_Z3addii"), "add(int, int)");
  EXPECT_EQ(demangle("_Znotmangled!"), "_Znotmangled!");
}

TEST(SymbolCheck, ReadsALibraryWithNm) {
  // Any shared library will do: the C library is always there and calls nothing forbidden here.
  const fs::path test_child = LABGRADE_TEST_CHILD;
  const auto symbols = undefined_symbols(test_child, ResourceLimits{});  // an executable: nm -D works too
  EXPECT_NE(std::find(symbols.begin(), symbols.end(), "fork"), symbols.end());  // test_child forks
  EXPECT_THROW(undefined_symbols("/nonexistent/lib.so", ResourceLimits{}), std::runtime_error);
}

// ---- what student code defines ---------------------------------------------------------------

// `nm --defined-only -p` of a student object (nvcc output), trimmed: the API, nvcc's stubs and
// renamed anonymous namespaces, a weak template instantiation, locals, and what must be refused.
constexpr const char* kDefinedListing = R"(0000000000000000 t _ZL24__sti____cudaRegisterAllv
0000000000000010 T _ZN7student46_GLOBAL__N__d72b6540_13_vector_add_cu_9840c2d510saxpy_vec4EfPKfPfmj
0000000000000000 V DW.ref.__gxx_personality_v0
0000000000000680 T _Z101__device_stub__ZN7student46_GLOBAL__N__d72b6540_13_vector_add_cu_9840c2d515vector_add_vec4EPKfS2_PfmjPKfS0_Pfmj
00000000000008f0 T _ZN7student10vector_addEPKfS1_PfmP11CUstream_st
0000000000000000 W _ZNSt6vectorIfSaIfEE17_M_realloc_insertIJRKfEEEvN9__gnu_cxx17__normal_iteratorIPfS1_EEDpOT_
0000000000000000 b _ZL20__cudaFatCubinHandle
0000000000000020 T _GLOBAL__N__d72b6540_13_vector_add_cu_9840c2d5_helper
0000000000000100 T write
0000000000000200 T _Znwm
0000000000000300 T _Z10blocks_form
0000000000000400 B g_counter
0000000000000500 u _ZZN7student4implEvE5cache
)";

TEST(DefinitionCheck, ListsOnlyStrongGlobalDefinitions) {
  const auto symbols = parse_nm_strong_definitions(kDefinedListing);
  EXPECT_EQ(std::count(symbols.begin(), symbols.end(), "write"), 1);
  EXPECT_EQ(std::count(symbols.begin(), symbols.end(), "g_counter"), 1);
  for (const char* absent : {"_ZL24__sti____cudaRegisterAllv", "DW.ref.__gxx_personality_v0", "_ZL20__cudaFatCubinHandle",
                             "_ZZN7student4implEvE5cache"}) {
    EXPECT_EQ(std::count(symbols.begin(), symbols.end(), absent), 0) << absent;
  }
  EXPECT_EQ(std::count_if(symbols.begin(), symbols.end(), [](const std::string& s) { return s.find("vector") == 10; }),
            0);  // the weak std::vector<float> instantiation
}

TEST(DefinitionCheck, NamesWhatIsOutsideTheApiWithTheFix) {
  const auto violations = check_definitions(parse_nm_strong_definitions(kDefinedListing), "the compiled code of a.cu");
  std::vector<std::string> found;
  for (const auto& violation : violations) found.push_back(violation.found);
  EXPECT_EQ(found, (std::vector<std::string>{"defining write", "defining operator new(unsigned long) (_Znwm)",
                                             "defining blocks_for(unsigned long) (_Z10blocks_form)",
                                             "defining g_counter"}));
  ASSERT_FALSE(violations.empty());
  const std::string line = violations[0].describe();
  EXPECT_NE(line.find("the compiled code of a.cu: defining write is not allowed"), std::string::npos) << line;
  EXPECT_NE(line.find("anonymous namespace"), std::string::npos) << line;
  EXPECT_NE(line.find("static"), std::string::npos) << line;
}

TEST(DefinitionCheck, CompilerGeneratedAndApiClassDataAreAllowed) {
  for (const char* allowed : {"__cudaRegisterLinkedBinary_abc", "__fatbinwrap_xyz", "__nv_module_id",
                              "_ZTIN7student6KernelE",  // typeinfo for student::Kernel
                              "_ZTVN7student6KernelE",  // vtable for student::Kernel
                              "_ZN46_GLOBAL__N__7c89ea7e_13_vector_add_cu_523bf4616escapeE",  // nvcc, a variable
                              "_init", "_fini"}) {
    EXPECT_TRUE(allowed_student_definition(allowed)) << allowed;
  }
  EXPECT_FALSE(allowed_student_definition("_ZN8solution10vector_addEv"));  // another namespace
  EXPECT_FALSE(allowed_student_definition("main"));
}

TEST(DefinitionCheck, ReadsAnObjectWithNm) {
  const fs::path source = fs::path(::testing::TempDir()) / "definitions_test.cpp";
  const fs::path object = fs::path(::testing::TempDir()) / "definitions_test.o";
  std::ofstream(source) << "namespace student { int api() { return 1; } }\n"
                           "namespace { int helper() { return 2; } }\n"
                           "static int other() { return helper(); }\n"
                           "extern \"C\" int memcmp(const void*, const void*, unsigned long) { return other(); }\n";
  ASSERT_EQ(std::system(("c++ -c -o " + object.string() + " " + source.string()).c_str()), 0);
  const auto violations = check_definitions(defined_symbols(object, {}), "x");
  ASSERT_EQ(violations.size(), 1u);
  EXPECT_EQ(violations[0].found, "defining memcmp");
}

}  // namespace
}  // namespace labgrade
