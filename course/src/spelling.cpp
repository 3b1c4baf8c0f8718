#include "spelling.hpp"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

namespace cudalabs::config::detail {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal-string-alignment distance over three rows; the strings are short keys and names.
  std::vector<std::size_t> before_previous(b.size() + 1);
  std::vector<std::size_t> previous(b.size() + 1);
  std::vector<std::size_t> current(b.size() + 1);
  std::iota(previous.begin(), previous.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitution = previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        current[j] = std::min(current[j], before_previous[j - 2] + 1);
      }
    }
    std::swap(before_previous, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates,
                                         std::size_t max_distance) {
  std::optional<std::string> best;
  std::size_t best_distance = max_distance + 1;
  for (const std::string& candidate : candidates) {
    const std::size_t distance = edit_distance(word, candidate);
    const bool plausible = 2 * distance < std::max(word.size(), candidate.size());
    if (plausible && distance < best_distance) {
      best_distance = distance;
      best = candidate;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates,
                         std::size_t max_distance) {
  const std::optional<std::string> match = closest_match(word, candidates, max_distance);
  return match ? fmt::format(" (did you mean '{}'?)", *match) : "";
}

}  // namespace cudalabs::config::detail
