#include "cudalabs/lab_settings.hpp"

#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "cudalabs/config/lab_config.hpp"

namespace cudalabs {
namespace {

const config::LabConfig& cached_lab_config(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, config::LabConfig> loaded;
  std::lock_guard<std::mutex> lock(mutex);
  auto found = loaded.find(path);
  if (found == loaded.end()) found = loaded.emplace(path, config::load_lab_config(path)).first;
  return found->second;
}

}  // namespace

Tolerance lab_tolerance_in(const char* default_config, std::string_view name) {
  const char* from_env = std::getenv("CUDALABS_LAB_CONFIG");
  const std::string path = (from_env && *from_env) ? from_env : default_config;
  const config::LabConfig& lab = cached_lab_config(path);
  const auto found = lab.tolerances.find(std::string(name));
  if (found == lab.tolerances.end()) {
    throw std::runtime_error(fmt::format(
        "{}: the suite asks for tolerance '{}', but `tolerances:` has no such entry", path, name));
  }
  return Tolerance{found->second.abs, found->second.rel};
}

}  // namespace cudalabs
