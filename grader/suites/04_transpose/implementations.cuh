#pragma once
// student:: and solution:: side by side (see cudalabs/student_and_solution.hpp).
#define CUDALABS_LAB_API "transpose.cuh"
#include "cudalabs/student_and_solution.hpp"

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
