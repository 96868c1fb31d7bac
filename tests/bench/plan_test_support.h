// Helpers of the plan's tests (layer_plan_test.cpp, plan_file_test.cpp): a scratch folder,
// the text of an exception, and three candidates of different backends.
#pragma once

#include <exception>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "bench/run/layer_plan.h"
#include "tests/process_scratch.h"

namespace ablate::bench::run {

// A file of the test process's scratch folder (removed when the process exits).
inline std::filesystem::path scratch(const std::string& name) { return ablate::testing::process_scratch() / name; }

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
