#include "config_files.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <string>

namespace cudalabs {
namespace {

std::string chosen_path(const char* variable, const char* default_path) {
  const char* from_env = std::getenv(variable);
  return (from_env && *from_env) ? from_env : default_path;
}

template <typename Config, typename Load>
const Config& cached(const std::string& path, Load load) {
  static std::mutex mutex;
  static std::map<std::string, Config> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = loaded.find(path);
  if (found == loaded.end()) found = loaded.emplace(path, load(path)).first;
  return found->second;
}

}  // namespace

const config::LabConfig& lab_config_from(const char* default_path) {
  return cached<config::LabConfig>(chosen_path("CUDALABS_LAB_CONFIG", default_path),
                                   [](const std::string& path) { return config::load_lab_config(path); });
}

const config::CourseConfig& course_config_from(const char* default_path) {
  return cached<config::CourseConfig>(chosen_path("CUDALABS_COURSE_CONFIG", default_path),
                                      [](const std::string& path) { return config::load_course_config(path); });
}

}  // namespace cudalabs
