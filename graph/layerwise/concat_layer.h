// ConcatLayer: Caffe's Concat along axis 1, the layer of `concat` (an Inception-style join):
//   top [N, C0 + C1 + ..., ...] = the bottoms [N, Ck, ...] side by side along the channels
//   bottom k diff = top diff's channel slice of bottom k
// through Backend::concat_forward and concat_backward.
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class ConcatLayer final : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "Concat"; }
  int bottom_count() const override { return -1; }
  int min_bottom_count() const override { return 2; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;

 protected:
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;
};

}  // namespace ablate::graph::layerwise
