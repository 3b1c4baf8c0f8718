// labgrade's command line, host side: the program's name in its help, placeholders without
// CLI11's type notes, wrapped descriptions, "did you mean" for a mistyped command, display widths,
// and `list` with long titles and broken YAML files.
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>

#include "cli/command_suggestion.hpp"
#include "cli/help_format.hpp"
#include "cli/lab_list.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "model/exit_codes.hpp"
#include "text/utf8.hpp"

namespace labgrade::cli {
namespace {
namespace fs = std::filesystem;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "'" << (needle) << "' not in:\n" << (haystack)

TEST(ProgramName, IsLabgradeHoweverItsPathWasTyped) {
  EXPECT_EQ(program_name("build/labgrade"), "labgrade");
  EXPECT_EQ(program_name("/opt/course/build-ci/labgrade"), "labgrade");
  EXPECT_EQ(program_name("labgrade"), "labgrade");
  EXPECT_EQ(program_name(nullptr), "labgrade");
  EXPECT_EQ(program_name(""), "labgrade");
  EXPECT_EQ(program_name("./cudalabs"), "./cudalabs") << "a wrapper's name, as the user typed it";
}

TEST(CommandSuggestion, CountsEditsAndSwaps) {
  EXPECT_EQ(edit_distance("grade", "grade"), 0u);
  EXPECT_EQ(edit_distance("grde", "grade"), 1u);
  EXPECT_EQ(edit_distance("lsit", "list"), 1u) << "two neighbours swapped";
  EXPECT_EQ(edit_distance("", "list"), 4u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
}

TEST(CommandSuggestion, NamesTheNearestCommandOnlyWhenNear) {
  const std::vector<std::string> names{"list", "check", "grade", "batch", "submit", "release"};
  EXPECT_EQ(closest_name("grde", names), "grade");
  EXPECT_EQ(closest_name("chekc", names), "check");
  EXPECT_EQ(closest_name("lsit", names), "list");
  EXPECT_EQ(closest_name("relase", names), "release");
  EXPECT_EQ(closest_name("frobnicate", names), std::nullopt);
  EXPECT_EQ(closest_name("xy", names), std::nullopt);
}

TEST(CommandSuggestion, FindsTheCommandAfterTheProgramsOwnOptions) {
  CLI::App app{"sample", "labgrade"};
  std::string root;
  app.add_option("--root", root, "a folder");
  app.add_subcommand("grade", "grade");
  app.add_subcommand("list", "list");
  EXPECT_EQ(unknown_command_message(app, {"grade", "01_vector_add"}), std::nullopt);
  EXPECT_EQ(unknown_command_message(app, {"--root", "grde", "grade"}), std::nullopt) << "grde is --root's value";
  EXPECT_EQ(unknown_command_message(app, {}), std::nullopt) << "CLI11 says a command is required";
  EXPECT_EQ(unknown_command_message(app, {"--help"}), std::nullopt);
  const auto mistyped = unknown_command_message(app, {"--root=/tmp", "grde", "01_vector_add"});
  ASSERT_TRUE(mistyped);
  EXPECT_CONTAINS(*mistyped, "'grde' is not a command; did you mean 'grade'?");
  EXPECT_CONTAINS(*mistyped, "The commands are: grade, list");
  const auto unknown = unknown_command_message(app, {"frobnicate"});
  ASSERT_TRUE(unknown);
  EXPECT_CONTAINS(*unknown, "'frobnicate' is not a command.");
  EXPECT_EQ(unknown->find("did you mean"), std::string::npos);
}

TEST(CommandSuggestion, AcceptsButNeverNamesAnInternalCommand) {
  CLI::App app{"sample", "labgrade"};
  app.add_subcommand("grade", "grade");
  app.add_subcommand("device-check", "")->group("");  // internal: no help group
  EXPECT_EQ(unknown_command_message(app, {"device-check"}), std::nullopt);
  const auto near_internal = unknown_command_message(app, {"device-chek"});
  ASSERT_TRUE(near_internal);
  EXPECT_EQ(near_internal->find("device-check"), std::string::npos) << *near_internal;
  EXPECT_CONTAINS(*near_internal, "The commands are: grade (");
}

TEST(HelpFormatter, ShowsPlaceholdersWithoutTypeNotes) {
  CLI::App app{"A course tool", "labgrade"};
  app.formatter(std::make_shared<HelpFormatter>());
  std::string lab, submission, out;
  std::vector<std::string> formats;
  bool keep = false;
  auto* grade = app.add_subcommand("grade", "Grade a submission");
  grade->add_option("lab", lab, "Lab id")->required();
  grade->add_option("--submission,-s", submission, "The submission")->required()->check(CLI::ExistingPath)
      ->type_name("PATH");
  grade->add_option("--out", out, "Where to write")->check(CLI::ExistingDirectory);
  grade->add_option("--format", formats, "Formats")->check(CLI::IsMember({"text", "json"}));
  grade->add_flag("--keep", keep, std::string(200, 'w') + " " + std::string(3, 'x'));
  const std::string help = grade->help("labgrade");  // as CLI11 calls it for `labgrade grade --help`
  EXPECT_CONTAINS(help, "Usage: labgrade grade [OPTIONS] lab");
  EXPECT_CONTAINS(help, "-s,--submission PATH (required)");
  EXPECT_CONTAINS(help, "--out DIR ") << "an existing directory reads as DIR, not as the option's name";
  EXPECT_CONTAINS(help, "--format FORMAT ...");
  for (const char* noise : {"TEXT", "(existing)", "REQUIRED", "{text,json}", "--keep KEEP"}) {
    EXPECT_EQ(help.find(noise), std::string::npos) << noise << " in:\n" << help;
  }
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("www") == std::string::npos) {
      EXPECT_LE(line.size(), 90u) << line;
    }
  }
}

TEST(HelpFormatter, PlaceholdersReadAsWords) {
  CLI::App app{"A course tool", "labgrade"};
  app.formatter(std::make_shared<HelpFormatter>());
  std::string collect, only, work_dir;
  auto* batch = app.add_subcommand("batch", "Grade a class");
  batch->add_option("--collect", collect, "Finish there")->check(CLI::ExistingDirectory);
  batch->add_option("--only", only, "These students")->check(CLI::ExistingFile);
  batch->add_option("--work-dir", work_dir, "Work there");
  const std::string help = batch->help("labgrade");
  EXPECT_CONTAINS(help, "--collect DIR ");
  EXPECT_CONTAINS(help, "--only FILE ");
  EXPECT_CONTAINS(help, "--work-dir WORK_DIR ");
  EXPECT_EQ(help.find("COLLECT"), std::string::npos) << help;
}

TEST(FailureMessage, CarriesTheProgramsPrefix) {
  CLI::App app{"A course tool", "labgrade"};
  app.failure_message(failure_message);
  int jobs = 0;
  app.add_option("--jobs", jobs, "How many");
  try {
    app.parse(std::string("--jobs"), false);  // its value missing
    ADD_FAILURE() << "parsed";
  } catch (const CLI::ParseError& error) {
    std::ostringstream out, err;
    app.exit(error, out, err);
    EXPECT_EQ(err.str().rfind("labgrade: ", 0), 0u) << err.str();
    EXPECT_CONTAINS(err.str(), "--jobs");
    EXPECT_CONTAINS(err.str(), "Run with --help for more information.");
  }
}

// Issue 30: a YAML with an unclosed '{' was reported lines later as "illegal block entry", with no
// hint of the brace.
TEST(YamlSyntax, AnUnclosedBraceIsNamedWhereItOpens) {
  const fs::path file = fs::path(::testing::TempDir()) / "unclosed_brace.yaml";
  std::ofstream(file) << "lab: 01_vector_add   # {a brace in a comment does not count}\n"
                         "title: \"Vector {add}\"\n"
                         "total_points: 10\n"
                         "tests:\n"
                         "  - {name: VectorAdd.Small, points: 5\n"
                         "  - name: VectorAdd.Large\n"
                         "    points: 5\n";
  try {
    cudalabs::config::load_lab_config(file);
    ADD_FAILURE() << "loaded";
  } catch (const std::exception& error) {
    EXPECT_CONTAINS(error.what(), "YAML syntax error");
    EXPECT_CONTAINS(error.what(), "line 5 opens a '{' that is never closed; close it with '}' on that line");
  }
  // A file whose braces are all closed gets no such hint.
  std::ofstream(file) << "lab: 01_vector_add\ntests:\n  - {name: A.B, points: 5}\n  - name: [x\n";
  try {
    cudalabs::config::load_lab_config(file);
    ADD_FAILURE() << "loaded";
  } catch (const std::exception& error) {
    EXPECT_EQ(std::string(error.what()).find("opens a '{'"), std::string::npos) << error.what();
  }
}

TEST(Wrap, BreaksAtSpacesAndKeepsLineFeeds) {
  EXPECT_EQ(wrap("one two three four", 9), "one two\nthree\nfour");
  EXPECT_EQ(wrap("first\nsecond line here", 11), "first\nsecond line\nhere");
  EXPECT_EQ(wrap("averyveryverylongword x", 5), "averyveryverylongword\nx");
}

TEST(DisplayWidth, CountsColumnsNotBytes) {
  EXPECT_EQ(display_width("abc"), 3u);
  EXPECT_EQ(display_width("Ünïcødé"), 7u);
  EXPECT_EQ(display_width("e\xCC\x81"), 1u) << "e and a combining acute";
  EXPECT_EQ(display_width("\xE8\xA1\x8C\xE5\x88\x97"), 4u) << "two CJK ideographs";
  EXPECT_EQ(fit_to_width("abc", 5), "abc  ");
  EXPECT_EQ(fit_to_width("Ünïcødé title", 8), "Ünïcødé\xE2\x80\xA6");
  EXPECT_EQ(display_width(fit_to_width("\xE8\xA1\x8C\xE5\x88\x97\xE5\x88\x97", 4)), 4u) << "a wide character is never cut in half";
}

// A course tree with course.yaml and three labs: one fine, one with a long title, one broken.
class LabList : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = fs::path(::testing::TempDir()) /
            ("lab_list_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(root_);
    fs::create_directories(root_ / "config" / "labs");
    fs::copy_file(fs::path(CUDALABS_SOURCE_DIR) / "config" / "course.yaml", root_ / "config" / "course.yaml");
    std::ifstream in(fs::path(CUDALABS_SOURCE_DIR) / "config" / "labs" / "01_vector_add.yaml");
    yaml_ = std::string(std::istreambuf_iterator<char>(in), {});
    write("01_vector_add", yaml_);
  }
  void TearDown() override { fs::remove_all(root_); }
  void write(const std::string& id, const std::string& text) {
    std::ofstream(root_ / "config" / "labs" / (id + ".yaml")) << text;
  }
  // Lab 01's YAML under another id and title.
  std::string renamed(const std::string& id, const std::string& title) const {
    std::string text = std::regex_replace(yaml_, std::regex("\nlab: 01_vector_add\n"), "\nlab: " + id + "\n");
    return std::regex_replace(text, std::regex("\ntitle: [^\n]*\n"), "\ntitle: " + title + "\n");
  }
  int list(std::string* out, std::string* errors) const {
    std::ostringstream out_stream, error_stream;
    const int code = list_labs(CoursePaths{root_, root_}, out_stream, error_stream);
    *out = out_stream.str();
    *errors = error_stream.str();
    return code;
  }
  fs::path root_;
  std::string yaml_;
};

