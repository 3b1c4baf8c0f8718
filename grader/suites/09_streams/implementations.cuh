#pragma once
// student:: and solution:: side by side (see cudalabs/student_and_solution.hpp).
#define CUDALABS_LAB_API "streams.cuh"
#include "cudalabs/student_and_solution.hpp"

#include "lab09_test_support.cuh"
