# cudalabs_add_lab(<lab_id>): everything one lab needs, from its four folders.
#
#   labs/<id>/*.cu (not *_test.cu)  student files -> lib<..>_student.so (the skeleton here;
#                                   labgrade rebuilds it from a submission at grade time)
#   labs/<id>/*_test.cu             public self-check suite -> lab_<id>_selfcheck
#   grader/suites/<id>/*.cu         hidden suite -> lab_<id>_grade, the judge (instructor tree only),
#                                   which maps no student code: its API calls go to runners
#                                   (the solution also linked in, as judge_reference, for runs
#                                   that time nothing)
#   grader/suites/<id>/lab_calls.def  the API, listed for the judge and the runners
#   solutions/<id>/*.cu             reference, namespace `solution` -> lab_<id>_reference_runner
#                                   the student library            -> lab_<id>_student_runner
#
# Student code is a shared library next to each executable that loads it (the self-check
# harness, the student runner), found through an RPATH of $ORIGIN: labgrade copies those
# beside a freshly built submission library, so the trusted code (suites, solution, GoogleTest)
# is never rebuilt and a submission can neither see nor interpose on it.
include_guard(GLOBAL)

set(CUDALABS_STUDENT_VERSION_SCRIPT "${CMAKE_CURRENT_LIST_DIR}/student_library.map")
# nvcc flags of both sides of a ratio: the reference here, a submission through the build recipe
# (labgrade). The device-side optimiser and ptxas on several threads: lab 08's reference, 40
# kernels, compiles in 3.4 s instead of 5.7 s on the H100 machine. A fixed count, not one per core:
# how a file is split may change its machine code, which must not differ between the two sides.
set(CUDALABS_DEVICE_COMPILE_FLAGS "--split-compile=8")

# An executable that loads a lab's code: a harness (GoogleTest) or a runner.
function(_cudalabs_lab_executable target lab_id output_dir)
  add_executable(${target} ${ARGN})
  target_include_directories(${target} PRIVATE "${PROJECT_SOURCE_DIR}/labs/${lab_id}")
  # The run path is exactly $ORIGIN and the CUDA libraries, in the build tree too: the student
  # library is whichever one sits beside the executable, never the skeleton's in the build tree.
  # DT_RPATH rather than DT_RUNPATH, so LD_LIBRARY_PATH cannot substitute another library.
  set_target_properties(${target} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY "${output_dir}"
    BUILD_WITH_INSTALL_RPATH TRUE
    INSTALL_RPATH "$ORIGIN;${CUDAToolkit_LIBRARY_DIR}")
  target_link_options(${target} PRIVATE "LINKER:--disable-new-dtags")
  # Full RELRO and bind-now: every symbol of the harness is resolved at load time and its GOT is
  # made read-only before any constructor runs, so student code cannot redirect the harness's
  # calls by writing its GOT or by being the first to resolve a lazily bound function.
  target_link_options(${target} PRIVATE "LINKER:-z,relro" "LINKER:-z,now")
endfunction()

function(_cudalabs_harness_executable target lab_id output_dir)
  _cudalabs_lab_executable(${target} ${lab_id} "${output_dir}" ${ARGN})
  target_link_libraries(${target} PRIVATE cudalabs::harness)
  target_compile_definitions(${target} PRIVATE
    CUDALABS_LAB_CONFIG_DEFAULT="${PROJECT_SOURCE_DIR}/config/labs/${lab_id}.yaml"
    CUDALABS_COURSE_CONFIG_DEFAULT="${PROJECT_SOURCE_DIR}/config/course.yaml")
endfunction()

# A lab's solution compiled into namespace `namespace` (its sources say LAB_IMPL), as objects.
function(_cudalabs_solution_objects target namespace lab_dir)
  add_library(${target} OBJECT ${ARGN})
  target_compile_definitions(${target} PRIVATE LAB_IMPL=${namespace})
  target_include_directories(${target} PRIVATE "${lab_dir}")
  target_link_libraries(${target} PRIVATE cudalabs::common)
  target_compile_options(${target} PRIVATE "$<$<COMPILE_LANGUAGE:CUDA>:${CUDALABS_DEVICE_COMPILE_FLAGS}>")
endfunction()

