// SplitLayer: Caffe's Split, which Caffe's insert_splits puts after every blob read by more
// than one layer (the Net inserts it; no model file names it). Its forward shares the bottom's
// data with every top (Blob::share_data: no copy); its backward sums the readers' diffs:
//   bottom diff = top[0] diff + top[1] diff + ... (Backend::add of the first two, axpy of the rest),
// so a blob's readers each write a diff of their own and the sum of the fan-out is a layer.
//   bottom [...] -> tops [...] x readers
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class SplitLayer final : public Layer {
 public:
  // `spec` names the layer and its bottom (Net: "<blob>_<producer>_0_split"); `tops` >= 2.
  SplitLayer(const models::LayerSpec& spec, int tops, kernels::Backend& backend, kernels::DType dtype);
  const char* type() const override { return "Split"; }
  int top_count() const override { return tops_; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;

 protected:
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 private:
  int tops_;
};

}  // namespace ablate::graph::layerwise
