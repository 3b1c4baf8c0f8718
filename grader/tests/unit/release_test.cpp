// The student release's pieces, host-only: the public copy of a lab's YAML, the timing preview
// the release's README names, `submit`'s archive, and `check`'s next steps.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <gtest/gtest.h>

#include "cudalabs/course/lab_config.hpp"
#include "release/next_steps.hpp"
#include "release/todo_scan.hpp"
#include "release/public_lab_config.hpp"
#include "release/student_readme.hpp"
#include "release/submission_archive.hpp"
#include "sandbox/child_process.hpp"
#include "stage/staging.hpp"

namespace labgrade {
namespace {
namespace fs = std::filesystem;
namespace config = cudalabs::config;

const fs::path kRoot = CUDALABS_SOURCE_DIR;

// A fresh directory per test, so parallel runs never share files.
class ScratchTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "labgrade-release-test-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

void write(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream(file) << text;
}

class PublicLabYaml : public ScratchTest {
 protected:
  config::LabConfig released(const std::string& lab) {
    const std::string text = public_lab_yaml(kRoot / "config" / "labs" / (lab + ".yaml"));
    write(dir_ / (lab + ".yaml"), text);
    return config::load_lab_config(dir_ / (lab + ".yaml"));
  }
};

TEST_F(PublicLabYaml, KeepsThePublicEntriesAndWithholdsTheHiddenPoints) {
  const config::LabConfig lab = released("01_vector_add");
  ASSERT_TRUE(lab.withheld_points);
  EXPECT_DOUBLE_EQ(*lab.withheld_points, 80);  // every timed case of lab 01 is hidden
  EXPECT_DOUBLE_EQ(lab.total_points, 100);
  ASSERT_EQ(lab.tests.size(), 4u);
  for (const auto& test : lab.tests) EXPECT_EQ(test.visibility, config::Visibility::Public) << test.name;
  // Its timed cases are hidden; what the release keeps of `performance:` is the two previews.
  ASSERT_EQ(lab.performance.size(), 2u);
  for (const auto& spec : lab.performance) {
    EXPECT_TRUE(spec.preview) << spec.name;
    EXPECT_EQ(spec.points, 0) << spec.name;
  }
  EXPECT_EQ(lab.student_files, std::vector<std::string>{"vector_add.cu"});
  EXPECT_EQ(lab.tolerances.size(), 2u);
}

TEST_F(PublicLabYaml, LeavesOutHiddenNamesAndComments) {
  const std::string text = public_lab_yaml(kRoot / "config" / "labs" / "01_vector_add.yaml");
  for (const char* hidden : {"VectorAdd.", "Saxpy.", "vector_add_2to26", "max_ratio_to_solution", "Calibrated",
                             "visibility: hidden"}) {
    EXPECT_EQ(text.find(hidden), std::string::npos) << hidden << " in:\n" << text;
  }
}

TEST_F(PublicLabYaml, CarriesThePreviewThresholdsAndNoHiddenOne) {
  const std::string text = public_lab_yaml(kRoot / "config" / "labs" / "01_vector_add.yaml");
  // The hidden cases' ratio threshold, partial credit and names stay behind ...
  for (const char* hidden : {"max_ratio_to_solution", "zero_at", "partial_credit", "vector_add_2to26", "saxpy_2to26"}) {
    EXPECT_EQ(text.find(hidden), std::string::npos) << hidden << " in:\n" << text;
  }
  // ... while each preview's threshold comes along, exactly as the instructor's file has it.
  const config::LabConfig instructor = config::load_lab_config(kRoot / "config" / "labs" / "01_vector_add.yaml");
  const config::LabConfig lab = released("01_vector_add");
  for (const char* name : {"Preview.vector_add", "Preview.saxpy"}) {
    const config::PerformanceSpec* spec = lab.find_performance_test(name);
    const config::PerformanceSpec* original = instructor.find_performance_test(name);
    ASSERT_NE(spec, nullptr) << name << " is not in:\n" << text;
    ASSERT_NE(original, nullptr) << name;
    EXPECT_TRUE(spec->preview);
    EXPECT_EQ(spec->visibility, config::Visibility::Public);
    EXPECT_EQ(spec->threshold.kind, config::ThresholdKind::MinFractionOfPeakBandwidth);
    EXPECT_DOUBLE_EQ(spec->threshold.value, original->threshold.value);
    EXPECT_DOUBLE_EQ(spec->threshold.value, 0.85);
  }
  EXPECT_NE(text.find("preview: true"), std::string::npos) << text;
}

TEST_F(PublicLabYaml, SanitizerSkipKeepsOnlyPublicTests) {
  // Lab 03 leaves its two hidden full-size tests out of the sanitizer pass; the release names neither.
  const std::string text = public_lab_yaml(kRoot / "config" / "labs" / "03_matmul.yaml");
  EXPECT_EQ(text.find("Largest4096"), std::string::npos) << text;
  EXPECT_EQ(text.find("skip"), std::string::npos) << text;
  EXPECT_TRUE(released("03_matmul").sanitizer.skip.empty());
}

TEST_F(PublicLabYaml, EveryLabHasAValidReleaseCopy) {
  for (const auto& entry : fs::directory_iterator(kRoot / "config" / "labs")) {
    SCOPED_TRACE(entry.path().string());
    const config::LabConfig lab = released(entry.path().stem().string());
    for (const auto& spec : lab.performance) EXPECT_EQ(spec.visibility, config::Visibility::Public);
    // The reference's benchmark targets stay behind (lab 09's names a hidden case).
    EXPECT_TRUE(lab.reference_targets.empty());
  }
}

TEST_F(PublicLabYaml, TimingPreviewSaysWhichPerLab) {
  // Lab 01 previews both timed cases against the copy bandwidth, lab 03 matmul_tiled against the
  // FP32 peak, lab 09 its pipeline against its stages; a lab without a public timed entry has none.
  EXPECT_EQ(timing_preview(released("01_vector_add")),
            "device-relative: `Preview.vector_add`: your code alone, at least 85% of your GPU's copy bandwidth, "
            "measured in the same run (a preview, no points); `Preview.saxpy`: your code alone, at least 85% of "
            "your GPU's copy bandwidth, measured in the same run (a preview, no points)");
  config::LabConfig matmul = released("03_matmul");
  EXPECT_EQ(timing_preview(matmul),
            "device-relative: `Preview.matmul_tiled`: your code alone, at least 31% of your GPU's peak arithmetic "
            "rate (a preview, no points)");
  // Lab 09's pipeline against the slowest of its own stages (the copies and the student's kernel).
  EXPECT_EQ(timing_preview(released("09_streams")),
            "device-relative: `Preview.pipelined_4streams`: your whole pipeline, at most 1.15x the slowest of its "
            "stages (the copies and your own kernel) timed alone in the same run (a preview, no points)");
  matmul.performance.clear();
  EXPECT_EQ(timing_preview(matmul).rfind("none:", 0), 0u);
}

TEST_F(PublicLabYaml, ReadmeTableReplacesTheMarker) {
  const std::string readme = student_readme("# Title\n@LABS@\nafter\n", {released("01_vector_add")});
  EXPECT_NE(readme.find("| `01_vector_add` | Vector addition and SAXPY | 20 of 100 |"), std::string::npos) << readme;
  EXPECT_NE(readme.find("\nafter\n"), std::string::npos);
  EXPECT_THROW(student_readme("no marker\n", {}), std::runtime_error);
}

class Submit : public ScratchTest {
 protected:
  CoursePaths paths() const { return CoursePaths{kRoot, kRoot / "build"}; }
  std::string listing(const fs::path& archive) {
    ProcessSpec spec;
    spec.argv = {"tar", "-tzf", archive.string()};
    return run_process(spec).output;
  }
};

TEST_F(Submit, PacksExactlyTheStudentFilesAndPrintsTheirChecksum) {
  write(dir_ / "work" / "vector_add.cu", "// mine\n");
  write(dir_ / "work" / "notes.txt", "not part of it\n");
  const SubmissionArchive packed = pack_submission(paths(), {"01_vector_add", dir_ / "work", dir_ / "out.tar.gz"});
  EXPECT_EQ(packed.archive, dir_ / "out.tar.gz");
  EXPECT_EQ(listing(packed.archive), "vector_add.cu\n");
  EXPECT_EQ(packed.sha256.size(), 64u);
  // The same files give the same archive, byte for byte.
  const SubmissionArchive again = pack_submission(paths(), {"01_vector_add", dir_ / "work", dir_ / "again.tar.gz"});
  EXPECT_EQ(again.sha256, packed.sha256);
}

// The archive is written whatever it holds, but the student hears what a grade would find.
TEST_F(Submit, WarnsAboutTodosAndCodeThatDoesNotCompile) {
  const CoursePaths built{kRoot, CUDALABS_BINARY_DIR};
  fs::create_directories(dir_ / "skeleton");
  fs::copy_file(kRoot / "labs" / "01_vector_add" / "vector_add.cu", dir_ / "skeleton" / "vector_add.cu");
  const SubmissionArchive skeleton = pack_submission(built, {"01_vector_add", dir_ / "skeleton", dir_ / "s.tar.gz"});
  EXPECT_TRUE(fs::exists(dir_ / "s.tar.gz"));
  ASSERT_EQ(skeleton.warnings.size(), 1u) << fmt::format("{}", fmt::join(skeleton.warnings, "\n"));
  EXPECT_NE(skeleton.warnings[0].find("TODO(student): vector_add_kernel, saxpy_kernel, vector_add, saxpy"),
            std::string::npos)
      << skeleton.warnings[0];

  write(dir_ / "broken" / "vector_add.cu", "#include \"vector_add.cuh\"\nint x = ;\n");
  const SubmissionArchive broken = pack_submission(built, {"01_vector_add", dir_ / "broken", dir_ / "b.tar.gz"});
  ASSERT_EQ(broken.warnings.size(), 1u);
  if (broken.warnings[0].find("no nvcc") == std::string::npos) {
    EXPECT_NE(broken.warnings[0].find("does not compile, so a grade of it is 0: vector_add.cu(2): error"),
              std::string::npos)
        << broken.warnings[0];
  }

  fs::create_directories(dir_ / "done");
  fs::copy_file(kRoot / "solutions" / "01_vector_add" / "vector_add.cu", dir_ / "done" / "vector_add.cu");
  EXPECT_TRUE(pack_submission(built, {"01_vector_add", dir_ / "done", dir_ / "d.tar.gz"}).warnings.empty());
}

TEST_F(Submit, NeverOverwrites) {
  write(dir_ / "work" / "vector_add.cu", "// mine\n");
  write(dir_ / "out.tar.gz", "precious");
  EXPECT_THROW(pack_submission(paths(), {"01_vector_add", dir_ / "work", dir_ / "out.tar.gz"}), UsageError);
  std::ifstream in(dir_ / "out.tar.gz");
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), "precious");
}

