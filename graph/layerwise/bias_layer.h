// BiasLayer: a learned bias added on its own, as Theano's LeNet adds b after max pooling
// (conv -> pool -> + b -> tanh) and Caffe's Bias layer with one blob:
//   y[n, c, ...] = x[n, c, ...] + bias[c]; bias [C] (dimension 1 of the input).
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class BiasLayer final : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "Bias"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 protected:
  void layer_setup(const std::vector<Blob*>& bottom) override;
};

}  // namespace ablate::graph::layerwise
