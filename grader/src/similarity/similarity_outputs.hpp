#pragma once
// What a class comparison (class_similarity.hpp) writes: similarity.csv (every listed pair,
// ranked), similarity.html (the ranking and the top pairs' matched fragments side by side, one
// self-contained page) and the section the batch's summary page shows.
#include <filesystem>
#include <string>

#include "similarity/class_similarity.hpp"

namespace labgrade::similarity {

std::string similarity_csv(const ClassSimilarity& similarity);
std::string similarity_page(const ClassSimilarity& similarity);
// For summary.html: the top pairs and a link to `page` (relative to the summary).
std::string similarity_section(const ClassSimilarity& similarity, const std::string& page);

struct WrittenSimilarity {
  std::filesystem::path csv;   // empty when there was nothing to rank
  std::filesystem::path page;
};
// Writes both into `out`; the page says why when there is no ranking (the tool missing, ...).
WrittenSimilarity write_similarity(const ClassSimilarity& similarity, const std::filesystem::path& out);

// One line for the terminal: "12 pairs at 20% or more of 31 submissions; top: alice and bob, 96%".
std::string similarity_summary_line(const ClassSimilarity& similarity);

}  // namespace labgrade::similarity
