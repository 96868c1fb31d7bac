// LayoutConvertLayer: the conversion the layer-wise blocked layout (net.h) puts between a
// channel-blocked blob (nChw{B}c, kernels/tensor.h) and a reader that takes only NCHW (a fully
// connected layer, a loss, a layer whose backend runs plain), as Intel Caffe's MKL-DNN engine
// converted its private layouts back to Caffe's at such a reader. No model file names it.
//   forward:  top data (NCHW) = bottom data (blocked), element for element
//   backward: bottom diff (blocked) = top diff (NCHW)
// Both through Backend::copy, which converts between layouts (kernels/channel_blocks.h).
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class LayoutConvertLayer final : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "LayoutConvert"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;

 protected:
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;
};

}  // namespace ablate::graph::layerwise
