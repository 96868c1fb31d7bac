// ablate_micro: Google Benchmark microbenchmarks of the Backend ops on every backend
// (speed per layer). Measures the FMA peak first (printed, and recorded in the JSON context), then
// runs the benchmarks; all --benchmark_* flags apply (--benchmark_filter, --benchmark_format=json,
// --benchmark_out=FILE, --benchmark_min_time=...). Extra flag: --micro_reference (or
// ABLATE_MICRO_REFERENCE=1) also runs the slow reference backend on the heavy cases.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "bench/run/environment.h"
#include "kernels/peak_flops.h"
#include "bench/micro/micro_fixture.h"

namespace {

// Removes --micro_reference from argv; true if it or ABLATE_MICRO_REFERENCE=1 was given.
bool take_reference_flag(int& argc, char** argv) {
  const char* env = std::getenv("ABLATE_MICRO_REFERENCE");
  bool include = env != nullptr && std::strcmp(env, "1") == 0;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--micro_reference") == 0)
      include = true;
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  return include;
}

std::string fixed(double value, int digits) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", digits, value);
  return text;
}

void add_context() {
  for (const auto& [key, value] : ablate::bench::run::capture_environment().values)
    benchmark::AddCustomContext(key, value);
  for (const auto& [name, version] : ablate::micro::usable_backends())
    benchmark::AddCustomContext("backend." + name, version);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    ablate::micro::set_include_reference(take_reference_flag(argc, argv));
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;

    const ablate::kernels::PeakFlops peak = ablate::kernels::measure_peak_flops();
    ablate::kernels::set_measured_peak(peak);
    std::fprintf(stderr, "FMA probe (%s, f32): peak %.1f GFLOP/s on 1 thread, %.1f GFLOP/s on 2 threads\n",
                 peak.isa.c_str(), peak.gflops_1t, peak.gflops_2t);
    if (peak.gflops_2t < 1.5 * peak.gflops_1t)
      std::fprintf(stderr, "FMA probe: warning: 2 threads reached only %.2fx of 1 thread; other load on the cores "
                   "is likely, so the 2-thread figures (and peak_frac) are unreliable\n", peak.gflops_2t / peak.gflops_1t);
    benchmark::AddCustomContext("fma_probe_isa", peak.isa);
    benchmark::AddCustomContext("fma_peak_gflops_1t", fixed(peak.gflops_1t, 1));
    benchmark::AddCustomContext("fma_peak_gflops_2t", fixed(peak.gflops_2t, 1));
    add_context();

    ablate::micro::register_conv_benchmarks();
    ablate::micro::register_conv_map_benchmarks();
    ablate::micro::register_pool_benchmarks();
    ablate::micro::register_lrn_benchmarks();
    ablate::micro::register_linear_benchmarks();
    ablate::micro::register_softmax_benchmarks();
    ablate::micro::register_gemm_benchmarks();
    ablate::micro::register_fused_benchmarks();
    ablate::micro::register_update_benchmarks();
    ablate::micro::register_conv_epilogue_benchmarks();
    ablate::micro::register_residual_benchmarks();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "ablate_micro: %s\n", e.what());
    return 1;
  }
  return 0;
}