TEST_F(Submit, RefusesAMissingFileAndAnUnknownLabAndOtherNames) {
  fs::create_directories(dir_ / "empty");
  EXPECT_THROW(pack_submission(paths(), {"01_vector_add", dir_ / "empty", dir_ / "a.tar.gz"}), SubmissionError);
  EXPECT_FALSE(fs::exists(dir_ / "a.tar.gz"));
  EXPECT_THROW(pack_submission(paths(), {"99_nope", dir_ / "empty", dir_ / "a.tar.gz"}), UsageError);
  EXPECT_THROW(pack_submission(paths(), {"01_vector_add", dir_ / "empty", dir_ / "a.zip"}), UsageError);
}

class NextSteps : public ScratchTest {};

GradeResult failed_check(std::vector<std::string> messages) {
  GradeResult result;
  result.lab = "01_vector_add";
  result.status = RunStatus::TestsFailed;
  for (auto& message : messages) {
    ScoredTest test;
    test.outcome.status = TestStatus::Failed;
    test.outcome.message = std::move(message);
    result.tests.push_back(std::move(test));
  }
  return result;
}

TEST_F(NextSteps, NamesEachUnfinishedTodoOnceInOrder) {
  const GradeResult result = failed_check(
      {"Value of: ...\nvector_add(n = 1000) is still a TODO(student): it returned cudaErrorNotYetImplemented",
       "vector_add(n = 0) is still a TODO(student): it returned cudaErrorNotYetImplemented",
       "saxpy(n = 1000) is still a TODO(student): it returned cudaErrorNotYetImplemented", "12 elements differ"});
  EXPECT_EQ(unfinished_todos(result), (std::vector<std::string>{"vector_add", "saxpy"}));
}

