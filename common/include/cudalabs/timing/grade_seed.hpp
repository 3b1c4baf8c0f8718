#pragma once
// The seed of a grade's timed inputs. labgrade draws one per grade and hands it to every test
// process in CUDALABS_TIMING_SEED; the harness takes it out of the environment before any
// student code runs (common/src/timing_seed_preinit.cpp), so a submission can neither read it
// nor precompute results for the inputs it produces. A harness run by hand draws one and prints
// it once, so the run can be repeated with the same inputs:
//   CUDALABS_TIMING_SEED=0x1234abcd5678ef00 ./01_vector_add_grade --gtest_filter='Performance.*'
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cudalabs::timing {

inline constexpr const char* kTimingSeedVariable = "CUDALABS_TIMING_SEED";

// "0x" and 1-16 hex digits, or 1-20 decimal digits that fit in 64 bits; nullopt otherwise.
std::optional<std::uint64_t> parse_seed(std::string_view text) noexcept;
// "0x" and 16 hex digits: what parse_seed reads back.
std::string format_seed(std::uint64_t seed);

// Records the seed labgrade passed (called before main by the preinit entry).
void set_grade_seed(std::uint64_t seed) noexcept;
// Records a CUDALABS_TIMING_SEED that parse_seed refused: grade_seed() then says so when it draws.
void set_unparsed_seed(const char* text) noexcept;

// The seed set above; otherwise one drawn from the kernel's random source on first use and
// printed on stdout with how to repeat the run. Thread-safe.
std::uint64_t grade_seed();

// The base seed of one measurement of a performance case: the grade seed mixed with the case's
// name (so two cases never time the same inputs) and the attempt (a re-measurement gets fresh
// inputs too).
std::uint64_t case_seed(std::string_view case_name, int attempt);

}  // namespace cudalabs::timing
