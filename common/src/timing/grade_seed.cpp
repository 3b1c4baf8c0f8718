#include "cudalabs/timing/grade_seed.hpp"

#include <sys/random.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <mutex>

#include "cudalabs/timing/interleaved.hpp"

namespace cudalabs::timing {
namespace {

std::mutex& seed_mutex() {
  static std::mutex mutex;
  return mutex;
}
std::optional<std::uint64_t>& stored_seed() {
  static std::optional<std::uint64_t> seed;
  return seed;
}

char unparsed_text[40] = {};  // what CUDALABS_TIMING_SEED held when it did not parse

int digit_value(char c, int base) {
  int value = -1;
  if (c >= '0' && c <= '9') value = c - '0';
  if (c >= 'a' && c <= 'f') value = c - 'a' + 10;
  if (c >= 'A' && c <= 'F') value = c - 'A' + 10;
  return value < base ? value : -1;
}

// From getrandom; should the kernel refuse, from the clock (a run by hand still gets fresh inputs).
std::uint64_t draw_seed() {
  std::uint64_t seed = 0;
  auto* bytes = reinterpret_cast<unsigned char*>(&seed);
  std::size_t filled = 0;
  while (filled < sizeof seed) {
    const ssize_t n = ::getrandom(bytes + filled, sizeof seed - filled, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    filled += static_cast<std::size_t>(n);
  }
  if (filled < sizeof seed) {
    seed = static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  return seed;
}

std::uint64_t fnv1a(std::string_view text) noexcept {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (const char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ull;
  }
  return hash;
}

}  // namespace

std::optional<std::uint64_t> parse_seed(std::string_view text) noexcept {
  int base = 10;
  std::size_t max_digits = 20;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
    max_digits = 16;
  }
  if (text.empty() || text.size() > max_digits) return std::nullopt;
  std::uint64_t value = 0;
  for (const char c : text) {
    const int digit = digit_value(c, base);
    if (digit < 0) return std::nullopt;
    const auto d = static_cast<std::uint64_t>(digit);
    if (value > (UINT64_MAX - d) / static_cast<std::uint64_t>(base)) return std::nullopt;  // overflow
    value = value * static_cast<std::uint64_t>(base) + d;
  }
  return value;
}

std::string format_seed(std::uint64_t seed) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%016llx", static_cast<unsigned long long>(seed));
  return text;
}

void set_unparsed_seed(const char* text) noexcept {
  std::snprintf(unparsed_text, sizeof unparsed_text, "%s", text);
}

void set_grade_seed(std::uint64_t seed) noexcept {
  // Before main: no other thread exists yet, and the mutex needs no construction beyond static init.
  stored_seed() = seed;
}

std::uint64_t grade_seed() {
  const std::lock_guard<std::mutex> lock(seed_mutex());
  if (!stored_seed()) {
    stored_seed() = draw_seed();
    if (unparsed_text[0] != '\0') {
      std::printf("[ timing   ] %s='%s' is not a seed (0x and 1-16 hex digits, or a decimal number)\n",
                  kTimingSeedVariable, unparsed_text);
    }
    std::printf("[ timing   ] timed inputs from seed %s (%s=%s repeats this run)\n", format_seed(*stored_seed()).c_str(),
                kTimingSeedVariable, format_seed(*stored_seed()).c_str());
    std::fflush(stdout);
  }
  return *stored_seed();
}

std::uint64_t case_seed(std::string_view case_name, int attempt) {
  return round_seed(grade_seed() ^ fnv1a(case_name), static_cast<std::uint64_t>(attempt));
}

}  // namespace cudalabs::timing