TEST_F(LabList, KeepsItsColumnsWithALongTitle) {
  write("02_long", renamed("02_long", "A very long title that goes on and on about shared-memory tiles and banks"));
  std::string out, errors;
  ASSERT_EQ(list(&out, &errors), 0) << errors;
  std::vector<std::string> lines;
  std::istringstream stream(out);
  for (std::string line; std::getline(stream, line);) {
    if (line.find(" points") != std::string::npos) lines.push_back(line);
  }
  ASSERT_EQ(lines.size(), 2u) << out;
  EXPECT_EQ(display_width(lines[0]), display_width(lines[1])) << out;
  EXPECT_CONTAINS(lines[1], "\xE2\x80\xA6");
  EXPECT_CONTAINS(lines[0], "Vector addition and SAXPY");
}

TEST_F(LabList, ListsEveryGoodLabAndNamesEachBrokenOne) {
  write("02_broken", "lab: 02_broken\ntitle: [unclosed\n");
  write("03_also_fine", renamed("03_also_fine", "Also fine"));
  write("04_wrong_type", renamed("04_wrong_type", "Wrong type") + "total_points_typo: 3\n");
  std::string out, errors;
  EXPECT_EQ(list(&out, &errors), kConfigExitCode);
  EXPECT_CONTAINS(out, "01_vector_add");
  EXPECT_CONTAINS(out, "03_also_fine");
  EXPECT_EQ(out.find("02_broken"), std::string::npos);
  EXPECT_CONTAINS(errors, "2 labs are not listed");
  EXPECT_CONTAINS(errors, (root_ / "config" / "labs" / "02_broken.yaml").string() + ":3");
  EXPECT_CONTAINS(errors, (root_ / "config" / "labs" / "04_wrong_type.yaml").string() + ":");
}

}  // namespace
}  // namespace labgrade::cli
