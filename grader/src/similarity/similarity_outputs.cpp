#include "similarity/similarity_outputs.hpp"

#include <fmt/format.h>

#include "batch/gradebook_csv.hpp"
#include "report/report_common.hpp"

namespace labgrade::similarity {
namespace {

constexpr const char* kStyle = R"(
body { font-family: system-ui, sans-serif; color: #222; margin: 24px auto; max-width: 1300px; padding: 0 16px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 8px; border-bottom: 1px solid #ddd; padding-bottom: 4px; }
table { border-collapse: collapse; }
th, td { text-align: left; padding: 3px 12px 3px 0; vertical-align: top; border-bottom: 1px solid #eee; }
th { border-bottom: 2px solid #ccc; }
.num { text-align: right; white-space: nowrap; }
.name { font-family: ui-monospace, monospace; word-break: break-all; }
.side { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; margin: 8px 0 18px; }
pre { background: #f6f8fa; padding: 8px; margin: 4px 0 0; overflow-x: auto; font-size: 12px; }
.note { color: #666; font-size: 13px; }
.given { color: #999; }
.problem { background: #fbeeee; border-left: 5px solid #c0392b; padding: 8px 12px; }
)";

std::string h(std::string_view text) { return markup_escape(text); }

// Lines of a fragment; the skeleton's in grey (they were left out of the comparison).
std::string code(const std::vector<FragmentLine>& lines) {
  std::string html;
  for (const FragmentLine& line : lines) {
    html += line.given ? "<span class=\"given\">" + h(line.text) + "</span>\n" : h(line.text) + "\n";
  }
  return html;
}

std::string not_compared_list(const ClassSimilarity& similarity) {
  if (similarity.not_compared.empty()) return "";
  std::string html = "<h2>Not compared</h2>\n<ul>\n";
  for (const std::string& why : similarity.not_compared) html += "<li class=\"name\">" + h(why) + "</li>\n";
  return html + "</ul>\n";
}

std::string ranking_rows(const ClassSimilarity& similarity, std::size_t limit, const std::string& link_base) {
  std::string html;
  for (std::size_t i = 0; i < similarity.pairs.size() && i < limit; ++i) {
    const SimilarPair& pair = similarity.pairs[i];
    const std::string rank = pair.fragments.empty() ? std::to_string(i + 1)
                                                   : fmt::format("<a href=\"{}#pair-{}\">{}</a>", h(link_base), i + 1, i + 1);
    html += fmt::format("<tr><td class=\"num\">{}</td><td class=\"name\">{}</td><td class=\"name\">{}</td>"
                        "<td class=\"num\">{}%</td><td class=\"num\">{}%</td><td class=\"num\">{}%</td></tr>\n",
                        rank, h(pair.student), h(pair.other), pair.score(), pair.student_in_other,
                        pair.other_in_student);
  }
  return html;
}

constexpr const char* kRankingHead =
    "<table>\n<tr><th>rank</th><th>student</th><th>other student</th><th>similarity</th>"
    "<th>of the first in the second</th><th>of the second in the first</th></tr>\n";

std::string method_note(const ClassSimilarity& similarity) {
  return fmt::format(
      "<p class=\"note\">{} submissions compared by sim_c++ (token runs, names abstracted) on what each student "
      "wrote: lines also in the lab's skeleton are left out (grey in the fragments). Pairs at {}% or more are listed. Similarity is evidence "
      "to look at, not a verdict.</p>\n",
      similarity.compared, similarity.min_percent);
}

}  // namespace

std::string similarity_csv(const ClassSimilarity& similarity) {
  std::string csv = "rank,student,other_student,similarity_percent,student_in_other_percent,other_in_student_percent\r\n";
  for (std::size_t i = 0; i < similarity.pairs.size(); ++i) {
    const SimilarPair& pair = similarity.pairs[i];
    csv += fmt::format("{},{},{},{},{},{}\r\n", i + 1, batch::csv_field(pair.student), batch::csv_field(pair.other),
                       pair.score(), pair.student_in_other, pair.other_in_student);
  }
  return csv;
}

std::string similarity_page(const ClassSimilarity& similarity) {
  std::string html = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"/>\n"
      "<title>Similarity in {}</title>\n<style>{}</style>\n</head>\n<body>\n<h1>Similarity in {}</h1>\n",
      h(similarity.lab), kStyle, h(similarity.lab));
  if (!similarity.problem.empty() && similarity.pairs.empty()) {
    html += "<p class=\"problem\">No ranking: " + h(similarity.problem) + "</p>\n";
    return html + not_compared_list(similarity) + "</body>\n</html>\n";
  }
  html += method_note(similarity);
  if (!similarity.problem.empty()) html += "<p class=\"problem\">" + h(similarity.problem) + "</p>\n";
  if (similarity.pairs.empty()) {
    html += "<p>No pair of submissions reaches the threshold.</p>\n";
  } else {
    html += std::string("<h2>Pairs, most similar first</h2>\n") + kRankingHead +
            ranking_rows(similarity, similarity.pairs.size(), "") + "</table>\n";
  }
  for (std::size_t i = 0; i < similarity.pairs.size(); ++i) {
    const SimilarPair& pair = similarity.pairs[i];
    if (pair.fragments.empty()) continue;
    html += fmt::format("<h2 id=\"pair-{}\">{}. {} and {}: {}%</h2>\n", i + 1, i + 1, h(pair.student), h(pair.other),
                        pair.score());
    for (const Fragment& fragment : pair.fragments) {
      html += fmt::format("<div class=\"side\"><div><span class=\"name\">{} {}</span> <span class=\"note\">"
                          "({} tokens)</span><pre>{}</pre></div><div><span class=\"name\">{} {}</span>"
                          "<pre>{}</pre></div></div>\n",
                          h(pair.student), h(fragment.where), fragment.tokens, code(fragment.lines), h(pair.other),
                          h(fragment.other_where), code(fragment.other_lines));
    }
  }
  return html + not_compared_list(similarity) + "</body>\n</html>\n";
}

std::string similarity_section(const ClassSimilarity& similarity, const std::string& page) {
  std::string html = "<section>\n<h2>Similarity</h2>\n";
  if (!similarity.problem.empty() && similarity.pairs.empty()) {
    return html + "<p class=\"note\">No ranking: " + h(similarity.problem) + "</p>\n</section>\n";
  }
  html += method_note(similarity);
  if (similarity.pairs.empty()) return html + "<p>No pair reaches the threshold.</p>\n</section>\n";
  html += std::string(kRankingHead) + ranking_rows(similarity, 10, page) + "</table>\n";
  return html + fmt::format("<p><a href=\"{}\">All {} pairs, with the matched fragments</a></p>\n</section>\n", h(page),
                            similarity.pairs.size());
}

WrittenSimilarity write_similarity(const ClassSimilarity& similarity, const std::filesystem::path& out) {
  WrittenSimilarity written;
  written.page = out / "similarity.html";
  write_report_file(written.page, similarity_page(similarity), "similarity page");
  if (similarity.problem.empty() || !similarity.pairs.empty()) {
    written.csv = out / "similarity.csv";
    write_report_file(written.csv, similarity_csv(similarity), "similarity ranking");
  }
  return written;
}

std::string similarity_summary_line(const ClassSimilarity& similarity) {
  if (!similarity.problem.empty() && similarity.pairs.empty()) return "no similarity ranking: " + similarity.problem;
  std::string line = fmt::format("{} pair{} at {}% or more among {} submissions", similarity.pairs.size(),
                                 similarity.pairs.size() == 1 ? "" : "s", similarity.min_percent, similarity.compared);
  if (!similarity.pairs.empty()) {
    const SimilarPair& top = similarity.pairs.front();
    line += fmt::format("; most similar: {} and {}, {}%", top.student, top.other, top.score());
  }
  return line;
}

}  // namespace labgrade::similarity
