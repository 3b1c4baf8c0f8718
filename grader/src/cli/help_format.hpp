#pragma once
// How labgrade's --help reads: the program named as it was called, each option's value shown as a
// short placeholder (DIR, FILE, INT) without CLI11's validator notes ("TEXT:PATH(existing)"), and
// descriptions wrapped to fit a terminal.
#include <string>

#include <CLI/CLI.hpp>

namespace labgrade::cli {

// "labgrade" for labgrade itself (however its path was typed: build/labgrade, /opt/x/labgrade);
// a wrapper that passes its own name as argv[0] (./cudalabs, with `exec -a`) keeps it as typed.
std::string program_name(const char* argv0);

class HelpFormatter : public CLI::Formatter {
 public:
  // An option's placeholder: its option_text if set, else its type name without the validators'
  // descriptions, where "TEXT" becomes DIR or FILE when a validator says it is an existing one,
  // else the option's long name in capitals (--work-dir: WORK_DIR). A
  // positional argument's name says enough: no placeholder.
  std::string make_option_opts(const CLI::Option* option) const override;
  std::string make_option_desc(const CLI::Option* option) const override;
  std::string make_subcommand(const CLI::App* command) const override;
  std::string make_description(const CLI::App* command) const override;
};

// A command-line mistake as labgrade reports every error: "labgrade: " first (CLI11's own
// message, then its hint to run --help). For CLI::App::failure_message.
std::string failure_message(const CLI::App* app, const CLI::Error& error);

// `text` with its lines broken at spaces to at most `width` columns (a longer word stays whole).
std::string wrap(const std::string& text, std::size_t width);

}  // namespace labgrade::cli
