// The build and library facts of the environment (bench/run/environment.h): what -march=native
// resolved to is recorded, and a warning names OpenBLAS's pre-AVX kernels on an AVX CPU only.
#include <gtest/gtest.h>

#include <string>

#include "bench/run/environment.h"

namespace ablate::bench::run {
namespace {

TEST(Environment, RecordsWhatTheBuildWasCompiledFor) {
  const std::string compiled_for = capture_environment().values["compiled_for"];
  EXPECT_EQ(compiled_for.rfind("-march=native", 0), 0u) << compiled_for;
}

TEST(Environment, WarnsOfOpenblasPreAvxKernelsOnAnAvxCpuOnly) {
  const std::string prescott =
      "OpenBLAS 0.3.21 (NO_LAPACKE DYNAMIC_ARCH NO_AFFINITY Prescott MAX_THREADS=64; pthread pool; core Prescott; "
      "OPENBLAS_CORETYPE=unset; conv=omp_per_image)";
  const std::string on_avx512 = openblas_core_warning(prescott, true, true);
  EXPECT_NE(on_avx512.find("Prescott kernels"), std::string::npos) << on_avx512;
  EXPECT_NE(on_avx512.find("OpenBLAS 0.3.21 does not know"), std::string::npos) << on_avx512;
  EXPECT_NE(on_avx512.find("OPENBLAS_CORETYPE=SkylakeX"), std::string::npos) << on_avx512;
  EXPECT_NE(openblas_core_warning(prescott, false, true).find("OPENBLAS_CORETYPE=Haswell"), std::string::npos);
  EXPECT_EQ(openblas_core_warning(prescott, false, false), "");  // an SSE3 CPU: the right kernels
  std::string cooperlake = prescott;
  cooperlake.replace(cooperlake.find("core Prescott"), 13, "core Cooperlake");
  EXPECT_EQ(openblas_core_warning(cooperlake, true, true), "");
  EXPECT_EQ(openblas_core_warning("Eigen 3.4.0", true, true), "");  // no core named
}

}  // namespace
}  // namespace ablate::bench::run
