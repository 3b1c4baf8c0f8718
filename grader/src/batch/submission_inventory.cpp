#include "submission_inventory.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "stage/archive_extract.hpp"
#include "cudalabs/course/timestamp.hpp"
#include "session/grading_session.hpp"

namespace labgrade::batch {
namespace fs = std::filesystem;

namespace {

constexpr const char* kGradescopeMetadata = "submission_metadata.yml";

// The file name without an archive's extension: "alice.tar.gz" -> "alice".
std::string id_from_name(const fs::path& entry) {
  std::string name = entry.filename().string();
  std::string lower = name;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const std::string suffix : {".tar.gz", ".tgz", ".zip"}) {
    if (lower.size() > suffix.size() && lower.compare(lower.size() - suffix.size(), suffix.size(), suffix) == 0) {
      return name.substr(0, name.size() - suffix.size());
    }
  }
  return name;
}

struct GradescopeEntry {
  std::string student_id;
  std::string name;
  std::optional<std::int64_t> submitted_at;
};

[[noreturn]] void metadata_error(const fs::path& file, const YAML::Mark& mark, const std::string& message) {
  throw UsageError(fmt::format("{}:{}: {}", file.string(), mark.is_null() ? 0 : mark.line + 1, message));
}

std::string scalar_of(const YAML::Node& map, const char* key) {
  const YAML::Node value = map[key];
  return value && value.IsScalar() ? value.Scalar() : "";
}

// submission_metadata.yml: a map from each submission's folder name to {:submitters: [{:name,
// :sid, :email}, ...], :created_at: "2024-01-20 13:10:05.123456000 -08:00", ...}.
std::map<std::string, GradescopeEntry> read_gradescope_metadata(const fs::path& file) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::Exception& error) {
    metadata_error(file, error.mark, "not valid YAML: " + error.msg);
  }
  if (!root.IsMap()) metadata_error(file, root.Mark(), "expected a map from submission folders to their metadata");
  std::map<std::string, GradescopeEntry> entries;
  for (const auto& item : root) {
    const std::string folder = item.first.as<std::string>("");
    const YAML::Node& data = item.second;
    if (folder.empty() || !data.IsMap()) {
      metadata_error(file, item.first.Mark(), fmt::format("expected '{}' to map to its metadata (:submitters, "
                                                          ":created_at)", folder));
    }
    const YAML::Node submitters = data[":submitters"];
    if (!submitters || !submitters.IsSequence() || submitters.size() == 0) {
      metadata_error(file, item.first.Mark(), fmt::format("{}: expected a non-empty list :submitters", folder));
    }
    GradescopeEntry entry;
    for (const auto& submitter : submitters) {
      if (!submitter.IsMap()) metadata_error(file, submitter.Mark(), fmt::format("{}: expected each submitter "
                                                                                 "to be a map {{:name, :sid, :email}}",
                                                                                 folder));
      std::string id = scalar_of(submitter, ":sid");
      if (id.empty()) id = scalar_of(submitter, ":email");
      if (id.empty()) id = folder;
      entry.student_id += (entry.student_id.empty() ? "" : "+") + id;
      const std::string name = scalar_of(submitter, ":name");
      if (!name.empty()) entry.name += (entry.name.empty() ? "" : " & ") + name;
    }
    if (const YAML::Node created = data[":created_at"]; created) {
      const auto when = created.IsScalar() ? cudalabs::config::parse_timestamp(created.Scalar()) : std::nullopt;
      if (!when) {
        metadata_error(file, created.Mark(), fmt::format("{}: expected :created_at to be a time with its zone "
                                                         "(2024-01-20 13:10:05 -08:00), got '{}'",
                                                         folder, created.IsScalar() ? created.Scalar() : "a non-scalar"));
      }
      entry.submitted_at = when;
    }
    entries.emplace(folder, std::move(entry));
  }
  return entries;
}

}  // namespace

std::string file_name_for(const std::string& student_id) {
  std::string name = student_id.empty() ? "_" : student_id;
  for (char& c : name) {
    const bool safe = std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' || c == '@' ||
                      c == '+';
    if (!safe) c = '_';
  }
  if (name.front() == '.') name.front() = '_';
  return name;
}

SubmissionInventory find_submissions(const fs::path& folder, const fs::path& skip) {
  std::error_code error;
  if (!fs::is_directory(folder, error)) {
    throw UsageError(fmt::format("{} is not a folder of submissions", folder.string()));
  }
  SubmissionInventory inventory;
  std::map<std::string, GradescopeEntry> metadata;
  if (fs::exists(folder / kGradescopeMetadata)) {
    inventory.gradescope = true;
    metadata = read_gradescope_metadata(folder / kGradescopeMetadata);
  }
  const fs::path skipped = skip.empty() ? fs::path{} : fs::weakly_canonical(skip, error);
  std::vector<fs::path> entries;
  for (fs::directory_iterator it(folder, error), end; it != end; it.increment(error)) entries.push_back(it->path());
  if (error) throw UsageError(fmt::format("cannot list {}: {}", folder.string(), error.message()));
  std::sort(entries.begin(), entries.end());

  std::map<std::string, fs::path> seen;
  for (const fs::path& entry : entries) {
    const std::string file_name = entry.filename().string();
    if (file_name.front() == '.' || file_name == kGradescopeMetadata) continue;
    if (!skipped.empty() && fs::weakly_canonical(entry, error) == skipped) continue;
    const bool folder_entry = fs::is_directory(entry, error) && !fs::is_symlink(entry, error);
    const bool archive = fs::is_regular_file(entry, error) && is_archive(entry);
    if (!folder_entry && !archive) {
      inventory.ignored.push_back(file_name);
      continue;
    }
    BatchSubmission submission;
    submission.path = entry;
    submission.student_id = id_from_name(entry);
    if (const auto found = metadata.find(file_name); found != metadata.end()) {
      submission.student_id = found->second.student_id;
      submission.name = found->second.name;
      submission.submitted_at = found->second.submitted_at;
    }
    const auto [previous, inserted] = seen.emplace(submission.student_id, entry);
    if (!inserted) {
      throw UsageError(fmt::format("two submissions for student '{}': {} and {}; keep one", submission.student_id,
                                   previous->second.string(), entry.string()));
    }
    inventory.submissions.push_back(std::move(submission));
  }
  std::sort(inventory.submissions.begin(), inventory.submissions.end(),
            [](const BatchSubmission& a, const BatchSubmission& b) { return a.student_id < b.student_id; });
  return inventory;
}

}  // namespace labgrade::batch
