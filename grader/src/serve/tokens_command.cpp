// `labgrade tokens issue|revoke|list` (declared in serve_command.hpp).
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <iostream>

#include <fmt/format.h>

#include "model/exit_codes.hpp"
#include "serve/roster_csv.hpp"
#include "serve/serve_command.hpp"
#include "serve/service_store.hpp"

namespace labgrade::serve {
namespace {

// The tokens in clear, readable by their owner only; never over an existing file.
void write_tokens_file(const std::filesystem::path& file, const std::string& text) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) {
    throw UsageError(fmt::format("cannot create {} ({}); an existing file is never overwritten: give another --out",
                                 file.string(), std::strerror(errno)));
  }
  const ssize_t written = ::write(fd, text.data(), text.size());
  ::close(fd);
  if (written != static_cast<ssize_t>(text.size())) throw std::runtime_error("cannot write " + file.string());
}

std::string csv_cell(const std::string& text) {
  if (text.find_first_of(",\"") == std::string::npos) return text;
  std::string quoted = "\"";
  for (const char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

int issue(const TokensCommand& command) {
  const std::vector<std::string> students = read_roster(command.roster);
  if (std::filesystem::exists(command.out)) {
    throw UsageError(fmt::format("{} exists; it is left as it is: give another --out", command.out.string()));
  }
  ServiceStore store(command.data);
  std::string text = "student_id,token\n";
  std::size_t issued = 0, kept = 0;
  for (const std::string& student : students) {
    const std::string token = store.issue_token(student, command.reissue);
    if (token.empty()) {
      ++kept;
      continue;
    }
    text += csv_cell(student) + "," + token + "\n";
    ++issued;
  }
  write_tokens_file(command.out, text);
  std::cout << fmt::format("labgrade tokens: {} issued into {} (give each student theirs; only their SHA-256 is "
                           "kept in {}){}\n",
                           issued, command.out.string(), (command.data / "service.sqlite").string(),
                           kept ? fmt::format("; {} students already had one (--reissue replaces them)", kept) : "");
  return 0;
}

int bridge(const TokensCommand& command) {
  if (command.bridge_name.empty() || command.bridge_name.find_first_of("/@") != std::string::npos) {
    throw UsageError("--name is a plain word, e.g. gradescope");
  }
  if (std::filesystem::exists(command.out)) {
    throw UsageError(fmt::format("{} exists; it is left as it is: give another --out", command.out.string()));
  }
  ServiceStore store(command.data);
  const std::string id = "@" + command.bridge_name;
  const std::string token = store.issue_token(id, true);
  write_tokens_file(command.out, token + "\n");
  std::cout << fmt::format("labgrade tokens: the token of bridge {} is in {} (a previous one no longer works); its "
                           "submissions are kept per student as {}/<student>\n",
                           id, command.out.string(), id);
  return 0;
}

int revoke(const TokensCommand& command) {
  ServiceStore store(command.data);
  int missing = 0;
  for (const std::string& student : command.students) {
    if (store.revoke_token(student)) {
      std::cout << fmt::format("revoked {}'s token\n", student);
    } else {
      std::cerr << fmt::format("labgrade tokens: {} has no live token\n", student);
      missing = 1;
    }
  }
  return missing ? kUsageExitCode : 0;
}

int list(const TokensCommand& command) {
  ServiceStore store(command.data);
  for (const TokenRow& row : store.tokens()) {
    std::cout << fmt::format("{}\tissued {}\t{}\n", row.student_id, row.issued_at,
                             row.revoked_at ? fmt::format("revoked {}", *row.revoked_at) : "live");
  }
  return 0;
}

}  // namespace

CLI::App* add_tokens_command(CLI::App& app, TokensCommand& command) {
  auto* tokens = app.add_subcommand("tokens", "Issue, revoke and list the students' tokens of `labgrade serve`");
  tokens->require_subcommand(1);
  command.issue = tokens->add_subcommand(
      "issue", "A token for each student of a roster CSV who has none; the tokens go into --out, in clear, once");
  command.issue->add_option("--data", command.data, "The service's data folder (as for serve)")->required()->type_name("DIR");
  command.issue->add_option("--roster", command.roster, "CSV with a student_id (or sid, id, email) column")
      ->required()
      ->check(CLI::ExistingFile)
      ->type_name("CSV");
  command.issue->add_option("--out", command.out, "New file for student_id,token (mode 0600)")->required()->type_name("CSV");
  command.issue->add_flag("--reissue", command.reissue, "Replace the tokens students already have");
  command.revoke = tokens->add_subcommand("revoke", "Revoke students' tokens (their submissions stay)");
  command.revoke->add_option("--data", command.data, "The service's data folder")->required()->type_name("DIR");
  command.revoke->add_option("students", command.students, "Student ids")->required();
  command.bridge = tokens->add_subcommand(
      "bridge", "A token for a bridge (Gradescope: gradescope/README.md) that submits for the students it names");
  command.bridge->add_option("--data", command.data, "The service's data folder")->required()->type_name("DIR");
  command.bridge->add_option("--name", command.bridge_name, "The bridge's name (default gradescope)");
  command.bridge->add_option("--out", command.out, "New file for the token (mode 0600)")->required()->type_name("FILE");
  command.list = tokens->add_subcommand("list", "List the students with a token, live or revoked");
  command.list->add_option("--data", command.data, "The service's data folder")->required()->type_name("DIR");
  return tokens;
}

int run_tokens_command(const TokensCommand& command) {
  if (command.issue->parsed()) return issue(command);
  if (command.revoke->parsed()) return revoke(command);
  if (command.bridge->parsed()) return bridge(command);
  return list(command);
}

}  // namespace labgrade::serve
