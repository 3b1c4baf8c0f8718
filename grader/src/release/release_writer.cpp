#include "release/release_writer.hpp"

#include <algorithm>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudalabs/course/lab_config.hpp"
#include "release/public_lab_config.hpp"
#include "release/release_contents.hpp"
#include "text/file_text.hpp"
#include "release/student_readme.hpp"

namespace labgrade {
namespace fs = std::filesystem;
namespace {

void write_file(const fs::path& file, const std::string& text) {
  fs::create_directories(file.parent_path());
  std::ofstream out(file, std::ios::binary);
  out << text;
  if (!out.flush()) throw std::runtime_error("cannot write " + file.string());
}

// Copies a file, or a folder's regular files (links and the like are left out: a release is
// plain files), recording each relative to `out`.
void copy_released(const fs::path& root, const fs::path& relative, const fs::path& out,
                   std::vector<fs::path>& written) {
  const fs::path from = root / relative;
  auto copy_one = [&](const fs::path& source, const fs::path& rel) {
    fs::create_directories((out / rel).parent_path());
    fs::copy_file(source, out / rel, fs::copy_options::none);
    written.push_back(rel);
  };
  if (fs::is_regular_file(fs::symlink_status(from))) return copy_one(from, relative);
  if (!fs::is_directory(fs::symlink_status(from))) {
    throw std::runtime_error(fmt::format("{} is missing from the course tree {}", relative.string(), root.string()));
  }
  const std::vector<fs::path> withheld = withheld_paths();
  for (auto entry = fs::recursive_directory_iterator(from); entry != fs::recursive_directory_iterator(); ++entry) {
    const fs::path rel = relative / entry->path().lexically_relative(from);
    if (std::find(withheld.begin(), withheld.end(), rel) != withheld.end()) {
      if (entry->is_directory()) entry.disable_recursion_pending();
      continue;
    }
    if (fs::is_regular_file(entry->symlink_status())) copy_one(entry->path(), rel);
  }
}

std::vector<std::string> chosen_labs(const CoursePaths& paths, const std::vector<std::string>& requested) {
  const std::vector<std::string> all = paths.lab_ids();
  if (requested.empty()) return all;
  std::vector<std::string> labs;
  for (const std::string& lab : requested) {
    if (std::find(all.begin(), all.end(), lab) == all.end()) {
      throw UsageError(fmt::format("unknown lab '{}'; the labs are: {}", lab, fmt::join(all, ", ")));
    }
    if (std::find(labs.begin(), labs.end(), lab) == labs.end()) labs.push_back(lab);
  }
  return labs;
}

}  // namespace

std::vector<fs::path> write_release(const CoursePaths& paths, const ReleaseRequest& request) {
  if (request.out.empty()) throw UsageError("--out: give the folder to write the release into");
  if (fs::exists(fs::symlink_status(request.out)) &&
      (!fs::is_directory(fs::symlink_status(request.out)) || !fs::is_empty(request.out))) {
    throw UsageError(fmt::format("--out {} exists and is not an empty folder; it is left as it is",
                                 request.out.string()));
  }
  const std::vector<std::string> labs = chosen_labs(paths, request.labs);
  // Every generated YAML is made, and checked, before anything is written.
  std::vector<std::string> lab_yaml;
  for (const std::string& lab : labs) lab_yaml.push_back(public_lab_yaml(paths.lab_config(lab)));

  const fs::path out = fs::absolute(request.out);
  fs::create_directories(out);
  std::vector<fs::path> written;
  for (const fs::path& relative : released_paths(labs)) copy_released(paths.root, relative, out, written);

  const fs::path templates = paths.root / kReleaseTemplateDir;
  write_file(out / "CMakeLists.txt", read_file_text(templates / "CMakeLists.txt"));
  written.emplace_back("CMakeLists.txt");

  std::vector<cudalabs::config::LabConfig> released;
  for (std::size_t i = 0; i < labs.size(); ++i) {
    const fs::path relative = fs::path("config") / "labs" / (labs[i] + ".yaml");
    write_file(out / relative, lab_yaml[i]);
    written.push_back(relative);
    released.push_back(cudalabs::config::load_lab_config(out / relative));  // the release must load what it ships
  }
  write_file(out / "README.md", student_readme(read_file_text(templates / "README.md"), released));
  written.emplace_back("README.md");
  // The release is meant to become the student's own repository: its build folder and packed
  // archives stay out of it.
  write_file(out / ".gitignore", read_file_text(templates / "gitignore"));
  written.emplace_back(".gitignore");

  std::sort(written.begin(), written.end());
  return written;
}

}  // namespace labgrade
