#pragma once
// The trusted build's recipe for a lab, for host tests that compile CUDA as labgrade compiles a
// student's file; none where the project was configured without CUDA (those tests skip).
#include <filesystem>
#include <optional>
#include <string>

#include "build/build_recipe.hpp"

namespace labgrade {

// build/cudalabs/labs/<lab>.json, when it and its nvcc exist.
inline std::optional<BuildRecipe> recipe_for(const std::string& lab) {
  const std::filesystem::path file = std::filesystem::path(CUDALABS_BINARY_DIR) / "cudalabs" / "labs" / (lab + ".json");
  if (!std::filesystem::exists(file)) return std::nullopt;
  BuildRecipe recipe = load_build_recipe(file);
  if (!std::filesystem::exists(recipe.nvcc)) return std::nullopt;
  return recipe;
}

}  // namespace labgrade
