// Net-level gradient check: for a small LeNet-like model and variants (tanh, sigmoid, LRN,
// average pooling, TF SAME padding, Theano's separate bias, log_softmax + nll_loss, dropout,
// Torch's connection-table convolution, batch normalisation, GELU) the layer-wise net's backward in f64 on the
// reference backend gives every parameter diff and the input diff that central finite
// differences of its forward loss give.
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "graph/engine_gradient_check.h"
#include "graph/layerwise/net.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "models/parameters.h"

namespace ablate::graph::layerwise {
namespace {

using graph::testing::replaced;

// The dropout mask of the checks: one iteration and seed for every forward.
constexpr std::int64_t kIteration = 4;
constexpr std::uint64_t kSeed = 99;

// Compares the analytic diff of every element of `data` with (f(v + e) - f(v - e)) / 2e
// (graph::central_difference, which `ablate gradcheck` uses too).
void check_tensor(Net& net, kernels::Tensor& data, const kernels::Tensor& analytic,
                  const std::string& what) {
  const double eps = 1e-6;
  int bad = 0;
  for (std::int64_t i = 0; i < data.numel(); ++i) {
    const double numeric = graph::central_difference([&] { return net.forward(kIteration, kSeed); }, data, i, eps);
    const double a = analytic.at(i);
    const double tolerance = 1e-7 + 1e-5 * std::max(std::abs(a), std::abs(numeric));
    if (std::abs(a - numeric) > tolerance && ++bad <= 5)
      ADD_FAILURE() << what << "[" << i << "]: backward " << a << ", finite difference " << numeric;
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << data.numel() << " elements differ";
}

// Builds the net of `text` in f64, runs forward + backward on a random batch of 2, then
// checks every parameter and the input against central differences.
void gradient_check(const std::string& text) {
  auto backend = kernels::make_backend("reference");
  models::ModelSpec spec = graph::testing::parse(text);
  NetOptions options;
  options.batch = 2;
  options.dtype = kernels::DType::f64;
  options.force_backward = true;
  Net net(models::CheckedModel(spec), *backend, options);
  net.set_parameters(models::make_initial_parameters(spec, kernels::DType::f64, 3));
  auto batch = graph::testing::random_batch(spec, 2, kernels::DType::f64, 11);
  net.input().data().copy_from(batch.x);
  net.labels().data().copy_from(batch.labels);
  const double loss = net.forward(kIteration, kSeed);
  ASSERT_TRUE(std::isfinite(loss));
  ASSERT_GT(loss, 0.0);
  net.backward();

  std::vector<kernels::Tensor> diffs;
  for (const NetParameter& p : net.parameters()) diffs.push_back(p.blob->diff().clone());
  const kernels::Tensor input_diff = net.input().diff().clone();
  double input_diff_norm = 0;
  for (std::int64_t i = 0; i < input_diff.numel(); ++i) input_diff_norm += std::abs(input_diff.at(i));
  EXPECT_GT(input_diff_norm, 0.0) << "force_backward should give an input diff";

  for (std::size_t k = 0; k < net.parameters().size(); ++k)
    check_tensor(net, net.parameters()[k].blob->data(), diffs[k], net.parameters()[k].name);
  check_tensor(net, net.input().data(), input_diff, "input");
}

TEST(NetGradientCheck, LenetReluMaxPool) { gradient_check(graph::testing::tiny_lenet_text()); }

TEST(NetGradientCheck, Tanh) {
  gradient_check(replaced(replaced(graph::testing::tiny_lenet_text(), "relu1 relu", "act1 tanh"),
                          "layer pool1 pooling mode=max kernel=2 stride=2 padding=caffe_ceil\n",
                          "layer pool1 pooling mode=max kernel=2 stride=2 padding=caffe_ceil\nlayer t1 tanh\n"));
}

TEST(NetGradientCheck, Sigmoid) {
  gradient_check(replaced(graph::testing::tiny_lenet_text(), "relu1 relu", "act1 sigmoid"));
}

TEST(NetGradientCheck, LrnAcrossChannels) {
  gradient_check(replaced(graph::testing::tiny_lenet_text(),
                          "layer conv2",
                          "layer norm1 lrn size=3 alpha=0.5 beta=0.75 k=2\nlayer conv2"));
}

TEST(NetGradientCheck, AveragePoolingWithPadding) {
  gradient_check(replaced(replaced(graph::testing::tiny_lenet_text(),
                                   "pool1 pooling mode=max kernel=2 stride=2 padding=caffe_ceil",
                                   "pool1 pooling mode=avg kernel=3 stride=2 pad=1 padding=caffe_ceil"),
                          "pool2 pooling mode=max kernel=2 stride=2 padding=caffe_ceil",
                          "pool2 pooling mode=avg kernel=2 stride=1 padding=valid"));
}

TEST(NetGradientCheck, TfSamePaddingAndReluAfterConv) {
  gradient_check(replaced(replaced(graph::testing::tiny_lenet_text(),
                                   "kernel=3 weight_init=gaussian:0.4", "kernel=3 padding=same weight_init=gaussian:0.4"),
                          "layer pool1 pooling mode=max kernel=2 stride=2 padding=caffe_ceil",
                          "layer r0 relu\nlayer pool1 pooling mode=max kernel=3 stride=2 padding=tf_same"));
}

TEST(NetGradientCheck, TheanoSeparateBiasAfterPooling) {
  std::string text = replaced(graph::testing::tiny_lenet_text(),
                              "layer conv1 convolution outputs=4 kernel=3 weight_init=gaussian:0.4 bias_init=gaussian:0.1",
                              "layer conv1 convolution outputs=4 kernel=3 bias=false weight_init=gaussian:0.4");
  text = replaced(text, "layer conv2", "layer b1 bias bias_init=gaussian:0.2\nlayer t1 tanh\nlayer conv2");
  gradient_check(text);
}

// Torch's SpatialConvolutionMap in place of both convolutions: fan_in 1 from the single input
// plane, then fan_in 2 of 4 planes with padding 1 (the table's gradient path to each plane).
TEST(NetGradientCheck, ConvMapLayers) {
  std::string text = replaced(graph::testing::tiny_lenet_text(), "layer conv1 convolution outputs=4 kernel=3",
                              "layer conv1 conv_map outputs=4 kernel=3 fan_in=1");
  text = replaced(text, "layer conv2 convolution outputs=4 kernel=3", "layer conv2 conv_map outputs=5 kernel=3 fan_in=2 pad=1");
  text = replaced(text, "layer pool1 pooling mode=max kernel=2 stride=2 padding=caffe_ceil\n",
                  "layer pool1 pooling mode=max kernel=2 stride=2 padding=caffe_ceil\nlayer t1 tanh\n");
  gradient_check(text);
}

TEST(NetGradientCheck, LogSoftmaxAndNllLoss) {
  gradient_check(replaced(graph::testing::tiny_lenet_text(), "layer loss softmax_loss",
                          "layer prob log_softmax\nlayer loss nll_loss"));
}

// Batch normalisation in training (the batch statistics depend on every input value) after
// each convolution, PyTorch's convention with its scale and shift; then Caffe's, without
// them, on the [N, F] features of the first inner product.
TEST(NetGradientCheck, BatchNormOnPlanesAndFeatures) {
  std::string text = replaced(graph::testing::tiny_lenet_text(), "layer pool1",
                              "layer bn1 batch_norm weight_init=gaussian:1\nlayer pool1");
  text = replaced(text, "layer pool2", "layer bn2 batch_norm bias_init=gaussian:0.5\nlayer pool2");
  gradient_check(text);
  gradient_check(replaced(graph::testing::tiny_lenet_text(), "layer relu1 relu",
                          "layer bn3 batch_norm momentum_style=caffe eps=1e-3\nlayer relu1 relu"));
}

// GELU in both forms: the exact one on the planes, the tanh approximation on the features.
TEST(NetGradientCheck, GeluBothForms) {
  gradient_check(replaced(replaced(graph::testing::tiny_lenet_text(), "layer pool1", "layer g1 gelu\nlayer pool1"),
                          "relu1 relu", "g2 gelu approximate=tanh"));
}

TEST(NetGradientCheck, DropoutWithAFixedMask) {
  gradient_check(replaced(graph::testing::tiny_lenet_text(), "layer ip2", "layer drop1 dropout keep=0.6\nlayer ip2"));
}

}  // namespace
}  // namespace ablate::graph::layerwise
