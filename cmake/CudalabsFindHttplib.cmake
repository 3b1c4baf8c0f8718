# cpp-httplib (MIT; https://github.com/yhirose/cpp-httplib), the HTTP of `labgrade serve` and of
# `labgrade submit --server`. Found in this order, the first that is complete wins:
#   1. a header-only httplib.h (upstream's single file) in ${CUDALABS_DEPS_DIR}/cpp-httplib/include,
#      the way a machine without a package manager gets it (copied there, git-ignored like .deps/sqlite3);
#   2. the system's httplib.h when it is upstream's header-only file;
#   3. Debian/Ubuntu's libcpp-httplib-dev, which splits it into a declarations-only header and
#      libcpp-httplib.so, built with OpenSSL, zlib and Brotli: the same definitions are needed here.
# Defines the target cudalabs::httplib and CUDALABS_HTTPLIB_FOUND; says how to get it otherwise.
include_guard(GLOBAL)
if(NOT CUDALABS_DEPS_DIR)
  get_filename_component(CUDALABS_DEPS_DIR "${CMAKE_CURRENT_LIST_DIR}/../.deps" ABSOLUTE)
endif()
set(CUDALABS_HTTPLIB_FOUND OFF)

# Upstream's single header carries the implementation; Debian's split header only declares it.
function(_cudalabs_httplib_is_header_only header result)
  file(STRINGS "${header}" implementation LIMIT_COUNT 1 REGEX "Implementation that will be part of the \\.cc file")
  set(${result} "${implementation}" PARENT_SCOPE)
endfunction()

find_path(CUDALABS_HTTPLIB_DEPS_INCLUDE_DIR httplib.h PATHS "${CUDALABS_DEPS_DIR}/cpp-httplib/include" NO_DEFAULT_PATH)
find_path(CUDALABS_HTTPLIB_SYSTEM_INCLUDE_DIR httplib.h)
find_library(CUDALABS_HTTPLIB_LIBRARY NAMES cpp-httplib)

add_library(cudalabs_httplib INTERFACE)
find_package(Threads REQUIRED)
foreach(dir IN ITEMS "${CUDALABS_HTTPLIB_DEPS_INCLUDE_DIR}" "${CUDALABS_HTTPLIB_SYSTEM_INCLUDE_DIR}")
  if(dir AND NOT CUDALABS_HTTPLIB_FOUND)
    _cudalabs_httplib_is_header_only("${dir}/httplib.h" header_only)
    if(header_only)
      target_include_directories(cudalabs_httplib SYSTEM INTERFACE "${dir}")
      target_link_libraries(cudalabs_httplib INTERFACE Threads::Threads)
      set(CUDALABS_HTTPLIB_FOUND ON)
      message(STATUS "cudalabs: cpp-httplib: header-only ${dir}/httplib.h")
    endif()
  endif()
endforeach()
if(NOT CUDALABS_HTTPLIB_FOUND AND CUDALABS_HTTPLIB_SYSTEM_INCLUDE_DIR AND CUDALABS_HTTPLIB_LIBRARY)
  find_package(PkgConfig QUIET)
  if(PkgConfig_FOUND)
    pkg_check_modules(CUDALABS_HTTPLIB_PC QUIET cpp-httplib)
  endif()
  # The library's own build definitions (its classes differ with and without OpenSSL).
  set(definitions "${CUDALABS_HTTPLIB_PC_CFLAGS_OTHER}")
  list(FILTER definitions INCLUDE REGEX "^-D")
  list(TRANSFORM definitions REPLACE "^-D" "")
  target_include_directories(cudalabs_httplib SYSTEM INTERFACE "${CUDALABS_HTTPLIB_SYSTEM_INCLUDE_DIR}")
  target_compile_definitions(cudalabs_httplib INTERFACE ${definitions})
  target_link_libraries(cudalabs_httplib INTERFACE "${CUDALABS_HTTPLIB_LIBRARY}" Threads::Threads)
  set(CUDALABS_HTTPLIB_FOUND ON)
  message(STATUS "cudalabs: cpp-httplib: ${CUDALABS_HTTPLIB_LIBRARY} (${definitions})")
endif()
add_library(cudalabs::httplib ALIAS cudalabs_httplib)
