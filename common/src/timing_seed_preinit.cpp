// Takes the grade's timing seed (CUDALABS_TIMING_SEED, see cudalabs/timing/grade_seed.hpp) out of
// the environment before student code can run: like the result channel
// (result_channel_preinit.cpp), this runs from the executable's .preinit_array, before the
// constructors of every shared library, and wipes the variable's text too, so neither getenv nor
// /proc/self/environ shows it to a submission.
//
// Linked as an object (cudalabs_harness is an OBJECT library): nothing refers to the entry below.
#include <cstddef>
#include <cstring>

#include "cudalabs/timing/grade_seed.hpp"

namespace {

constexpr std::size_t kMaxSeedText = 32;

void capture_timing_seed(int, char**, char** envp) {
  if (!envp) return;
  const char* name = cudalabs::timing::kTimingSeedVariable;
  const std::size_t length = std::strlen(name);
  char value[kMaxSeedText + 1] = {};
  bool found = false;
  char** out = envp;
  for (char** in = envp; *in; ++in) {
    if (std::strncmp(*in, name, length) == 0 && (*in)[length] == '=') {
      char* text = *in + length + 1;
      std::strncpy(value, text, kMaxSeedText);
      std::memset(text, 0, std::strlen(text));
      found = true;
      continue;  // the entry leaves the array: getenv will not find it
    }
    *out++ = *in;
  }
  *out = nullptr;
  // A value that does not parse is not used: the harness then draws a seed, and says both.
  if (found) {
    if (const auto seed = cudalabs::timing::parse_seed(value)) {
      cudalabs::timing::set_grade_seed(*seed);
    } else {
      cudalabs::timing::set_unparsed_seed(value);
    }
  }
}

}  // namespace

__attribute__((section(".preinit_array"), used)) static void (*const capture_timing_seed_entry)(int, char**, char**) =
    capture_timing_seed;