# A runner serves the judge's calls of one implementation (cudalabs/remote/judge.hpp): `student`
# links the submission's library (found beside it, like a harness's), `solution` the reference.
function(_cudalabs_runner_executable target lab_id output_dir namespace calls)
  _cudalabs_lab_executable(${target} ${lab_id} "${output_dir}"
    "${PROJECT_SOURCE_DIR}/common/src/remote/lab_function_table.cpp")
  target_link_libraries(${target} PRIVATE cudalabs::runner)
  target_compile_definitions(${target} PRIVATE CUDALABS_RUNNER_NAMESPACE=${namespace}
    CUDALABS_LAB_CALLS="${calls}")
endfunction()

function(cudalabs_add_lab lab_id)
  set(lab_dir "${PROJECT_SOURCE_DIR}/labs/${lab_id}")
  set(solution_dir "${PROJECT_SOURCE_DIR}/solutions/${lab_id}")
  set(suite_dir "${PROJECT_SOURCE_DIR}/grader/suites/${lab_id}")
  set(output_dir "${PROJECT_BINARY_DIR}/labs/${lab_id}")

  file(GLOB student_sources CONFIGURE_DEPENDS "${lab_dir}/*.cu")
  list(FILTER student_sources EXCLUDE REGEX "_test\\.cu$")
  file(GLOB selfcheck_sources CONFIGURE_DEPENDS "${lab_dir}/*_test.cu")
  if(NOT student_sources OR NOT selfcheck_sources)
    message(FATAL_ERROR "lab ${lab_id}: ${lab_dir} needs student .cu files and a *_test.cu self-check suite")
  endif()

  set(student_lib lab_${lab_id}_student)
  add_library(${student_lib} SHARED ${student_sources})
  target_compile_definitions(${student_lib} PRIVATE LAB_IMPL=student)
  target_include_directories(${student_lib} PRIVATE "${lab_dir}" "${PROJECT_SOURCE_DIR}/common/include")
  # Exports only namespace student (the lab's API): see the map for why. labgrade links every
  # submission with the same map (its build recipe, below).
  target_link_options(${student_lib} PRIVATE "LINKER:--no-undefined"
    "LINKER:--version-script=${CUDALABS_STUDENT_VERSION_SCRIPT}")
  set_property(TARGET ${student_lib} APPEND PROPERTY LINK_DEPENDS "${CUDALABS_STUDENT_VERSION_SCRIPT}")
  set_target_properties(${student_lib} PROPERTIES LIBRARY_OUTPUT_DIRECTORY "${output_dir}")

  _cudalabs_harness_executable(lab_${lab_id}_selfcheck ${lab_id} "${output_dir}" ${selfcheck_sources})
  target_link_libraries(lab_${lab_id}_selfcheck PRIVATE ${student_lib})
  set(selfcheck_harness "$<TARGET_FILE:lab_${lab_id}_selfcheck>")

  set(grade_harness "")
  set(student_runner "")
  set(reference_runner "")
  if(IS_DIRECTORY "${solution_dir}" AND IS_DIRECTORY "${suite_dir}")
    file(GLOB solution_sources CONFIGURE_DEPENDS "${solution_dir}/*.cu")
    file(GLOB suite_sources CONFIGURE_DEPENDS "${suite_dir}/*.cu")
    _cudalabs_solution_objects(lab_${lab_id}_solution solution "${lab_dir}" ${solution_sources})
    # The same solution under another name, linked into the judge: a run that times nothing calls it
    # there rather than starting a reference runner (cudalabs/remote/judge.hpp, reference_in_judge).
    _cudalabs_solution_objects(lab_${lab_id}_judge_reference judge_reference "${lab_dir}" ${solution_sources})

    # The grade harness is a judge: it never links the submission. Each call of the lab's API goes
    # to a runner (lab_calls.def lists the API once for all three); runs that time nothing call the
    # solution linked in as judge_reference instead of the reference's runner.
    set(calls "${suite_dir}/lab_calls.def")
    if(NOT EXISTS "${calls}")
      message(FATAL_ERROR "lab ${lab_id}: ${calls} is missing; it lists the lab's API for the judge and its runners "
                          "(see grader/suites/01_vector_add/lab_calls.def)")
    endif()
    # The timed cases (<name>_performance_test.cu) last: GoogleTest runs tests in the order they
    # were registered, the order of these sources, and a grade's one judge runs its correctness
    # tests with the GPU shared, then waits for it alone before its first timed case
    # (grader/src/session/stages.cpp): a correctness test after that would run alone too.
    set(timed_sources ${suite_sources})
    list(FILTER timed_sources INCLUDE REGEX "_performance_test\\.cu$")
    list(FILTER suite_sources EXCLUDE REGEX "_performance_test\\.cu$")
    _cudalabs_harness_executable(lab_${lab_id}_grade ${lab_id} "${output_dir}"
      ${selfcheck_sources} ${suite_sources} ${timed_sources} "${PROJECT_SOURCE_DIR}/common/src/remote/lab_thunks.cpp")
    target_compile_definitions(lab_${lab_id}_grade PRIVATE CUDALABS_LAB_ID="${lab_id}" CUDALABS_LAB_CALLS="${calls}")
    target_link_libraries(lab_${lab_id}_grade PRIVATE lab_${lab_id}_judge_reference)
    set_property(TARGET lab_${lab_id}_grade APPEND PROPERTY OBJECT_DEPENDS "${calls}")

    _cudalabs_runner_executable(lab_${lab_id}_student_runner ${lab_id} "${output_dir}" student "${calls}")
    target_link_libraries(lab_${lab_id}_student_runner PRIVATE ${student_lib})
    _cudalabs_runner_executable(lab_${lab_id}_reference_runner ${lab_id} "${output_dir}" solution "${calls}")
    target_link_libraries(lab_${lab_id}_reference_runner PRIVATE lab_${lab_id}_solution)
    # Building the judge builds its runners.
    add_dependencies(lab_${lab_id}_grade lab_${lab_id}_student_runner lab_${lab_id}_reference_runner)
    set(grade_harness "$<TARGET_FILE:lab_${lab_id}_grade>")
    set(student_runner "$<TARGET_FILE:lab_${lab_id}_student_runner>")
    set(reference_runner "$<TARGET_FILE:lab_${lab_id}_reference_runner>")
  endif()

  # Targets a test or benchmark of every lab depends on (grader/tests/cli, bench/).
  set_property(GLOBAL APPEND PROPERTY CUDALABS_LAB_HARNESSES lab_${lab_id}_selfcheck)
  if(grade_harness)
    set_property(GLOBAL APPEND PROPERTY CUDALABS_LAB_HARNESSES lab_${lab_id}_grade)
  endif()

  # The recipe labgrade follows to rebuild the student library from a submission.
  # labgrade compiles in a sandbox where nvcc cannot see the GPU, and `-arch=native` there falls
  # back to nvcc's default (PTX compiled at every run): the recipe names the GPU's architecture,
  # as CMake found it while configuring (CMAKE_CUDA_ARCHITECTURES_NATIVE, CMake >= 3.24).
  set(recipe_archs "${CMAKE_CUDA_ARCHITECTURES}")
  if(recipe_archs STREQUAL "native" AND CMAKE_CUDA_ARCHITECTURES_NATIVE)
    set(recipe_archs "${CMAKE_CUDA_ARCHITECTURES_NATIVE}")
  endif()
  string(REPLACE ";" "\",\"" archs_json "${recipe_archs}")
  string(REPLACE ";" "\",\"" device_flags_json "${CUDALABS_DEVICE_COMPILE_FLAGS}")
  file(GENERATE OUTPUT "${PROJECT_BINARY_DIR}/cudalabs/labs/${lab_id}.json" CONTENT "{
  \"lab\": \"${lab_id}\",
  \"nvcc\": \"${CMAKE_CUDA_COMPILER}\",
  \"host_compiler\": \"${CMAKE_CUDA_HOST_COMPILER}\",
  \"cuda_architectures\": [\"${archs_json}\"],
  \"cuda_standard\": \"${CMAKE_CUDA_STANDARD}\",
  \"device_compile_flags\": [\"${device_flags_json}\"],
  \"include_dirs\": [\"${lab_dir}\", \"${PROJECT_SOURCE_DIR}/common/include\"],
  \"student_library\": \"$<TARGET_FILE_NAME:${student_lib}>\",
  \"version_script\": \"${CUDALABS_STUDENT_VERSION_SCRIPT}\",
  \"selfcheck_harness\": \"${selfcheck_harness}\",
  \"grade_harness\": \"${grade_harness}\",
  \"student_runner\": \"${student_runner}\",
  \"reference_runner\": \"${reference_runner}\"
}
")
endfunction()

# Every labs/<id>/ that has a config/labs/<id>.yaml is a lab; nothing else to register.
function(cudalabs_discover_labs)
  file(GLOB lab_dirs LIST_DIRECTORIES true CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/labs/*")
  foreach(dir IN LISTS lab_dirs)
    get_filename_component(lab_id "${dir}" NAME)
    if(IS_DIRECTORY "${dir}" AND EXISTS "${PROJECT_SOURCE_DIR}/config/labs/${lab_id}.yaml")
      cudalabs_add_lab(${lab_id})
    endif()
  endforeach()
endfunction()
