// The lab's API twice, as student:: and as solution::, so a hidden suite can call both
// implementations side by side in one test binary. A suite's implementations.cuh names the API
// header first:
//
//   #define CUDALABS_LAB_API "vector_add.cuh"
//   #include "cudalabs/student_and_solution.hpp"
//
// No include guard here, nor in the API headers, on purpose: each is included once per namespace.
#ifndef CUDALABS_LAB_API
#error "define CUDALABS_LAB_API (the lab's API header, quoted) before including student_and_solution.hpp"
#endif
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include CUDALABS_LAB_API
#undef LAB_IMPL
#define LAB_IMPL solution
#include CUDALABS_LAB_API
#undef LAB_IMPL
