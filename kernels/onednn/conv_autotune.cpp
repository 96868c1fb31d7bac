// The onednn backend's convolution autotuner: times the candidate layouts (see conv_autotune.h).
#include "kernels/onednn/conv_autotune.h"

#include <algorithm>
#include <chrono>
#include <limits>

namespace ablate::kernels::onednn {

std::unique_ptr<CachedPrimitive> fastest(std::vector<std::unique_ptr<CachedPrimitive>> candidates,
                                         const std::vector<std::string>& names, dnnl::stream& stream,
                                         std::initializer_list<Binding> bindings, int timed_runs) {
  using Clock = std::chrono::steady_clock;
  for (auto& c : candidates) execute(*c, stream, bindings);  // warm-up: first touch of its buffers
  // Rounds interleave the candidates, so that a burst of load on a shared machine slows them
  // alike; each keeps its fastest run.
  std::vector<double> best(candidates.size(), std::numeric_limits<double>::infinity());
  for (int r = 0; r < timed_runs; ++r)
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      const auto start = Clock::now();
      execute(*candidates[i], stream, bindings);
      best[i] = std::min(best[i], std::chrono::duration<double>(Clock::now() - start).count());
    }
  const std::size_t winner = static_cast<std::size_t>(std::min_element(best.begin(), best.end()) - best.begin());
  candidates[winner]->label = names[winner];
  return std::move(candidates[winner]);
}

}  // namespace ablate::kernels::onednn
