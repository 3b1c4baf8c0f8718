#pragma once
// The one UTF-8 decoder of labgrade: staging refuses files that are not UTF-8 with it, and the
// report writers replace what is not UTF-8 with it.
#include <cstddef>
#include <string>
#include <string_view>

namespace labgrade {

// Length of the valid UTF-8 sequence at text[i], or 0 when it is not one (overlong forms,
// surrogates and code points past U+10FFFF are invalid). Stores the code point in `code`.
std::size_t utf8_sequence(std::string_view text, std::size_t i, char32_t& code);

// Columns `text` takes on a terminal: combining marks 0, East Asian wide and emoji 2, others 1
// (an invalid byte counts 1, as the replacement character it is shown as).
std::size_t display_width(std::string_view text);

// `text` in exactly `width` columns: padded with spaces on the right, or cut and ended with "…"
// when it is wider.
std::string fit_to_width(std::string_view text, std::size_t width);

}  // namespace labgrade
