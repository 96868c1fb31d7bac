// OpenMP loops of the CPU backends: a static split of [0, n) over the backend's threads, and
// a deterministic sum (per-thread partials in double, added in thread order), so results are
// bit-identical for a given thread count. Small loops run on the calling thread: a parallel
// region costs a few microseconds, more than the work below `grain` elements.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include <omp.h>

namespace ablate::kernels::cpu {

// The fewest elements worth a thread in an elementwise loop (~10 us of work).
constexpr std::int64_t kElementwiseGrain = 1 << 15;

// Rows of `row` elements per parallel chunk, for loops over the rows of [N, row].
inline std::int64_t row_grain(std::int64_t row) { return std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(row, 1)); }

// Threads for a loop over n items: at most one per `grain` items, and 1 inside a parallel
// region (the loops of an OpenMP worker stay on that worker).
inline int loop_threads(int threads, std::int64_t n, std::int64_t grain) {
  if (threads <= 1 || n < 2 * grain || omp_in_parallel()) return 1;
  return static_cast<int>(std::min<std::int64_t>(threads, n / grain));
}

// f(begin, end) over contiguous, static chunks of [0, n), one per thread.
template <class F> void parallel_for(int threads, std::int64_t n, std::int64_t grain, F&& f) {
  int nt = loop_threads(threads, n, grain);
  if (nt <= 1) {
    if (n > 0) f(std::int64_t{0}, n);
    return;
  }
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num(), count = omp_get_num_threads();
    std::int64_t begin = n * t / count, end = n * (t + 1) / count;
    if (begin < end) f(begin, end);
  }
}

// f(i) for every element i of [0, n), split over threads in contiguous chunks.
template <class F> void parallel_each(int threads, std::int64_t n, F&& f) {
  parallel_for(threads, n, kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) f(i);
  });
}

// Sum over [0, n) of f(begin, end) (each returning a double), deterministic for a thread count.
template <class F> double parallel_sum(int threads, std::int64_t n, std::int64_t grain, F&& f) {
  int nt = loop_threads(threads, n, grain);
  if (nt <= 1) return n > 0 ? f(std::int64_t{0}, n) : 0.0;
  std::vector<double> partial(static_cast<std::size_t>(nt), 0.0);
#pragma omp parallel num_threads(nt)
  {
    int t = omp_get_thread_num(), count = omp_get_num_threads();
    std::int64_t begin = n * t / count, end = n * (t + 1) / count;
    if (begin < end) partial[static_cast<std::size_t>(t)] = f(begin, end);
  }
  double total = 0;
  for (double p : partial) total += p;
  return total;
}

}  // namespace ablate::kernels::cpu
