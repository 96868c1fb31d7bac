// Convolution layouts of the onednn backend and the autotuner's timing (see conv_layout.h).
#include "kernels/onednn/conv_layout.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <stdexcept>

namespace ablate::kernels::onednn {

const char* conv_layout_name(ConvLayout layout) {
  switch (layout) {
    case ConvLayout::plain: return "plain";
    case ConvLayout::nhwc: return "nhwc";
    case ConvLayout::blocked: return "blocked";
    case ConvLayout::autotune: return "autotune";
  }
  return "?";
}

ConvLayout parse_conv_layout(const std::string& name) {
  for (ConvLayout l : {ConvLayout::plain, ConvLayout::nhwc, ConvLayout::blocked, ConvLayout::autotune})
    if (name == conv_layout_name(l)) return l;
  throw std::invalid_argument("onednn convolution layout '" + name +
                              "' is not known; expected plain, nhwc, blocked or autotune");
}

ConvLayout default_conv_layout() {
  const char* env = std::getenv("ABLATE_ONEDNN_CONV_LAYOUT");
  if (env == nullptr || *env == '\0') return ConvLayout::autotune;
  try {
    return parse_conv_layout(env);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("environment variable ABLATE_ONEDNN_CONV_LAYOUT: ") + e.what());
  }
}

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
