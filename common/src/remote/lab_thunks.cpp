// The lab's API in a grade harness (the judge): every student:: and solution:: function the suite
// calls forwards to its runner (cudalabs/remote/judge.hpp). One definition per entry of the lab's
// lab_calls.def, whose parameter lists must match the API header's declarations (the link fails
// otherwise: the suite's calls would find no definition).
#include "cudalabs/remote/judge.hpp"
// The .def names the API header first (CUDALABS_LAB_API); read once for that alone.
#define CUDALABS_LAB_CALL(...)
#include CUDALABS_LAB_CALLS
#undef CUDALABS_LAB_CALL
#include "cudalabs/student_and_solution.hpp"
// The solution once more, linked into the judge under its own name (lab_<id>_judge_reference,
// cmake/CudalabsLab.cmake): what a run that times nothing calls instead of a reference runner
// (remote::reference_in_judge()), and what makes a timed sample's expected outputs
// (remote::solution_runs_in_judge()).
#define LAB_IMPL judge_reference
#include CUDALABS_LAB_API
#undef LAB_IMPL

#ifndef CUDALABS_LAB_ID
#error "define CUDALABS_LAB_ID (the lab's id, quoted)"
#endif

// Read by the harness's .preinit_array: this executable is a judge, which does not confine
// itself but its runners (common/src/result_channel_preinit.cpp).
extern "C" const char cudalabs_judge_lab_id[] = CUDALABS_LAB_ID;

namespace cudalabs::remote::detail {
void register_judge(const char* lab_id);
}  // namespace cudalabs::remote::detail

namespace {
const bool registered = (cudalabs::remote::detail::register_judge(cudalabs_judge_lab_id), true);
}  // namespace

#define CUDALABS_UNPAREN(...) __VA_ARGS__
#define CUDALABS_LAB_CALL(result, name, parameters, arguments)                                          \
  namespace student {                                                                                   \
  result name parameters {                                                                              \
    return ::cudalabs::remote::call<result>(::cudalabs::remote::Side::student, #name,                   \
                                            CUDALABS_UNPAREN arguments);                                \
  }                                                                                                     \
  }                                                                                                     \
  namespace solution {                                                                                  \
  result name parameters {                                                                              \
    const auto in_judge = [&] { return ::judge_reference::name(CUDALABS_UNPAREN arguments); };           \
    if (::cudalabs::remote::solution_runs_in_judge()) {                                                 \
      return ::cudalabs::remote::call_in_judge<result>(#name, in_judge);                                \
    }                                                                                                   \
    const result made = ::cudalabs::remote::call<result>(::cudalabs::remote::Side::reference, #name,    \
                                                         CUDALABS_UNPAREN arguments);                   \
    /* A call that set only the runner's state: the same in the judge, which checks the samples. */     \
    if (::cudalabs::remote::detail::take_reference_state_call()) {                                      \
      static_cast<void>(::cudalabs::remote::call_in_judge<result>(#name, in_judge));                    \
    }                                                                                                   \
    return made;                                                                                        \
  }                                                                                                     \
  }
#include CUDALABS_LAB_CALLS
#undef CUDALABS_LAB_CALL
