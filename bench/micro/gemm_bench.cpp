// Square SGEMM microbenchmarks: c = a * b for n = 256 and 1024, 2*n^3 flops; the yardstick
// for how close each backend's GEMM gets to the FMA probe's peak.
#include <benchmark/benchmark.h>

#include "bench/micro/micro_fixture.h"

namespace ablate::micro {
namespace {

OpFactory gemm_factory(int n) {
  return [n](kernels::Backend& backend) -> OpRunner {
    TensorMaker make(backend);
    kernels::Tensor a = make.random({n, n}), b = make.random({n, n}), c = make.zeros({n, n});
    kernels::Backend* be = &backend;
    return [=]() mutable { be->gemm(false, false, 1.0, a, b, 0.0, c); };
  };
}

}  // namespace

void register_gemm_benchmarks() {
  for (int n : {256, 1024})
    register_case({"sgemm/n" + std::to_string(n), 2.0 * n * n * n, gemm_factory(n)});
}

}  // namespace ablate::micro
