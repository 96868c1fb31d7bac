// FMA-throughput probe (see fma_probe.h). Each thread runs kChains independent chains
// acc_i = acc_i * m + c for `iterations` steps: with 16 chains there are enough FMAs in
// flight for two pipes of latency 4 (Zen 5, Ice Lake and later need >= 8).
#include "kernels/peak_flops.h"

#include <immintrin.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ablate::kernels {
namespace {

constexpr int kChains = 16;
constexpr std::int64_t kIterations = 250'000;  // about 0.6 ms per run at 3 GHz: short runs dodge other load
constexpr int kRepeats = 40;
constexpr double kMinSeconds = 0.25;  // keep repeating this long, so a burst of other load passes

#if defined(__AVX512F__)
constexpr const char* kIsa = "avx512";
constexpr int kLanes = 16;
float run_chains(std::int64_t iterations, float seed) {
  __m512 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm512_set1_ps(seed + static_cast<float>(i));
  const __m512 m = _mm512_set1_ps(0.9999999f), c = _mm512_set1_ps(1e-7f);
  for (std::int64_t it = 0; it < iterations; ++it)
    for (int i = 0; i < kChains; ++i) acc[i] = _mm512_fmadd_ps(acc[i], m, c);
  __m512 total = acc[0];
  for (int i = 1; i < kChains; ++i) total = _mm512_add_ps(total, acc[i]);
  alignas(64) float lanes[kLanes];  // (GCC 12's _mm512_reduce_add_ps warns spuriously)
  _mm512_store_ps(lanes, total);
  float sum = 0.0f;
  for (float v : lanes) sum += v;
  return sum;
}
#elif defined(__AVX2__) && defined(__FMA__)
constexpr const char* kIsa = "avx2";
constexpr int kLanes = 8;
float run_chains(std::int64_t iterations, float seed) {
  __m256 acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = _mm256_set1_ps(seed + static_cast<float>(i));
  const __m256 m = _mm256_set1_ps(0.9999999f), c = _mm256_set1_ps(1e-7f);
  for (std::int64_t it = 0; it < iterations; ++it)
    for (int i = 0; i < kChains; ++i) acc[i] = _mm256_fmadd_ps(acc[i], m, c);
  alignas(32) float lanes[kLanes];
  __m256 total = acc[0];
  for (int i = 1; i < kChains; ++i) total = _mm256_add_ps(total, acc[i]);
  _mm256_store_ps(lanes, total);
  float sum = 0.0f;
  for (float v : lanes) sum += v;
  return sum;
}
#else
constexpr const char* kIsa = "scalar";
constexpr int kLanes = 1;
float run_chains(std::int64_t iterations, float seed) {
  float acc[kChains];
  for (int i = 0; i < kChains; ++i) acc[i] = seed + static_cast<float>(i);
  for (std::int64_t it = 0; it < iterations; ++it)
    for (int i = 0; i < kChains; ++i) acc[i] = acc[i] * 0.9999999f + 1e-7f;
  float sum = 0.0f;
  for (float v : acc) sum += v;
  return sum;
}
#endif

volatile float g_sink = 0.0f;  // keeps the chains' results alive

// Best FLOP/s over at least kRepeats runs (and kMinSeconds) of `threads` threads, each
// running the chains: the best short run is the one that no other process interrupted.
double probe(int threads, int repeats = kRepeats, double min_seconds = kMinSeconds) {
  const double flops_per_thread = 2.0 * kLanes * kChains * static_cast<double>(kIterations);
  const auto begin = std::chrono::steady_clock::now();
  double best = 0.0;
  for (int r = 0; r < repeats || std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count() < min_seconds; ++r) {
    const auto start = std::chrono::steady_clock::now();
    float sum = 0.0f;
#pragma omp parallel num_threads(threads) reduction(+ : sum)
    sum += run_chains(kIterations, 1.0f + static_cast<float>(omp_get_thread_num()));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    g_sink = g_sink + sum;
    best = std::max(best, flops_per_thread * threads / seconds);
  }
  return best;
}

PeakFlops g_peak;

}  // namespace

double PeakFlops::flops_for(int threads) const {
  if (threads < 1) throw std::invalid_argument("peak FLOP/s for " + std::to_string(threads) + " threads: expected >= 1");
  if (threads == 1) return gflops_1t * 1e9;
  return gflops_2t * 1e9 * threads / 2.0;
}

PeakFlops measure_peak_flops() {
  PeakFlops peak;
  peak.isa = kIsa;
  peak.gflops_1t = probe(1) / 1e9;
  peak.gflops_2t = probe(2) / 1e9;
  return peak;
}

PeakFlops higher_peak(const PeakFlops& a, const PeakFlops& b) {
  if (a.isa != b.isa) throw std::invalid_argument("higher_peak: probes of two codes, " + a.isa + " and " + b.isa);
  PeakFlops peak = a;
  peak.gflops_1t = std::max(a.gflops_1t, b.gflops_1t);
  peak.gflops_2t = std::max(a.gflops_2t, b.gflops_2t);
  return peak;
}

double measure_peak_flops_at(int threads, double seconds) {
  if (threads < 1) throw std::invalid_argument("peak FLOP/s probe at " + std::to_string(threads) + " threads");
  return probe(threads, 8, seconds);
}

void set_measured_peak(const PeakFlops& peak) { g_peak = peak; }
const PeakFlops& measured_peak() { return g_peak; }

}  // namespace ablate::kernels
