#include "cli/command_suggestion.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace labgrade::cli {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  // Optimal string alignment: Levenshtein plus the swap of two neighbours ("lsit" -> "list").
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t replace = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + replace});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.size()][b.size()];
}

std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string>& names) {
  std::optional<std::string> best;
  std::size_t best_distance = 0;
  for (const std::string& name : names) {
    const std::size_t distance = edit_distance(typed, name);
    if (distance > 2 || 2 * distance >= name.size()) continue;
    if (!best || distance < best_distance) {
      best = name;
      best_distance = distance;
    }
  }
  return best;
}

std::optional<std::string> unknown_command_message(const CLI::App& app, const std::vector<std::string>& args) {
  std::vector<std::string> commands;  // accepted
  std::vector<std::string> listed;    // and named to the user: not the internal ones (no help group)
  for (const CLI::App* command : app.get_subcommands([](const CLI::App* sub) { return !sub->get_name().empty(); })) {
    commands.push_back(command->get_name());
    if (!command->get_group().empty()) listed.push_back(command->get_name());
  }
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--") return std::nullopt;
    if (!arg.empty() && arg[0] == '-') {
      // An option of the program itself that takes a value (--root DIR) skips that value.
      const CLI::Option* option = app.get_option_no_throw(arg.substr(0, arg.find('=')));
      if (option && option->get_type_size() != 0 && arg.find('=') == std::string::npos) ++i;
      continue;
    }
    if (std::find(commands.begin(), commands.end(), arg) != commands.end()) return std::nullopt;
    const std::string list = fmt::format("{}", fmt::join(listed, ", "));
    if (const auto near = closest_name(arg, listed)) {
      return fmt::format("'{}' is not a command; did you mean '{}'?\nThe commands are: {} ({} --help says more)", arg,
                         *near, list, app.get_name());
    }
    return fmt::format("'{}' is not a command.\nThe commands are: {} ({} --help says more)", arg, list,
                       app.get_name());
  }
  return std::nullopt;
}

}  // namespace labgrade::cli
