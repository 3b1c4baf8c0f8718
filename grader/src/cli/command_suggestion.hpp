#pragma once
// "did you mean": a mistyped command name is answered with the closest real one.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

namespace labgrade::cli {

// Edits (insert, delete, replace, swap two neighbours) that turn `a` into `b`.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The name in `names` nearest to `typed`, when near enough to be what was meant (at most two
// edits, and fewer than half its letters); nullopt otherwise.
std::optional<std::string> closest_name(std::string_view typed, const std::vector<std::string>& names);

// When the command line names no subcommand of `app` where one is due (the first argument that is
// neither an option of `app` nor an option's value), the message to print: what was typed, the
// nearest command if one is near, and the list of commands. nullopt when the line is fine as far
// as commands go (CLI11 judges the rest).
std::optional<std::string> unknown_command_message(const CLI::App& app, const std::vector<std::string>& args);

}  // namespace labgrade::cli
