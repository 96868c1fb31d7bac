// Helpers of the plan's tests (layer_plan_test.cpp, plan_file_test.cpp): a scratch folder,
// the text of an exception, and three candidates of different backends.
#pragma once

#include <exception>
#include <filesystem>
#include <functional>
#include <string>
#include <unistd.h>
#include <vector>

#include "bench/run/layer_plan.h"

namespace ablate::bench::run {

inline std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("ablate-plan-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir / name;
}

inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

// reference, eigen/eigen_spatial, openblas/per_image_gemm (library threads).
inline const std::vector<PlanChoice> kCandidates = {
    {"reference", std::nullopt, std::nullopt},
    {"eigen", kernels::cpu::ConvLowering::eigen_spatial, kernels::cpu::Threading::intra_inter},
    {"openblas", kernels::cpu::ConvLowering::per_image_gemm, kernels::cpu::Threading::library}};

}  // namespace ablate::bench::run
