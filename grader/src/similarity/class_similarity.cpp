#include "similarity/class_similarity.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "similarity/authored_text.hpp"
#include "stage/scratch_folder.hpp"
#include "stage/staging.hpp"

namespace labgrade::similarity {
namespace fs = std::filesystem;
namespace {

constexpr std::size_t kFragmentsPerPair = 8;

// "vector_add.cu:12-40", or "a.cu:90-b.cu:7" for a run across two files.
std::string range_in(const AuthoredText& text, int first, int last) {
  const std::string start = text.where(first);
  const std::string end = text.where(last);
  const auto colon = end.rfind(':');
  if (colon != std::string::npos && start.compare(0, start.rfind(':'), end, 0, colon) == 0) {
    return start + "-" + end.substr(colon + 1);
  }
  return start + "-" + end;
}

std::vector<FragmentLine> lines_between(const AuthoredText& text, int first, int last) {
  std::vector<FragmentLine> out;
  for (int line = std::max(first, 1); line <= last && line <= static_cast<int>(text.lines.size()); ++line) {
    const auto i = static_cast<std::size_t>(line - 1);
    out.push_back({text.lines[i], text.given[i]});
  }
  return out;
}

struct Compared {
  std::string student;
  AuthoredText text;
  std::string file;  // its name in the tool's folder
};

}  // namespace

ClassSimilarity compare_class(const cudalabs::config::LabConfig& lab, const fs::path& skeleton_dir,
                              const std::vector<batch::BatchSubmission>& submissions, const SimilarityOptions& options) {
  ClassSimilarity result;
  result.lab = lab.id;
  result.min_percent = options.min_percent;
  const ScratchFolder scratch("labgrade-similarity");
  const fs::path texts = scratch.path() / "texts";
  fs::create_directories(texts);

  std::vector<Compared> compared;
  for (std::size_t i = 0; i < submissions.size(); ++i) {
    const batch::BatchSubmission& submission = submissions[i];
    try {
      const fs::path staged_dir = scratch.path() / "staged" / std::to_string(i);
      const StagedSubmission staged =
          stage_submission(submission.path, lab.student_files, staged_dir, options.max_file_bytes);
      if (staged.files.empty()) {
        result.not_compared.push_back(submission.student_id + ": none of the lab's student files was found");
        continue;
      }
      Compared entry{submission.student_id, authored_text(staged.files, skeleton_dir, options.diff_program),
                     fmt::format("s{:05}.cu", i)};
      std::ofstream(texts / entry.file, std::ios::binary) << entry.text.compared;
      compared.push_back(std::move(entry));
    } catch (const SubmissionError& error) {
      result.not_compared.push_back(submission.student_id + ": " + error.what());
    }
  }
  result.compared = compared.size();
  if (compared.size() < 2) {
    result.problem = "fewer than two submissions had student files to compare";
    return result;
  }

  std::map<std::string, std::size_t> index_of;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < compared.size(); ++i) {
    index_of[compared[i].file] = i;
    names.push_back(compared[i].file);
  }
  std::vector<Share> shares;
  const SimOutcome outcome = options.tool.shares(texts, names, options.min_percent, shares);
  if (!outcome.problem.empty()) {
    result.problem = outcome.problem;
    result.tool_missing = outcome.missing;
    return result;
  }

  std::map<std::pair<std::size_t, std::size_t>, SimilarPair> pairs;
  for (const Share& share : shares) {
    const auto a = index_of.find(share.file);
    const auto b = index_of.find(share.other);
    if (a == index_of.end() || b == index_of.end() || a->second == b->second) continue;
    const std::size_t low = std::min(a->second, b->second);
    const std::size_t high = std::max(a->second, b->second);
    SimilarPair& pair = pairs[{low, high}];
    pair.student = compared[low].student;
    pair.other = compared[high].student;
    (a->second == low ? pair.student_in_other : pair.other_in_student) = share.percent;
  }
  std::vector<std::pair<std::size_t, std::size_t>> order;
  for (const auto& [key, pair] : pairs) order.push_back(key);
  std::stable_sort(order.begin(), order.end(), [&](const auto& x, const auto& y) {
    return pairs[x].score() > pairs[y].score();
  });

  for (std::size_t rank = 0; rank < order.size(); ++rank) {
    const auto [low, high] = order[rank];
    SimilarPair pair = pairs[order[rank]];
    if (rank < options.top_pairs) {
      std::vector<Run> runs;
      const SimOutcome matched = options.tool.runs(texts, compared[low].file, compared[high].file, runs);
      if (!matched.problem.empty()) {
        result.problem = matched.problem;
      }
      std::sort(runs.begin(), runs.end(), [](const Run& x, const Run& y) { return x.tokens > y.tokens; });
      for (const Run& run : runs) {
        if (pair.fragments.size() >= kFragmentsPerPair) break;
        const bool straight = run.file == compared[low].file;
        const int first = straight ? run.first : run.other_first;
        const int last = straight ? run.last : run.other_last;
        const int other_first = straight ? run.other_first : run.first;
        const int other_last = straight ? run.other_last : run.last;
        pair.fragments.push_back({range_in(compared[low].text, first, last),
                                  range_in(compared[high].text, other_first, other_last),
                                  lines_between(compared[low].text, first, last),
                                  lines_between(compared[high].text, other_first, other_last), run.tokens});
      }
    }
    result.pairs.push_back(std::move(pair));
  }
  return result;
}

}  // namespace labgrade::similarity
