// LogSoftmaxLayer: Torch's nn.LogSoftMax over the rows of [N, K]:
//   y = x - log sum_k exp(x_k); dx = dy - exp(y) * sum_k dy_k (backward reads y).
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class LogSoftmaxLayer final : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "LogSoftmax"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;
};

}  // namespace ablate::graph::layerwise
