#include "kernel_requirement_reader.hpp"

namespace cudalabs::config::detail {

std::vector<KernelRequirement> read_kernel_requirements(const MapReader& top, FileDiagnostics& diagnostics) {
  std::vector<KernelRequirement> requirements;
  if (!top.find("kernels")) return requirements;
  for (const Located& item : top.require_list("kernels", "kernel requirements")) {
    const std::optional<MapReader> entry = MapReader::open(item, diagnostics, "a map {kernel, uses, why}");
    if (!entry) continue;
    entry->check_keys({"kernel", "uses", "why"});
    const std::optional<std::string> kernel = entry->require_string("kernel");
    const std::optional<std::string> uses = entry->require_choice("uses", kKernelUses);
    const std::optional<std::string> why = entry->require_string("why");
    if (kernel && uses && why) requirements.push_back(KernelRequirement{*kernel, *uses, *why});
  }
  return requirements;
}

}  // namespace cudalabs::config::detail
