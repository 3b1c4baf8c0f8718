#include "cli/help_format.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>

namespace labgrade::cli {
namespace {

// Lines of help stay within 90 columns: a description starts at the formatter's column (30).
constexpr std::size_t kHelpWidth = 90;

}  // namespace

std::string wrap(const std::string& text, std::size_t width) {
  std::string wrapped;
  std::istringstream lines(text);
  bool first_line = true;
  for (std::string line; std::getline(lines, line);) {
    if (!first_line) wrapped += '\n';
    first_line = false;
    std::istringstream words(line);
    std::size_t column = 0;
    for (std::string word; words >> word;) {
      if (column > 0 && column + 1 + word.size() > width) {
        wrapped += '\n';
        column = 0;
      } else if (column > 0) {
        wrapped += ' ';
        ++column;
      }
      wrapped += word;
      column += word.size();
    }
  }
  return wrapped;
}

std::string program_name(const char* argv0) {
  if (!argv0 || !*argv0) return "labgrade";
  const std::string typed = argv0;
  return std::filesystem::path(typed).filename() == "labgrade" ? "labgrade" : typed;
}

std::string HelpFormatter::make_option_opts(const CLI::Option* option) const {
  if (!option->get_option_text().empty()) return " " + option->get_option_text();
  std::string placeholder = option->get_type_name();
  const std::size_t colon = placeholder.find(':');
  const std::string note = colon == std::string::npos ? "" : placeholder.substr(colon + 1);
  placeholder = placeholder.substr(0, colon);  // the validators' notes go
  // ... except where one says what the text is: an existing DIR or FILE reads better than the option's name.
  if (placeholder == "TEXT" && (note == "DIR" || note == "FILE")) placeholder = note;
  // A positional's name says enough; a flag has no value.
  if (option->get_positional() || option->get_type_size() == 0 || placeholder.empty()) return "";
  if (placeholder == "TEXT") {
    placeholder = option->get_name();  // --work-dir, its long name when it has one
    placeholder.erase(0, placeholder.find_first_not_of('-'));
    std::transform(placeholder.begin(), placeholder.end(), placeholder.begin(), [](unsigned char c) {
      return c == '-' ? '_' : static_cast<char>(std::toupper(c));
    });
  }
  std::string text = " " + placeholder;
  if (option->get_expected_max() > 1 && placeholder.find("...") == std::string::npos) text += " ...";
  if (option->get_required()) text += " (required)";
  return text;
}

std::string failure_message(const CLI::App* app, const CLI::Error& error) {
  return "labgrade: " + CLI::FailureMessage::simple(app, error);
}

}  // namespace labgrade::cli

namespace labgrade::cli {

std::string HelpFormatter::make_option_desc(const CLI::Option* option) const {
  return wrap(option->get_description(), kHelpWidth - get_column_width());
}

std::string HelpFormatter::make_description(const CLI::App* command) const {
  const std::string description = CLI::Formatter::make_description(command);  // ends with a line feed
  return description.empty() ? "" : wrap(description, kHelpWidth) + "\n";
}

std::string HelpFormatter::make_subcommand(const CLI::App* command) const {
  std::ostringstream out;
  CLI::detail::format_help(out, command->get_display_name(),
                           wrap(command->get_description(), kHelpWidth - get_column_width()), get_column_width());
  return out.str();
}

}  // namespace labgrade::cli
