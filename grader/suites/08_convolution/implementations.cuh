#pragma once
// student:: and solution:: side by side (see cudalabs/student_and_solution.hpp).
#define CUDALABS_LAB_API "convolution.cuh"
#include "cudalabs/student_and_solution.hpp"

#include "lab08_test_support.cuh"

namespace lab08 {

// One of the two 2D functions, in both namespaces (both use set_filter_2d).
struct Implementation2d {
  const char* name;
  Convolve2dFn student;
  Convolve2dFn solution;
};

inline constexpr Implementation2d kNaive{"convolve_2d_naive", &student::convolve_2d_naive,
                                         &solution::convolve_2d_naive};
inline constexpr Implementation2d kTiled{"convolve_2d_tiled", &student::convolve_2d_tiled,
                                         &solution::convolve_2d_tiled};

}  // namespace lab08
