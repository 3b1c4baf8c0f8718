#include "similarity/similarity_command.hpp"

#include <iostream>

#include <fmt/format.h>

#include "batch/submission_inventory.hpp"
#include "cudalabs/course/course_config.hpp"
#include "cudalabs/course/lab_config.hpp"
#include "model/exit_codes.hpp"
#include "similarity/similarity_outputs.hpp"

namespace labgrade::similarity {
namespace fs = std::filesystem;

void add_similarity_options(CLI::App& command, SimilarityCommand& options) {
  command.add_option("--min-similarity", options.min_percent, "List pairs from this similarity on, in percent (default 20)")
      ->check(CLI::Range(1, 100))
      ->type_name("PERCENT");
  command.add_option("--top-pairs", options.top_pairs, "Pairs shown with their matched fragments (default 10)")
      ->type_name("N");
  command.add_option("--sim", options.sim_program, "The similarity tester to run (default sim_c++, from the "
                                                   "similarity-tester package)")
      ->type_name("PROGRAM");
}

CLI::App* add_similarity_command(CLI::App& app, SimilarityCommand& command) {
  auto* similarity = app.add_subcommand(
      "similarity", "Rank the pairs of a class's submissions by how much code they share (the skeleton's lines left out)");
  similarity->add_option("lab", command.lab, "Lab id, e.g. 01_vector_add")->required();
  similarity->add_option("submissions", command.submissions,
                         "Folder of submissions, one folder or archive per student (as for batch)")
      ->required()
      ->type_name("DIR");
  similarity->add_option("--out,-o", command.out, "Output folder (default: ./<lab>-similarity)")->type_name("DIR");
  add_similarity_options(*similarity, command);
  return similarity;
}

ClassSimilarity compare_and_write(const CoursePaths& paths, const SimilarityCommand& command, const fs::path& out,
                                  std::ostream& log) {
  if (!fs::exists(paths.lab_config(command.lab))) throw UsageError("unknown lab '" + command.lab + "'");
  const auto lab = cudalabs::config::load_lab_config(paths.lab_config(command.lab));
  const auto course = cudalabs::config::load_course_config(paths.course_config());
  const batch::SubmissionInventory inventory = batch::find_submissions(command.submissions, out);
  SimilarityOptions options;
  options.tool.program = command.sim_program;
  options.min_percent = command.min_percent;
  options.top_pairs = command.top_pairs;
  options.max_file_bytes = course.max_source_bytes;
  const ClassSimilarity similarity = compare_class(lab, paths.lab_dir(command.lab), inventory.submissions, options);
  fs::create_directories(out);
  const WrittenSimilarity written = write_similarity(similarity, out);
  log << "labgrade similarity: " << similarity_summary_line(similarity) << "; " << written.page.string() << "\n";
  return similarity;
}

int run_similarity_command(const CoursePaths& paths, const SimilarityCommand& command) {
  const fs::path out = command.out.empty() ? fs::path(command.lab + "-similarity") : command.out;
  const ClassSimilarity similarity = compare_and_write(paths, command, out, std::cout);
  return similarity.problem.empty() || !similarity.pairs.empty() ? 0 : kInternalExitCode;
}

}  // namespace labgrade::similarity
