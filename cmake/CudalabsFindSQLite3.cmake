# SQLite (the batch results store), found as CMake's FindSQLite3 finds it, with two fallbacks for
# a machine that has the runtime library but not the -dev package (no network to install it):
# the header in .deps/sqlite3/include/ of the source tree (a copy of sqlite3.h, git-ignored) and
# the library under its runtime name libsqlite3.so.0. Included by CudalabsDependencies.cmake and
# by the ./cudalabs script's package probe, so both find the same thing.
# Input: CUDALABS_DEPS_DIR (default: the .deps folder beside this cmake/ folder).
if(NOT CUDALABS_DEPS_DIR)
  get_filename_component(CUDALABS_DEPS_DIR "${CMAKE_CURRENT_LIST_DIR}/../.deps" ABSOLUTE)
endif()
# System locations are searched first; PATHS are the last resort.
find_path(SQLite3_INCLUDE_DIR NAMES sqlite3.h PATHS "${CUDALABS_DEPS_DIR}/sqlite3/include")
find_library(SQLite3_LIBRARY NAMES sqlite3 sqlite libsqlite3.so.0)
find_package(SQLite3 QUIET)
