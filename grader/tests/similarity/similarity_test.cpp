#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "../cli/labgrade_runner.hpp"
#include "similarity/authored_text.hpp"
#include "similarity/sim_tool.hpp"

namespace labgrade::similarity {
namespace {
namespace fs = std::filesystem;

bool sim_installed() { return std::system("command -v sim_c++ >/dev/null 2>&1") == 0; }

#define REQUIRE_SIM() \
  if (!sim_installed()) GTEST_SKIP() << "sim_c++ is not installed (Debian/Ubuntu: apt-get install similarity-tester)"

std::string read(const fs::path& file) {
  std::ifstream in(file);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / ("similarity_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

fs::path fixture(const std::string& name) { return fs::path(LABGRADE_TEST_SUBMISSIONS) / "01_vector_add" / name; }
fs::path solution() { return fs::path(CUDALABS_SOURCE_DIR) / "solutions" / "01_vector_add"; }
fs::path skeleton() { return fs::path(CUDALABS_SOURCE_DIR) / "labs" / "01_vector_add"; }

// The reference solution with its names changed: what a student who copied it would hand in.
void renamed_copy(const fs::path& to, const std::vector<std::pair<std::string, std::string>>& renames) {
  std::string text = read(solution() / "vector_add.cu");
  for (const auto& [from, name] : renames) text = std::regex_replace(text, std::regex("\\b" + from + "\\b"), name);
  fs::create_directories(to);
  std::ofstream(to / "vector_add.cu") << text;
}

// Fixtures that each wrote their own kernels, two renamed copies of the solution, and the untouched
// skeleton twice.
fs::path class_folder(const std::string& name) {
  const fs::path dir = fresh_dir(name);
  for (const char* own : {"own_stream", "off_by_one", "missing_syncthreads", "cpu_compute", "writes_neighbours"}) {
    fs::copy(fixture(own), dir / own, fs::copy_options::recursive);
  }
  renamed_copy(dir / "copier_one", {{"n", "count"}, {"i", "index"}, {"stride", "step"}});
  renamed_copy(dir / "copier_two", {{"n", "length"}, {"i", "k"}, {"a", "left"}, {"b", "right"}});
  for (const char* untouched : {"skeleton_one", "skeleton_two"}) {
    fs::create_directories(dir / untouched);
    fs::copy_file(skeleton() / "vector_add.cu", dir / untouched / "vector_add.cu");
  }
  return dir;
}

std::vector<std::vector<std::string>> csv_rows(const fs::path& file) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(read(file));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::vector<std::string> cells;
    std::stringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

TEST(SimParsers, ReadSharesAndRunsAndSkipTheRest) {
  const auto shares = parse_shares("File s00001.cu: 1585 tokens, 179 lines\n\n"
                                   "s00001.cu consists for 100 % of s00002.cu material\n"
                                   "s00002.cu consists for 7 % of s00001.cu material\n");
  ASSERT_EQ(shares.size(), 2u);
  EXPECT_EQ(shares[0].file, "s00001.cu");
  EXPECT_EQ(shares[0].other, "s00002.cu");
  EXPECT_EQ(shares[0].percent, 100);
  EXPECT_EQ(shares[1].percent, 7);
  const auto runs = parse_runs("Total input: 2 files\n"
                               "s00001.cu: line 18-179                      |s00002.cu: line 20-181      [1585]\n");
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].first, 18);
  EXPECT_EQ(runs[0].last, 179);
  EXPECT_EQ(runs[0].other, "s00002.cu");
  EXPECT_EQ(runs[0].other_first, 20);
  EXPECT_EQ(runs[0].tokens, 1585);
}

TEST(AuthoredText, BlanksTheSkeletonsLinesAndKeepsLineNumbers) {
  const fs::path dir = fresh_dir("authored");
  std::string text = read(skeleton() / "vector_add.cu");
  const std::string added = "  float authored_by_the_student = 42.0f;\n";
  const auto cut = text.find('\n', text.size() / 2) + 1;
  text.insert(cut, added);
  std::ofstream(dir / "vector_add.cu") << text;
  const AuthoredText authored = authored_text({dir / "vector_add.cu"}, skeleton());
  ASSERT_EQ(authored.files.size(), 1u);
  EXPECT_EQ(static_cast<std::size_t>(authored.files[0].line_count), authored.lines.size());
  std::istringstream compared(authored.compared);
  std::size_t line_number = 0;
  std::size_t kept = 0;
  for (std::string line; std::getline(compared, line); ++line_number) {
    if (line.empty()) continue;
    ++kept;
    EXPECT_EQ(line + "\n", added) << "only the added line is the student's";
    EXPECT_EQ(authored.lines[line_number] + "\n", added) << "at its own line number";
    EXPECT_FALSE(authored.given[line_number]);
  }
  EXPECT_EQ(kept, 1u);
  EXPECT_EQ(line_number, authored.lines.size());
}

TEST(SimilarityCli, RanksRenamedCopiesFirstAndIgnoresTheSkeleton) {
  REQUIRE_SIM();
  const fs::path dir = class_folder("class");
  const fs::path out = fresh_dir("class_out");
  const auto run = cli::labgrade({"similarity", "01_vector_add", dir.string(), "--out", out.string()}, 300);
  ASSERT_EQ(run.process.exit_code, 0) << run.process.output;
  EXPECT_NE(run.process.output.find("most similar: copier_one and copier_two"), std::string::npos)
      << run.process.output;
  const auto rows = csv_rows(out / "similarity.csv");
  ASSERT_GE(rows.size(), 2u) << read(out / "similarity.csv");
  EXPECT_EQ(rows[0][0], "rank");
  EXPECT_EQ(rows[1][1], "copier_one");
  EXPECT_EQ(rows[1][2], "copier_two");
  EXPECT_GE(std::stoi(rows[1][3]), 90) << "renaming variables hides nothing";
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const bool both_skeletons = rows[i][1].rfind("skeleton_", 0) == 0 && rows[i][2].rfind("skeleton_", 0) == 0;
    EXPECT_FALSE(both_skeletons) << "two untouched skeletons share no authored code, yet ranked " << rows[i][3] << "%";
  }
  const std::string page = read(out / "similarity.html");
  EXPECT_NE(page.find("id=\"pair-1\""), std::string::npos);
  EXPECT_NE(page.find("&lt;&lt;&lt;"), std::string::npos) << "kernel launches are read and shown";
}

TEST(SimilarityCli, WithoutTheToolThePageSaysHowToGetIt) {
  const fs::path dir = class_folder("no_tool");
  const fs::path out = fresh_dir("no_tool_out");
  const auto run = cli::labgrade({"similarity", "01_vector_add", dir.string(), "--out", out.string(), "--sim",
                                  "/nonexistent/sim_c++"}, 300);
  EXPECT_EQ(run.process.exit_code, 7) << run.process.output;
  EXPECT_NE(run.process.output.find("apt-get install similarity-tester"), std::string::npos) << run.process.output;
  EXPECT_NE(read(out / "similarity.html").find("apt-get install similarity-tester"), std::string::npos);
  EXPECT_FALSE(fs::exists(out / "similarity.csv"));
}

TEST(SimilarityCli, UnknownLabIsAUsageError) {
  const auto run = cli::labgrade({"similarity", "99_nope", fresh_dir("unknown").string()}, 60);
  EXPECT_EQ(run.process.exit_code, 2) << run.process.output;
  EXPECT_NE(run.process.output.find("unknown lab '99_nope'"), std::string::npos) << run.process.output;
}

// The batch grades as usual (no GPU here: exit 5) and the similarity is beside its gradebook, in
// its summary too; a missing tool would not fail it either.
TEST(SimilarityCli, BatchAddsTheSectionToItsSummary) {
  REQUIRE_SIM();
  const fs::path dir = fresh_dir("batch_class");
  renamed_copy(dir / "copier_one", {{"n", "count"}});
  renamed_copy(dir / "copier_two", {{"i", "k"}});
  fs::copy(fixture("off_by_one"), dir / "off_by_one", fs::copy_options::recursive);
  const fs::path out = fresh_dir("batch_out");
  const auto run = cli::labgrade({"batch", "01_vector_add", dir.string(), "--out", out.string(), "--similarity"}, 900);
  EXPECT_TRUE(run.process.exit_code == 0 || run.process.exit_code == 5) << run.process.output;
  EXPECT_TRUE(fs::exists(out / "gradebook.csv"));
  EXPECT_TRUE(fs::exists(out / "similarity.csv"));
  const std::string summary = read(out / "summary.html");
  EXPECT_NE(summary.find("<h2>Similarity</h2>"), std::string::npos);
  EXPECT_NE(summary.find("similarity.html"), std::string::npos);
}

TEST(SimilarityCli, BatchWithoutTheToolStillGrades) {
  const fs::path dir = fresh_dir("batch_no_tool");
  renamed_copy(dir / "copier_one", {{"n", "count"}});
  fs::copy(fixture("off_by_one"), dir / "off_by_one", fs::copy_options::recursive);
  const fs::path out = fresh_dir("batch_no_tool_out");
  const auto run = cli::labgrade({"batch", "01_vector_add", dir.string(), "--out", out.string(), "--similarity",
                                  "--sim", "/nonexistent/sim_c++"}, 900);
  EXPECT_TRUE(run.process.exit_code == 0 || run.process.exit_code == 5) << run.process.output;
  EXPECT_TRUE(fs::exists(out / "gradebook.csv"));
  EXPECT_NE(read(out / "summary.html").find("similarity-tester"), std::string::npos);
}

}  // namespace
}  // namespace labgrade::similarity
