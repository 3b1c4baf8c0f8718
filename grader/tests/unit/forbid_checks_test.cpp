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
  const fs::path file = fs::path(::testing::TempDir()) / "include_scan_test.cu";
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

}  // namespace
}  // namespace labgrade
