// `forbid:` rules and process limits in course.yaml and lab YAML: loaded with where each rule is
// written, validated with file/line/field, and the glob matching the grader uses.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cudalabs/course/course_config.hpp"
#include "cudalabs/course/diagnostics.hpp"
#include "cudalabs/course/forbid_rules.hpp"
#include "cudalabs/course/lab_config.hpp"

namespace {

namespace fs = std::filesystem;
using namespace cudalabs::config;

const fs::path kFixtures = fs::path(CUDALABS_CONFIG_FIXTURES_DIR) / "safety";
const fs::path kRepoRoot = CUDALABS_REPO_ROOT;

TEST(GlobMatch, StarsAndQuestionMarks) {
  EXPECT_TRUE(glob_match("exec*", "execvp"));
  EXPECT_TRUE(glob_match("exec*", "exec"));
  EXPECT_FALSE(glob_match("exec*", "fexecve"));
  EXPECT_TRUE(glob_match("cudaMemcpy*", "cudaMemcpyAsync"));
  EXPECT_FALSE(glob_match("cudaMemcpy*", "cudaMemset"));
  EXPECT_TRUE(glob_match("std::basic_*fstream*", "std::basic_ifstream<char, std::char_traits<char> >::close()"));
  EXPECT_TRUE(glob_match("sys/*", "sys/socket.h"));
  EXPECT_TRUE(glob_match("open??", "open64"));
  EXPECT_FALSE(glob_match("open", "open64"));
  EXPECT_TRUE(glob_match("*a*b*", "xxaxxbxx"));
  EXPECT_FALSE(glob_match("*a*b", "xxaxxbxx"));
  EXPECT_TRUE(glob_match("", ""));
  EXPECT_FALSE(glob_match("", "x"));
}

TEST(ForbidRules, CourseLoadsRulesAndLimits) {
  const CourseConfig course = load_course_config(kFixtures / "course.yaml");
  EXPECT_EQ(course.limits.cpu_seconds, 90u);
  EXPECT_EQ(course.limits.max_open_files, 256u);
  EXPECT_EQ(course.limits.max_file_bytes, 1000000u);
  EXPECT_EQ(course.limits.max_compiler_memory_bytes, 2000000000u);
  ASSERT_EQ(course.forbid.includes.size(), 2u);
  EXPECT_EQ(course.forbid.includes[1].pattern, "sys/*");
  ASSERT_EQ(course.forbid.symbols.size(), 2u);
  EXPECT_EQ(course.forbid.symbols[0].pattern, "system");
  EXPECT_EQ(course.forbid.symbols[0].why, "");
  EXPECT_EQ(course.forbid.symbols[1].pattern, "exec*");
  EXPECT_EQ(course.forbid.symbols[1].why, "no programs");
  EXPECT_EQ(course.forbid.symbols[1].line, 16);
  EXPECT_EQ(course.forbid.symbols[1].field, "forbid.symbols[1]");
  EXPECT_EQ(course.forbid.symbols[1].where(), (kFixtures / "course.yaml").string() + ":16 (forbid.symbols[1])");
}

TEST(ForbidRules, LimitsAreOptional) {
  const CourseConfig course = load_course_config(kFixtures / "course_no_limits.yaml");
  EXPECT_EQ(course.limits.cpu_seconds, ProcessLimits{}.cpu_seconds);
  EXPECT_EQ(course.limits.max_file_bytes, ProcessLimits{}.max_file_bytes);
  EXPECT_TRUE(course.forbid.symbols.empty());
}

TEST(ForbidRules, ReportsEveryMistakeWithItsPlace) {
  std::vector<Diagnostic> diagnostics;
  try {
    load_course_config(kFixtures / "course_bad_forbid.yaml");
  } catch (const ConfigError& error) {
    diagnostics = error.diagnostics();
  }
  std::string text;
  for (const auto& diagnostic : diagnostics) text += diagnostic.to_string() + "\n";
  const auto expect_line = [&](const std::string& needle) {
    EXPECT_NE(text.find(needle), std::string::npos) << "'" << needle << "' not in:\n" << text;
  };
  expect_line(":8:16: defaults.cpu_seconds: expected a positive integer, got '0'");
  expect_line(":9:19: defaults.max_open_files: expected a positive integer, got 'many'");
  expect_line(":11:14: forbid.includes[0]: '<fstream>' write the header as it appears between the brackets");
  expect_line(":11:27: forbid.includes[1]: '/usr/include/fstream' must be the name used in #include");
  expect_line(":13:7: forbid.symbols[0]: '*' would match everything");
  expect_line(":15:7: forbid.symbols[2]: 'system' is listed twice (first on line 14)");
  expect_line("forbid.symbols[3].because: unknown key 'because'");
  expect_line("forbid.symbols[4].pattern: missing required key 'pattern'");
  expect_line(":18:3: forbid.sybmols: unknown key 'sybmols' (did you mean 'symbols'?)");
  EXPECT_EQ(diagnostics.size(), 9u) << text;
}

TEST(ForbidRules, ALabsAllowLiftsCourseRulesNamedExactly) {
  const CourseConfig course = load_course_config(kFixtures / "course.yaml");
  const LabConfig lab = load_lab_config(kFixtures / "lab_allows.yaml");
  ASSERT_EQ(lab.allow.includes.size(), 2u);
  EXPECT_EQ(lab.allow.includes[0].why, "this lab writes its result to a file");
  const ForbidRules rules = combine(course.forbid, lab.forbid, lab.allow);
  ASSERT_EQ(rules.includes.size(), 1u);
  EXPECT_EQ(rules.includes[0].pattern, "sys/*");  // fstream lifted
  EXPECT_EQ(rules.symbols.size(), 2u);            // "exec" is not "exec*": nothing lifted
  const std::vector<Diagnostic> problems = unmatched_allowances(course.forbid, lab.allow);
  ASSERT_EQ(problems.size(), 2u);
  EXPECT_EQ(problems[0].to_string(),
            (kFixtures / "lab_allows.yaml").string() +
                ":12: allow.includes[1]: 'fstreem' is not among the course's forbidden includes (allow: can only lift "
                "a course-wide rule, named by its exact pattern; they are: fstream, sys/*)");
  EXPECT_NE(problems[1].to_string().find(":13: allow.symbols[0]: 'exec' is not among the course's forbidden symbols"),
            std::string::npos)
      << problems[1].to_string();
}

TEST(ForbidRules, RepositoryRulesLoadAndAllowTheReferenceSolution) {
  const CourseConfig course = load_course_config(kRepoRoot / "config" / "course.yaml");
  const LabConfig lab = load_lab_config(kRepoRoot / "config" / "labs" / "01_vector_add.yaml");
  const ForbidRules rules = combine(course.forbid, lab.forbid);
  EXPECT_GT(course.forbid.symbols.size(), lab.forbid.symbols.size());
  EXPECT_EQ(rules.symbols.size(), course.forbid.symbols.size() + lab.forbid.symbols.size());
  // What `nm -D --undefined-only` lists for the reference solution's library (CUDA 13, g++ 12):
  // none of it may be forbidden, or the reference itself would score 0.
  for (const std::string symbol :
       {"_Unwind_Resume", "__cudaGetKernel", "__cudaLaunchKernel", "__cudaPopCallConfiguration",
        "__cudaPushCallConfiguration", "__cudaRegisterFatBinary", "__cudaRegisterFatBinaryEnd",
        "__cudaRegisterFunction", "__cudaUnregisterFatBinary", "__cxa_atexit", "__cxa_finalize",
        "__cxa_guard_abort", "__cxa_guard_acquire", "__cxa_guard_release", "__gmon_start__",
        "__gxx_personality_v0", "cudaDeviceGetAttribute", "cudaGetDevice", "cudaGetLastError",
        "_ITM_deregisterTMCloneTable", "_ITM_registerTMCloneTable", "printf", "puts", "malloc", "free",
        "_Znwm", "_ZdlPvm", "exit" /* nvcc's __device__ stubs */, "cudaMalloc", "cudaFree", "cudaStreamSynchronize", "cudaDeviceSynchronize"}) {
    for (const ForbidRule& rule : rules.symbols) {
      EXPECT_FALSE(glob_match(rule.pattern, symbol)) << symbol << " matched " << rule.pattern;
    }
  }
  for (const std::string symbol : {"cudaMemcpy", "cudaMemcpyAsync", "fork", "system", "execve", "fopen", "_exit",
                                   "cudaDeviceReset", "dlopen", "cudaMallocManaged"}) {
    bool forbidden = false;
    for (const ForbidRule& rule : rules.symbols) forbidden = forbidden || glob_match(rule.pattern, symbol);
    EXPECT_TRUE(forbidden) << symbol;
  }
}

}  // namespace
