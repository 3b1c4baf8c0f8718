#pragma once
// student:: and solution:: side by side (see cudalabs/student_and_solution.hpp).
#define CUDALABS_LAB_API "sort.cuh"
#include "cudalabs/student_and_solution.hpp"

#include "lab11_test_support.cuh"

namespace lab11 {

inline const BlockSortApi kStudentBlockSort{"block_sort", &student::block_sort};
inline const KeysApi kStudentKeys{"radix_sort_keys", &student::radix_sort_keys_workspace_bytes,
                                  &student::radix_sort_keys};
inline const PairsApi kStudentPairs{"radix_sort_pairs", &student::radix_sort_pairs_workspace_bytes,
                                    &student::radix_sort_pairs};

inline const BlockSortApi kSolutionBlockSort{"solution::block_sort", &solution::block_sort};
inline const KeysApi kSolutionKeys{"solution::radix_sort_keys", &solution::radix_sort_keys_workspace_bytes,
                                   &solution::radix_sort_keys};
inline const PairsApi kSolutionPairs{"solution::radix_sort_pairs", &solution::radix_sort_pairs_workspace_bytes,
                                     &solution::radix_sort_pairs};

}  // namespace lab11
