// The parameter-light token layers of a Vision Transformer, as a Caffe user would
// write them with Reshape/Permute, Bias and Pooling layers:
//   TokensLayer     tokens:     bottom [N, C, H, W] -> top [N, H*W, C]   (Backend::permute (0, 2, 1))
//   PosEmbedLayer   pos_embed:  bottom [N, T, D] -> top [N, T, D], + weight [T, D]
//                               (Backend::bias_add on [N, T*D]: Caffe's Bias layer with axis 1)
//   TokenMeanLayer  token_mean: bottom [N, T, D] -> top [N, D], the mean over T (average pooling
//                               of [N, 1, T, D] with one T x 1 window)
#pragma once

#include "graph/layerwise/layer.h"

namespace ablate::graph::layerwise {

class TokensLayer final : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "Tokens"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;
};

class PosEmbedLayer final : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "PosEmbed"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 protected:
  void layer_setup(const std::vector<Blob*>& bottom) override;
};

class TokenMeanLayer final : public Layer {
 public:
  using Layer::Layer;
  const char* type() const override { return "TokenMean"; }
  void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) override;
  void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext& context) override;
  void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                    const std::vector<Blob*>& bottom) override;

 private:
  kernels::Pool2dParams params_;
  kernels::Tensor workspace_;
};

}  // namespace ablate::graph::layerwise
