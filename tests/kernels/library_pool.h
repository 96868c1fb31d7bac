// Helpers of the tests of the libraries' own thread pools (planned_backend_test.cpp,
// library_threads_test.cpp): the process's thread count, a product large enough for OpenBLAS to
// run on its own threads, and whether this build's OpenBLAS runs any.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "kernels/backend.h"
#include "kernels/registry.h"

namespace ablate::kernels::testing {

// The process's threads now (Linux: /proc/self/task).
inline int thread_count() {
  int n = 0;
  for ([[maybe_unused]] const auto& task : std::filesystem::directory_iterator("/proc/self/task")) ++n;
  return n;
}

// A 256^3 f32 product on `backend`, checked.
inline void product(Backend& backend) {
  Tensor a({256, 256}), b({256, 256}), c({256, 256});
  for (std::int64_t i = 0; i < a.numel(); ++i) a.data<float>()[i] = b.data<float>()[i] = 0.5f;
  backend.gemm(false, false, 1.0, a, b, 0.0, c);
  EXPECT_FLOAT_EQ(c.data<float>()[0], 64.0f) << "256 * 0.5 * 0.5";
}

// Why OpenBLAS runs no pool of its own here ("" when it does): no openblas backend in this
// build, one core, or not the pthread build.
inline std::string no_openblas_pool() {
  const std::vector<std::string> names = backend_names();
  if (std::find(names.begin(), names.end(), "openblas") == names.end()) return "no openblas backend in this build";
  if (std::thread::hardware_concurrency() < 2) return "one core: OpenBLAS runs no thread of its own";
  const std::string version = make_backend("openblas")->library_version();
  if (version.find("pthread pool") == std::string::npos) return "OpenBLAS is not the pthread build: " + version;
  return "";
}

}  // namespace ablate::kernels::testing
