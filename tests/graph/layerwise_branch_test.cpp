// Branching models in the layer-wise net, as Caffe's Net runs them: Caffe's insert_splits puts
// a Split layer after every blob read by more than one layer (the model input too), named
// "<blob>_<producer>_0_split" with tops "..._split_<k>" fed to the readers in order; no layer
// writes in place on a split top; add is Caffe's Eltwise SUM, concat Caffe's Concat and
// global_avg_pool Caffe's global Pooling. The net's parameter and input diffs of a residual
// block, a concat of three branches and a model whose input is read twice agree with central
// differences of its loss in f64 on the reference backend.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph/engine_gradient_check.h"
#include "graph/layerwise/net.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "models/parameters.h"

namespace ablate::graph::layerwise {
namespace {

// conv0 -> relu0 (the block input) -> conv1 -> bn1 -> relu1 -> conv2, added to the block input
// (the shortcut), -> relu2 -> global_avg_pool -> ip -> softmax_loss.
std::string residual_text() {
  return "model residual\n"
         "input 2 5 5\n"
         "classes 3\n"
         "layer conv0 convolution outputs=3 kernel=3 pad=1 weight_init=gaussian:0.4 bias_init=gaussian:0.1\n"
         "layer relu0 relu\n"
         "layer conv1 convolution outputs=3 kernel=3 pad=1 weight_init=gaussian:0.4 bias_init=gaussian:0.1\n"
         "layer bn1 batch_norm weight_init=gaussian:1 bias_init=gaussian:0.5\n"
         "layer relu1 relu\n"
         "layer conv2 convolution outputs=3 kernel=3 pad=1 weight_init=gaussian:0.4 bias_init=gaussian:0.1\n"
         "layer sum add input=conv2,relu0\n"
         "layer relu2 relu\n"
         "layer gap global_avg_pool\n"
         "layer ip inner_product outputs=3 weight_init=gaussian:0.5 bias_init=gaussian:0.1\n"
         "layer loss softmax_loss\n";
}

// stem read by three layers (a Split of three tops): a 1x1 branch, a 3x3 branch with a ReLU,
// and the stem itself, joined along the channels (2 + 3 + 2).
std::string concat_text() {
  return "model branches\n"
         "input 1 5 5\n"
         "classes 3\n"
         "layer stem convolution outputs=2 kernel=3 pad=1 weight_init=gaussian:0.5 bias_init=gaussian:0.1\n"
         "layer left convolution outputs=2 kernel=1 input=stem weight_init=gaussian:0.5 bias_init=gaussian:0.1\n"
         "layer right convolution outputs=3 kernel=3 pad=1 input=stem weight_init=gaussian:0.5 bias_init=gaussian:0.1\n"
         "layer rr relu\n"
         "layer cat concat input=left,rr,stem\n"
         "layer ip inner_product outputs=3 weight_init=gaussian:0.3 bias_init=gaussian:0.1\n"
         "layer loss softmax_loss\n";
}

// The model input read by two convolutions, their sum added to itself (one layer reading
// one blob twice: a Split of two tops into the same layer).
std::string input_twice_text() {
  return "model input_twice\n"
         "input 2 4 4\n"
         "classes 3\n"
         "layer a convolution outputs=2 kernel=3 pad=1 input=data weight_init=gaussian:0.5 bias_init=gaussian:0.1\n"
         "layer b convolution outputs=2 kernel=1 input=data weight_init=gaussian:0.5 bias_init=gaussian:0.1\n"
         "layer sum add input=a,b\n"
         "layer twice add input=sum,sum\n"
         "layer ip inner_product outputs=3 weight_init=gaussian:0.4 bias_init=gaussian:0.1\n"
         "layer loss softmax_loss\n";
}

// conv0's output read by a ReLU and a Dropout, both of which run in place in a chain.
std::string fan_out_text() {
  return "model fan_out\n"
         "input 1 5 5\n"
         "classes 3\n"
         "layer conv0 convolution outputs=2 kernel=3 weight_init=gaussian:0.6 bias_init=gaussian:0.1\n"
         "layer ra relu input=conv0\n"
         "layer rb dropout keep=0.6 input=conv0\n"
         "layer sum add input=ra,rb\n"
         "layer ip inner_product outputs=3 weight_init=gaussian:0.4 bias_init=gaussian:0.1\n"
         "layer loss softmax_loss\n";
}

constexpr std::int64_t kIteration = 2;
constexpr std::uint64_t kSeed = 7;

struct Built {
  std::unique_ptr<kernels::Backend> backend;
  models::ModelSpec spec;
  std::unique_ptr<Net> net;
};

// The net of `text` in f64 on the reference backend, with its initial parameters and a random
// batch of 2 loaded.
Built build(const std::string& text, bool force_backward = true) {
  Built b{kernels::make_backend("reference"), graph::testing::parse(text), nullptr};
  NetOptions options;
  options.batch = 2;
  options.dtype = kernels::DType::f64;
  options.force_backward = force_backward;
  b.net = std::make_unique<Net>(models::CheckedModel(b.spec), *b.backend, options);
  b.net->set_parameters(models::make_initial_parameters(b.spec, kernels::DType::f64, 3));
  b.net->set_state(models::make_initial_state(b.spec, kernels::DType::f64));
  auto batch = graph::testing::random_batch(b.spec, 2, kernels::DType::f64, 13);
  b.net->input().data().copy_from(batch.x);
  b.net->labels().data().copy_from(batch.labels);
  return b;
}

struct LayerInfo {
  std::string name, type;
  std::vector<std::string> bottoms, tops;
};

std::vector<LayerInfo> layers_of(const Net& net) {
  std::vector<LayerInfo> out;
  for (std::size_t i = 0; i < net.layers().size(); ++i) {
    LayerInfo info{net.layers()[i]->name(), net.layers()[i]->type(), {}, {}};
    for (const Blob* b : net.bottoms(i)) info.bottoms.push_back(b->name());
    for (const Blob* b : net.tops(i)) info.tops.push_back(b->name());
    out.push_back(info);
  }
  return out;
}

std::size_t index_of(const Net& net, const std::string& name) {
  for (std::size_t i = 0; i < net.layers().size(); ++i)
    if (net.layers()[i]->name() == name) return i;
  ADD_FAILURE() << "no layer " << name;
  return 0;
}

int split_count(const Net& net) {
  return static_cast<int>(std::count_if(net.layers().begin(), net.layers().end(),
                                        [](const auto& l) { return std::string(l->type()) == "Split"; }));
}

// Every element of `data` (a parameter or the input) against central differences of the
// net's forward loss (graph::central_difference, as `ablate gradcheck` and the chain checks of
// net_gradient_check_test.cpp).
void check_tensor(Net& net, kernels::Tensor& data, const kernels::Tensor& analytic, const std::string& what) {
  int bad = 0;
  for (std::int64_t i = 0; i < data.numel(); ++i) {
    const double numeric = graph::central_difference([&] { return net.forward(kIteration, kSeed); }, data, i, 1e-6);
    const double a = analytic.at(i);
    if (std::abs(a - numeric) > 1e-7 + 1e-5 * std::max(std::abs(a), std::abs(numeric)) && ++bad <= 5)
      ADD_FAILURE() << what << "[" << i << "]: backward " << a << ", finite difference " << numeric;
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << data.numel() << " elements differ";
}

// forward + backward, then every parameter and the input against central differences.
void gradient_check(const std::string& text) {
  Built b = build(text);
  Net& net = *b.net;
  const double loss = net.forward(kIteration, kSeed);
  ASSERT_TRUE(std::isfinite(loss));
  net.backward();
  std::vector<kernels::Tensor> diffs;
  for (const NetParameter& p : net.parameters()) diffs.push_back(p.blob->diff().clone());
  const kernels::Tensor input_diff = net.input().diff().clone();
  for (std::size_t k = 0; k < net.parameters().size(); ++k)
    check_tensor(net, net.parameters()[k].blob->data(), diffs[k], net.parameters()[k].name);
  check_tensor(net, net.input().data(), input_diff, "input");
}

TEST(LayerwiseBranch, AChainGetsNoSplit) {
  Built b = build(graph::testing::tiny_lenet_text());
  EXPECT_EQ(split_count(*b.net), 0);
  EXPECT_EQ(b.net->layers().size(), b.spec.layers.size());
}

TEST(LayerwiseBranch, ResidualBlockSplitsItsInputAfterTheInPlaceRelu) {
  Built b = build(residual_text());
  const Net& net = *b.net;
  EXPECT_EQ(split_count(net), 1);
  const auto layers = layers_of(net);
  std::vector<std::string> order;
  for (const auto& l : layers) order.push_back(l.name);
  // relu0 writes in place on conv0's blob, so the blob is "conv0" and its producer relu0.
  EXPECT_EQ(order, (std::vector<std::string>{"conv0", "relu0", "conv0_relu0_0_split", "conv1", "bn1", "relu1",
                                             "conv2", "sum", "relu2", "gap", "ip", "loss"}));
  const LayerInfo& split = layers[2];
  EXPECT_EQ(split.type, "Split");
  EXPECT_EQ(split.bottoms, (std::vector<std::string>{"conv0"}));
  EXPECT_EQ(split.tops, (std::vector<std::string>{"conv0_relu0_0_split_0", "conv0_relu0_0_split_1"}));
  EXPECT_EQ(layers[3].bottoms, (std::vector<std::string>{"conv0_relu0_0_split_0"}));  // conv1: the first reader
  EXPECT_EQ(layers[7].type, "Eltwise");
  EXPECT_EQ(layers[7].bottoms, (std::vector<std::string>{"conv2", "conv0_relu0_0_split_1"}));
  EXPECT_EQ(layers[9].type, "Pooling");
  EXPECT_TRUE(net.in_place(index_of(net, "relu0")));  // its blob has one reader
  EXPECT_TRUE(net.in_place(index_of(net, "relu2")));  // after the add, one reader
  // global_avg_pool: each channel's mean over its 5 x 5 plane (relu2 wrote in place on "sum").
  b.net->forward(kIteration, kSeed);
  const kernels::Tensor& planes = b.net->blob("relu2").data();
  const kernels::Tensor& means = b.net->blob("gap").data();
  ASSERT_EQ(means.shape(), (kernels::Shape{2, 3, 1, 1}));
  for (std::int64_t nc = 0; nc < 6; ++nc) {
    double total = 0;
    for (std::int64_t i = 0; i < 25; ++i) total += planes.at(nc * 25 + i);
    EXPECT_NEAR(means.at(nc), total / 25, 1e-12) << nc;
  }
  // The split tops are the bottom's data (no copy), each with a diff of its own.
  const std::size_t s = index_of(net, "conv0_relu0_0_split");
  for (const Blob* top : net.tops(s)) {
    EXPECT_TRUE(top->data().same_storage(net.bottoms(s)[0]->data()));
    EXPECT_FALSE(top->diff().same_storage(net.bottoms(s)[0]->diff()));
  }
}

TEST(LayerwiseBranch, NoLayerWritesInPlaceOnASplitTop) {
  Built b = build(fan_out_text());
  Net& net = *b.net;
  const auto layers = layers_of(net);
  ASSERT_EQ(split_count(net), 1);
  EXPECT_EQ(layers[1].name, "conv0_conv0_0_split");
  for (const char* reader : {"ra", "rb"}) {
    const std::size_t i = index_of(net, reader);
    EXPECT_FALSE(net.in_place(i)) << reader;
    EXPECT_EQ(net.tops(i)[0]->name(), reader);
  }
  EXPECT_EQ(layers[index_of(net, "ra")].bottoms, (std::vector<std::string>{"conv0_conv0_0_split_0"}));
  EXPECT_EQ(layers[index_of(net, "rb")].bottoms, (std::vector<std::string>{"conv0_conv0_0_split_1"}));
  // After forward the ReLU has not clipped the data the dropout branch reads.
  net.forward(kIteration, kSeed);
  const kernels::Tensor& conv0 = net.blob("conv0").data();
  const kernels::Tensor& ra = net.blob("ra").data();
  int negative = 0;
  for (std::int64_t i = 0; i < conv0.numel(); ++i) {
    negative += conv0.at(i) < 0;
    EXPECT_EQ(ra.at(i), std::max(conv0.at(i), 0.0)) << i;
  }
  EXPECT_GT(negative, 0) << "the check needs some negative convolution outputs";
  // The Eltwise sum is ra + rb.
  const kernels::Tensor& rb = net.blob("rb").data();
  const kernels::Tensor& sum = net.blob("sum").data();
  for (std::int64_t i = 0; i < sum.numel(); ++i) EXPECT_DOUBLE_EQ(sum.at(i), ra.at(i) + rb.at(i)) << i;
}

TEST(LayerwiseBranch, ModelInputReadTwiceIsSplitFirst) {
  Built b = build(input_twice_text());
  const auto layers = layers_of(*b.net);
  ASSERT_EQ(split_count(*b.net), 2);
  EXPECT_EQ(layers[0].name, "data_input_0_split");
  EXPECT_EQ(layers[0].bottoms, (std::vector<std::string>{"data"}));
  EXPECT_EQ(layers[0].tops, (std::vector<std::string>{"data_input_0_split_0", "data_input_0_split_1"}));
  EXPECT_EQ(layers[1].name, "a");
  EXPECT_EQ(layers[1].bottoms, (std::vector<std::string>{"data_input_0_split_0"}));
  EXPECT_EQ(layers[2].bottoms, (std::vector<std::string>{"data_input_0_split_1"}));
  EXPECT_EQ(layers[4].name, "sum_sum_0_split");
  EXPECT_EQ(layers[5].name, "twice");
  EXPECT_EQ(layers[5].bottoms, (std::vector<std::string>{"sum_sum_0_split_0", "sum_sum_0_split_1"}));
  // Without force_backward the input's Split propagates nothing.
  Built plain = build(input_twice_text(), /*force_backward=*/false);
  plain.net->forward(kIteration, kSeed);
  plain.net->backward();
  const kernels::Tensor& dx = plain.net->input().diff();
  for (std::int64_t i = 0; i < dx.numel(); ++i) ASSERT_EQ(dx.at(i), 0.0) << i;
}

TEST(LayerwiseBranch, ModelInputReadTwiceTrains) {
  auto backend = kernels::make_backend("reference");
  auto spec = graph::testing::parse(input_twice_text());
  EngineOptions options;
  options.batch = 4;
  options.seed = 3;
  options.optimizer.lr.base_lr = 0.1;
  auto engine = make_engine("layerwise", spec, *backend, options);
  auto batch = graph::testing::random_batch(spec, 4, kernels::DType::f32, 21);
  const double first = engine->train_step(batch.x, batch.labels, 0);
  double last = first;
  for (int t = 1; t < 30; ++t) last = engine->train_step(batch.x, batch.labels, t);
  EXPECT_TRUE(std::isfinite(last));
  EXPECT_LT(last, first);
}

TEST(LayerwiseBranch, ThreeReadersShareOneSplitAndConcatJoinsThem) {
  Built b = build(concat_text());
  Net& net = *b.net;
  const auto layers = layers_of(net);
  ASSERT_EQ(split_count(net), 1);
  EXPECT_EQ(layers[1].name, "stem_stem_0_split");
  EXPECT_EQ(layers[1].tops, (std::vector<std::string>{"stem_stem_0_split_0", "stem_stem_0_split_1",
                                                      "stem_stem_0_split_2"}));
  const LayerInfo& cat = layers[index_of(net, "cat")];
  EXPECT_EQ(cat.type, "Concat");
  EXPECT_EQ(cat.bottoms, (std::vector<std::string>{"left", "right", "stem_stem_0_split_2"}));
  EXPECT_TRUE(net.in_place(index_of(net, "rr")));  // on right's blob, which only rr reads
  // The top is [N, 2 + 3 + 2, H, W] with each bottom's channels in order.
  net.forward(kIteration, kSeed);
  const kernels::Tensor& top = net.blob("cat").data();
  ASSERT_EQ(top.shape(), (kernels::Shape{2, 7, 5, 5}));
  const char* parts[] = {"left", "right", "stem"};
  std::int64_t offset = 0;
  for (const char* part : parts) {
    const kernels::Tensor& x = net.blob(part).data();
    const std::int64_t c = x.dim(1), plane = 25;
    for (std::int64_t n = 0; n < 2; ++n)
      for (std::int64_t i = 0; i < c * plane; ++i)
        ASSERT_EQ(top.at((n * 7 + offset) * plane + i), x.at(n * c * plane + i)) << part << " " << n << " " << i;
    offset += c;
  }
}

TEST(LayerwiseBranch, GradientCheckConcatOfThreeBranches) { gradient_check(concat_text()); }
TEST(LayerwiseBranch, GradientCheckResidualBlock) { gradient_check(residual_text()); }
TEST(LayerwiseBranch, GradientCheckFanOutWithoutInPlace) { gradient_check(fan_out_text()); }
TEST(LayerwiseBranch, GradientCheckModelInputReadTwice) { gradient_check(input_twice_text()); }

}  // namespace
}  // namespace ablate::graph::layerwise
