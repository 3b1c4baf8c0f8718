# Every third-party dependency, found with find_package. A missing one stops configuration
# with the Debian/Ubuntu package that provides it, instead of a wall of CMake errors.
include_guard(GLOBAL)

# A macro, so the variables find_package sets (CUDAToolkit_LIBRARY_DIR, ...) stay visible.
macro(cudalabs_require package debian_package)
  find_package(${package} ${ARGN} QUIET)
  if(NOT ${package}_FOUND)
    message(FATAL_ERROR
      "cudalabs needs ${package}, which was not found.\n"
      "Install it with:  sudo apt-get install -y ${debian_package}\n"
      "(or point CMAKE_PREFIX_PATH at an installation of ${package}).")
  endif()
endmacro()

cudalabs_require(CUDAToolkit nvidia-cuda-toolkit)
cudalabs_require(Threads libc6-dev)
cudalabs_require(GTest libgtest-dev)
cudalabs_require(yaml-cpp libyaml-cpp-dev)
cudalabs_require(CLI11 libcli11-dev)
cudalabs_require(fmt libfmt-dev)
cudalabs_require(nlohmann_json nlohmann-json3-dev)
# SQLite is batch's results store and nothing else needs it: without it labgrade is built
# without `batch` (which then says how to get it) rather than not at all. A student release has
# no batch.
set(CUDALABS_BATCH OFF)
if(NOT CUDALABS_STUDENT_COMMANDS_ONLY)
  include(CudalabsFindSQLite3)  # with fallbacks for a machine without libsqlite3-dev
  if(SQLite3_FOUND)
    set(CUDALABS_BATCH ON)
  else()
    message(STATUS "cudalabs: SQLite3 not found (Debian/Ubuntu: libsqlite3-dev): labgrade is built without "
                   "`batch`; install it and reconfigure to grade whole classes")
  endif()
endif()

# cpp-httplib is the HTTP of `labgrade serve` (with SQLite) and `labgrade submit --server`: without
# it labgrade is built without them (they then say how to get it).
include(CudalabsFindHttplib)
set(CUDALABS_HTTP ${CUDALABS_HTTPLIB_FOUND})
# The service stores its tokens as SHA-256 hashes, from OpenSSL's libcrypto.
find_package(OpenSSL QUIET COMPONENTS Crypto)
set(CUDALABS_SERVE OFF)
if(CUDALABS_HTTP AND CUDALABS_BATCH AND OpenSSL_FOUND)
  set(CUDALABS_SERVE ON)
elseif(CUDALABS_HTTP AND CUDALABS_BATCH)
  message(STATUS "cudalabs: OpenSSL's libcrypto not found (Debian/Ubuntu: libssl-dev): labgrade is built without "
                 "`serve` and `tokens`")
endif()
if(NOT CUDALABS_HTTP)
  message(STATUS "cudalabs: cpp-httplib not found (Debian/Ubuntu: libcpp-httplib-dev; or upstream's single "
                 "httplib.h, MIT, copied into .deps/cpp-httplib/include/): labgrade is built without `serve` and "
                 "`submit --server`")
endif()

# yaml-cpp 0.7 (Debian 12) exports `yaml-cpp`; 0.8 (Ubuntu 24.04) exports `yaml-cpp::yaml-cpp`.
add_library(cudalabs_yaml INTERFACE)
if(TARGET yaml-cpp::yaml-cpp)
  target_link_libraries(cudalabs_yaml INTERFACE yaml-cpp::yaml-cpp)
else()
  target_link_libraries(cudalabs_yaml INTERFACE yaml-cpp)
endif()
add_library(cudalabs::yaml ALIAS cudalabs_yaml)
