#include "checks/kernel_requirements.hpp"

#include <fmt/format.h>

namespace labgrade {
namespace {

std::string without_template_arguments(const std::string& name) { return name.substr(0, name.find('<')); }

bool meets(const KernelResources& kernel, const std::string& uses) {
  if (uses == "shared_memory") return kernel.shared_bytes > 0;
  if (uses == "no_spills") return kernel.spill_store_bytes == 0 && kernel.spill_load_bytes == 0;
  return true;
}

std::string what(const std::string& uses) {
  return uses == "shared_memory" ? "uses no (static) shared memory" : "spills registers to local memory";
}

}  // namespace

std::vector<std::string> unmet_kernel_requirements(const std::vector<cudalabs::config::KernelRequirement>& required,
                                                   const std::vector<KernelResources>& compiled) {
  std::vector<std::string> unmet;
  for (const auto& requirement : required) {
    bool found = false;
    for (const KernelResources& kernel : compiled) {
      if (without_template_arguments(kernel.name) != requirement.kernel) continue;
      found = true;
      if (!meets(kernel, requirement.uses)) {
        unmet.push_back(fmt::format("{} ({}) {}: {}", kernel.name, kernel.arch, what(requirement.uses), requirement.why));
        break;
      }
    }
    if (!found) {
      unmet.push_back(fmt::format("no kernel named {} was compiled, so the lab's requirement on it ({}) could not be "
                                  "checked: {}",
                                  requirement.kernel, requirement.uses == "shared_memory" ? "shared memory" : "no spills",
                                  requirement.why));
    }
  }
  return unmet;
}

}  // namespace labgrade
