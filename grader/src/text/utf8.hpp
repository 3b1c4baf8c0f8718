#pragma once
// The one UTF-8 decoder of labgrade: staging refuses files that are not UTF-8 with it, and the
// report writers replace what is not UTF-8 with it.
#include <cstddef>
#include <string_view>

namespace labgrade {

// Length of the valid UTF-8 sequence at text[i], or 0 when it is not one (overlong forms,
// surrogates and code points past U+10FFFF are invalid). Stores the code point in `code`.
std::size_t utf8_sequence(std::string_view text, std::size_t i, char32_t& code);

}  // namespace labgrade
