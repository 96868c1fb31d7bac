// Splitting a convolution over workers and GEMM groups (see conv_plan.h).
#include "kernels/cpu/conv_plan.h"

#include <algorithm>

namespace ablate::kernels::cpu {

ConvPlan plan_conv(const ConvGeometry& g, const GemmLoops& loops, ConvPass pass, int threads, std::size_t element_bytes) {
  ConvPlan plan;
  const bool omp = loops.threading == Threading::openmp_images ||
                   (loops.threading == Threading::openmp_frames && pass != ConvPass::backward_weights);
  const bool batched = loops.batched;
  if (omp && threads > 1 && g.n > 1) {
    plan.workers = static_cast<int>(std::min<std::int64_t>(threads, g.n));
    plan.chunks = std::min<std::int64_t>(g.n, plan.workers * (pass == ConvPass::backward_weights ? 1 : kChunksPerWorker));
  }
  if (!batched) return plan;
  const std::int64_t share = (g.n + plan.chunks - 1) / plan.chunks;
  const std::size_t image_bytes = static_cast<std::size_t>(std::max<std::int64_t>(g.col_rows() * g.pixels(), 1)) *
                                  element_bytes;
  const std::int64_t cap = std::max<std::int64_t>(1, static_cast<std::int64_t>(kColumnBudgetBytes / image_bytes));
  const std::int64_t groups = (share + cap - 1) / cap;  // equal groups under the cap
  plan.group = std::max<std::int64_t>(1, (share + groups - 1) / std::max<std::int64_t>(groups, 1));
  return plan;
}

}  // namespace ablate::kernels::cpu
