#pragma once
// student:: and solution:: side by side. The API header has no include guard on purpose: it is
// included once per namespace, so both implementations coexist in one test binary.
#ifdef LAB_IMPL
#undef LAB_IMPL
#endif
#define LAB_IMPL student
#include "transpose.cuh"
#undef LAB_IMPL
#define LAB_IMPL solution
#include "transpose.cuh"
#undef LAB_IMPL

#include "lab04_test_support.cuh"

namespace lab04 {

// One of the lab's three functions, in both namespaces.
struct Implementation {
  const char* name;
  TransposeFn student;
  TransposeFn solution;
};

inline constexpr Implementation kNaive{"transpose_naive", &student::transpose_naive, &solution::transpose_naive};
inline constexpr Implementation kCoalesced{"transpose_coalesced", &student::transpose_coalesced,
                                           &solution::transpose_coalesced};
inline constexpr Implementation kConflictFree{"transpose_conflict_free", &student::transpose_conflict_free,
                                              &solution::transpose_conflict_free};

}  // namespace lab04
