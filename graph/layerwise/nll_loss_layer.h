// NllLossLayer: Torch's ClassNLLCriterion (sizeAverage) and Theano's -mean(log p[y]):
//   loss = mean_n -logp[n, label_n]; dlogp = -1 / N at each label, 0 elsewhere.
#pragma once

#include "graph/layerwise/loss_layer.h"

namespace ablate::graph::layerwise {

class NllLossLayer final : public LossLayer {
 public:
  using LossLayer::LossLayer;
  const char* type() const override { return "NLLLoss"; }
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;
};

}  // namespace ablate::graph::layerwise
