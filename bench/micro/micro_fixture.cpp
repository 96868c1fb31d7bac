// The timed loop and the helpers of ablate_micro (see micro_fixture.h).
#include "bench/micro/micro_fixture.h"

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdio>
#include <exception>
#include <memory>

#include "kernels/peak_flops.h"
#include "kernels/registry.h"

namespace ablate::micro {
namespace {

bool g_include_reference = false;

// One benchmark run: a fresh backend at state.range(0) threads, one untimed warm-up call
// (oneDNN creates its primitives, the scratch buffers grow), then the timed calls.
void run_case(benchmark::State& state, const std::string& backend_name, const OpCase& op) {
  const int threads = static_cast<int>(state.range(0));
  auto backend = kernels::make_backend(backend_name, threads);
  OpRunner run = op.make(*backend);
  run();
  backend->synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    run();
    backend->synchronize();
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (op.bytes > 0) {
    state.SetBytesProcessed(static_cast<std::int64_t>(op.bytes * static_cast<double>(state.iterations())));
    state.counters["bytes"] = op.bytes;
  }
  if (op.flops <= 0) return;
  const double total = op.flops * static_cast<double>(state.iterations());
  state.counters["FLOP/s"] = benchmark::Counter(total, benchmark::Counter::kIsRate);
  const double peak = kernels::measured_peak().flops_for(threads);
  if (peak > 0 && seconds > 0) state.counters["peak_frac"] = total / seconds / peak;
}

}  // namespace

void set_include_reference(bool include) { g_include_reference = include; }
bool include_reference() { return g_include_reference; }

const std::vector<std::pair<std::string, std::string>>& usable_backends() {
  static const auto usable = [] {
    std::vector<std::pair<std::string, std::string>> found;
    for (const auto& name : kernels::backend_names()) {
      try {
        found.emplace_back(name, kernels::make_backend(name)->library_version());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "ablate_micro: skipping backend '%s': %s\n", name.c_str(), e.what());
      }
    }
    return found;
  }();
  return usable;
}

void register_case(const OpCase& op) {
  for (const auto& [backend_name, version] : usable_backends()) {
    if (backend_name == "reference" && op.flops > kReferenceFlopLimit && !g_include_reference) continue;
    if (op.blocked && kernels::make_backend(backend_name)->channel_block(kernels::DType::f32) == 0) continue;
    benchmark::RegisterBenchmark((op.name + "/" + backend_name).c_str(),
                                 [backend_name, op](benchmark::State& state) { run_case(state, backend_name, op); })
        ->ArgName("threads")
        ->Arg(1)
        ->Arg(2)
        ->UseRealTime()
        ->Unit(benchmark::kMicrosecond);
  }
}

int case_block(CaseLayout layout, std::int64_t channels, const kernels::Backend& backend) {
  if (layout == CaseLayout::nhwc) return static_cast<int>(channels);
  return layout == CaseLayout::blocked ? backend.channel_block(kernels::DType::f32) : 0;
}

const char* case_layout_suffix(CaseLayout layout) {
  return layout == CaseLayout::nhwc ? "_nhwc" : layout == CaseLayout::blocked ? "_blocked" : "";
}

kernels::Tensor TensorMaker::zeros(const kernels::Shape& shape) {
  return kernels::Tensor(shape, kernels::DType::f32, &backend_.allocator());
}

kernels::Tensor TensorMaker::random(const kernels::Shape& shape) {
  kernels::Tensor t = zeros(shape);
  if (backend_.device() != kernels::Device::cpu) {
    backend_.fill(t, 0.01);
    return t;
  }
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  float* data = t.data<float>();
  for (std::int64_t i = 0; i < t.numel(); ++i) data[i] = uniform(rng_);
  return t;
}

kernels::Tensor TensorMaker::labels(std::int64_t n, int classes) {
  kernels::Tensor t({n}, kernels::DType::i32, &backend_.allocator());
  if (backend_.device() != kernels::Device::cpu) {
    backend_.fill(t, 0.0);
    return t;
  }
  std::uniform_int_distribution<int> pick(0, classes - 1);
  auto* data = t.data<std::int32_t>();
  for (std::int64_t i = 0; i < n; ++i) data[i] = pick(rng_);
  return t;
}

}  // namespace ablate::micro
