// EltwiseLayer: Caffe's Eltwise with operation SUM and coefficients 1, the layer of `add`
// (a residual block's join):
//   top = bottom[0] + bottom[1] + ...      (every bottom one shape)
//   each bottom diff = top diff            (Caffe copies the top diff to every bottom)
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class EltwiseLayer final : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "Eltwise"; }
  int bottom_count() const override { return -1; }
  int min_bottom_count() const override { return 2; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;

 protected:
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;
};

}  // namespace ablate::graph::layerwise
