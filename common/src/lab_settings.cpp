#include "cudalabs/lab_settings.hpp"

#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "config_files.hpp"

namespace cudalabs {

Tolerance lab_tolerance_in(const char* default_config, std::string_view name) {
  const config::LabConfig& lab = lab_config_from(default_config);
  const auto found = lab.tolerances.find(std::string(name));
  if (found == lab.tolerances.end()) {
    throw std::runtime_error(fmt::format(
        "{}: the suite asks for tolerance '{}', but `tolerances:` has no such entry", lab.source_path, name));
  }
  return Tolerance{found->second.abs, found->second.rel};
}

}  // namespace cudalabs
