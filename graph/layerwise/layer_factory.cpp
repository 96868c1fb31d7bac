// The one place that maps model-file layer types to layer classes.
#include "graph/layerwise/layer_factory.h"

#include <stdexcept>

#include "graph/layerwise/activation_layer.h"
#include "graph/layerwise/bias_layer.h"
#include "graph/layerwise/conv_map_layer.h"
#include "graph/layerwise/convolution_layer.h"
#include "graph/layerwise/dropout_layer.h"
#include "graph/layerwise/inner_product_layer.h"
#include "graph/layerwise/log_softmax_layer.h"
#include "graph/layerwise/lrn_layer.h"
#include "graph/layerwise/nll_loss_layer.h"
#include "graph/layerwise/pooling_layer.h"
#include "graph/layerwise/softmax_loss_layer.h"

namespace ablate::graph::layerwise {

std::unique_ptr<Layer> make_layer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype) {
  const std::string& t = spec.type;
  if (t == "convolution") return std::make_unique<ConvolutionLayer>(spec, backend, dtype);
  if (t == "conv_map") return std::make_unique<ConvMapLayer>(spec, backend, dtype);
  if (t == "pooling") return std::make_unique<PoolingLayer>(spec, backend, dtype);
  if (t == "inner_product") return std::make_unique<InnerProductLayer>(spec, backend, dtype);
  if (t == "bias") return std::make_unique<BiasLayer>(spec, backend, dtype);
  if (t == "relu") return std::make_unique<ActivationLayer>(spec, backend, dtype, kernels::Activation::relu);
  if (t == "tanh") return std::make_unique<ActivationLayer>(spec, backend, dtype, kernels::Activation::tanh);
  if (t == "sigmoid") return std::make_unique<ActivationLayer>(spec, backend, dtype, kernels::Activation::sigmoid);
  if (t == "lrn") return std::make_unique<LrnLayer>(spec, backend, dtype);
  if (t == "dropout") return std::make_unique<DropoutLayer>(spec, backend, dtype);
  if (t == "softmax_loss") return std::make_unique<SoftmaxWithLossLayer>(spec, backend, dtype);
  if (t == "log_softmax") return std::make_unique<LogSoftmaxLayer>(spec, backend, dtype);
  if (t == "nll_loss") return std::make_unique<NllLossLayer>(spec, backend, dtype);
  throw std::invalid_argument(spec.source + ": layer '" + spec.name + "': type '" + t +
                              "' has no layer in the layerwise strategy (it has convolution, conv_map, pooling, inner_product, "
                              "bias, relu, tanh, sigmoid, lrn, dropout, softmax_loss, log_softmax, nll_loss)");
}

}  // namespace ablate::graph::layerwise
