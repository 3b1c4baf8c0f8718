// "Did you mean ...?" suggestions for misspelt keys, choices and test names.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudalabs::config::detail {

// Number of single-character insertions, deletions, substitutions and swaps of two neighbours
// turning `a` into `b` (a swap counts once: "lba" is one edit from "lab").
std::size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `word` within `max_distance` edits (the first on ties), if any.
// A candidate that would need edits to half or more of its letters is never offered: "abc" is
// two edits from "lab", but suggesting it would only puzzle the reader.
std::optional<std::string> closest_match(std::string_view word, const std::vector<std::string>& candidates,
                                         std::size_t max_distance = 2);

// " (did you mean 'x'?)" for the closest match, or "" when nothing is close.
std::string did_you_mean(std::string_view word, const std::vector<std::string>& candidates,
                         std::size_t max_distance = 2);

}  // namespace cudalabs::config::detail