TEST_F(NextSteps, PointsToTheHandoutStepOfTheFirstTodo) {
  write(dir_ / "README.md", "# Lab\n## Steps\n\n1. In `vector_add_kernel`, compute i.\n2. Do `saxpy`.\n## Hints\n");
  const GradeResult result = failed_check({"saxpy(n = 3) is still a TODO(student): no"});
  const std::string text = next_steps(result, dir_ / "README.md");
  EXPECT_NE(text.find("Still TODO(student): saxpy"), std::string::npos) << text;
  EXPECT_NE(text.find("2. Do `saxpy`."), std::string::npos) << text;
}

TEST_F(NextSteps, SaysWhatToDoForEveryOtherEnd) {
  GradeResult result = failed_check({"12 elements differ"});
  EXPECT_NE(next_steps(result, dir_ / "README.md").find("'Hints'"), std::string::npos);
  result.status = RunStatus::Graded;
  EXPECT_NE(next_steps(result, dir_ / "README.md").find("labgrade submit 01_vector_add"), std::string::npos);
  result.status = RunStatus::NoCudaDevice;
  EXPECT_NE(next_steps(result, dir_ / "README.md").find("CUDA GPU"), std::string::npos);
}

// Without a GPU no test runs to find an unimplemented call: the source still says which are.
TEST_F(NextSteps, WithoutAGpuListsWhatTheSourceStillMarks) {
  write(dir_ / "README.md", "# Lab\n## Steps\n\n1. In `vector_add_kernel`, compute i.\n");
  GradeResult result = failed_check({});
  result.status = RunStatus::NoCudaDevice;
  const std::string text = next_steps(result, dir_ / "README.md", {"vector_add_kernel", "saxpy"});
  EXPECT_NE(text.find("CUDA GPU"), std::string::npos) << text;
  EXPECT_NE(text.find("Still TODO(student): vector_add_kernel, saxpy"), std::string::npos) << text;
  EXPECT_NE(text.find("1. In `vector_add_kernel`"), std::string::npos) << text;
  // With a GPU: what the tests found first, then what the source marks, each once.
  const GradeResult failed = failed_check({"saxpy(n = 3) is still a TODO(student): no"});
  const std::string both = next_steps(failed, dir_ / "README.md", {"vector_add_kernel", "saxpy"});
  EXPECT_NE(both.find("Still TODO(student): saxpy, vector_add_kernel\n"), std::string::npos) << both;
}

