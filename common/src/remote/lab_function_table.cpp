// The runner's table of the lab's functions (cudalabs/remote/runner.hpp), from the lab's
// lab_calls.def. Compiled once per runner: CUDALABS_RUNNER_NAMESPACE is `student` (the submission's library is
// linked) or `solution` (the reference is linked); CUDALABS_LAB_CALLS names the .def file.
#include "cudalabs/remote/runner.hpp"
// The .def names the API header first (CUDALABS_LAB_API); read once for that alone.
#define CUDALABS_LAB_CALL(...)
#include CUDALABS_LAB_CALLS
#undef CUDALABS_LAB_CALL
#include "cudalabs/student_and_solution.hpp"

#ifndef CUDALABS_RUNNER_NAMESPACE
#error "define CUDALABS_RUNNER_NAMESPACE (student or solution)"
#endif

namespace cudalabs::remote {

#define CUDALABS_LAB_CALL(result, name, parameters, arguments) \
  {#name, &serve<&::CUDALABS_RUNNER_NAMESPACE::name>},
const ServedFunction kServedFunctions[] = {
#include CUDALABS_LAB_CALLS
};
#undef CUDALABS_LAB_CALL

const std::size_t kServedFunctionCount = sizeof kServedFunctions / sizeof kServedFunctions[0];

}  // namespace cudalabs::remote
