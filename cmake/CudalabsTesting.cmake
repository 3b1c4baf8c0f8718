# cudalabs_discover_tests(<target> [gtest_discover_tests options...]): GoogleTest discovery with a
# scratch folder of this build tree for ::testing::TempDir() (TEST_TMPDIR), so tests that write
# files under fixed names never meet another checkout's run of the same tests in /tmp.
include_guard(GLOBAL)
include(GoogleTest)

function(cudalabs_discover_tests target)
  set(scratch "${PROJECT_BINARY_DIR}/test-scratch/${target}/")
  file(MAKE_DIRECTORY "${scratch}")
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "PROPERTIES")
  gtest_discover_tests(${target} ${arg_UNPARSED_ARGUMENTS}
    PROPERTIES ENVIRONMENT "TEST_TMPDIR=${scratch}" ${arg_PROPERTIES})
endfunction()