TEST(TodoScan, FindsTheFunctionsWhoseBodiesStillHoldTheMarker) {
  const std::string source = R"(#include "lab.cuh"
#define HELPER(x) { /* TODO(student) in a macro is not a function */ }
namespace LAB_IMPL {
// TODO(student) above a declaration: no function's
void declared_only(int);
// TODO(student), step 1: the comment above a definition is its function's.
void described_above() {}
__global__ void scale_kernel(float* data, std::size_t n) {
  if (n == 0) { return; }  // a block inside a function
  // TODO(student): scale
}
template <int kBlock>
__device__ float helper(const float* in) noexcept {
  const char* text = "TODO(student) in a string is not a marker";
  return in[0];
}
cudaError_t scale(float* data, std::size_t n,
                  cudaStream_t stream) {
  /* TODO(student):
     launch scale_kernel */
  auto lambda = [&]() { /* TODO(student) again */ };
  return cudaErrorNotYetImplemented;
}
struct Done { int value() const { return 1; } };
}  // namespace LAB_IMPL
)";
  EXPECT_EQ(functions_marked_todo(source), (std::vector<std::string>{"described_above", "scale_kernel", "scale"}));
  EXPECT_TRUE(functions_marked_todo("int f() { return 0; }\n").empty());
}

TEST(TodoScan, EveryLabSkeletonListsItsTodos) {
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(CUDALABS_SOURCE_DIR) / "labs")) {
    for (const auto& file : std::filesystem::directory_iterator(entry.path())) {
      const std::string name = file.path().filename().string();
      if (file.path().extension() != ".cu" || name.find("_test.cu") != std::string::npos) continue;
      std::ifstream in(file.path());
      const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
      EXPECT_FALSE(functions_marked_todo(text).empty()) << file.path() << " is a skeleton with TODO(student)s";
    }
  }
  std::ifstream in(std::filesystem::path(CUDALABS_SOURCE_DIR) / "solutions" / "01_vector_add" / "vector_add.cu");
  const std::string solution((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_TRUE(functions_marked_todo(solution).empty());
}

}  // namespace
}  // namespace labgrade
