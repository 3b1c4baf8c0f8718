// "Did you mean ...?" suggestions for misspelt keys, choices and test names.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudalabs::config::detail {

// Number of single-character insertions, deletions and substitutions turning `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` within `max_distance` edits (the first on ties), if any.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates,
                                         std::size_t max_distance = 2);

}  // namespace cudalabs::config::detail
