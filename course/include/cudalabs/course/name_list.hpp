#pragma once
// Names listed in a message: "a, b, c", or with `last_separator` " or ": "a, b or c".
#include <string>
#include <string_view>
#include <vector>

namespace cudalabs::config {

inline std::string name_list(const std::vector<std::string_view>& names, std::string_view last_separator = ", ") {
  std::string list;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) list += i + 1 == names.size() ? last_separator : ", ";
    list += names[i];
  }
  return list;
}

}  // namespace cudalabs::config
