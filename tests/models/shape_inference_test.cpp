// Output and parameter shapes of every layer, and geometry errors naming layer and shapes.
#include <gtest/gtest.h>

#include "models/layer_params.h"
#include "models/model_spec.h"
#include "models/shape_inference.h"
#include "error_expectations.h"

namespace ablate::models {
namespace {

using testing::expect_error;
using Dims = std::vector<std::int64_t>;

ModelSpec model(const std::string& input, const std::string& layers, int classes = 3) {
  return parse_model("model m\ninput " + input + "\nclasses " + std::to_string(classes) + "\n" + layers, "shapes.model");
}

TEST(ShapeInference, LenetShapesForAnyBatch) {
  const ModelSpec spec = load_model("lenet");
  for (std::int64_t n : {1, 64}) {
    const auto shapes = infer_shapes(spec, n);
    ASSERT_EQ(shapes.size(), 8u);
    EXPECT_EQ(shapes[0].input, (Dims{n, 1, 28, 28}));
    EXPECT_EQ(shapes[0].output, (Dims{n, 20, 24, 24}));  // conv1
    EXPECT_EQ(shapes[1].output, (Dims{n, 20, 12, 12}));  // pool1
    EXPECT_EQ(shapes[2].output, (Dims{n, 50, 8, 8}));    // conv2
    EXPECT_EQ(shapes[3].output, (Dims{n, 50, 4, 4}));    // pool2
    EXPECT_EQ(shapes[4].output, (Dims{n, 500}));         // ip1
    EXPECT_EQ(shapes[5].output, (Dims{n, 500}));         // relu1
    EXPECT_EQ(shapes[6].output, (Dims{n, 10}));          // ip2
    EXPECT_EQ(shapes[7].output, (Dims{1}));              // loss
    EXPECT_EQ(shapes[4].input, (Dims{n, 50, 4, 4}));
  }
  const auto shapes = infer_shapes(spec, 64);
  EXPECT_EQ(shapes[0].params, (std::vector<Dims>{{20, 1, 5, 5}, {20}}));
  EXPECT_EQ(shapes[2].params, (std::vector<Dims>{{50, 20, 5, 5}, {50}}));
  EXPECT_EQ(shapes[4].params, (std::vector<Dims>{{500, 800}, {500}}));
  EXPECT_EQ(shapes[6].params, (std::vector<Dims>{{10, 500}, {10}}));
  for (int i : {1, 3, 5, 7}) EXPECT_TRUE(shapes[i].params.empty()) << shapes[i].name;
}

TEST(ShapeInference, ConvolutionPaddingModes) {
  const ModelSpec spec = model("3 7 7",
                               "layer same convolution outputs=4 kernel=3 stride=2 padding=same\n"
                               "layer valid convolution outputs=5 kernel_h=3 kernel_w=1 padding=valid input=same\n"
                               "layer expl convolution outputs=6 kernel=3 pad=2 bias=false input=valid\n"
                               "layer f inner_product outputs=3\n"
                               "layer loss softmax_loss\n");
  const auto s = infer_shapes(spec, 2);
  EXPECT_EQ(s[0].output, (Dims{2, 4, 4, 4}));  // TF SAME: ceil(7 / 2)
  EXPECT_EQ(s[1].output, (Dims{2, 5, 2, 4}));  // 4 - 3 + 1, 4 - 1 + 1
  EXPECT_EQ(s[1].params, (std::vector<Dims>{{5, 4, 3, 1}, {5}}));
  EXPECT_EQ(s[2].output, (Dims{2, 6, 4, 6}));  // (2 + 4 - 3) + 1, (4 + 4 - 3) + 1
  EXPECT_EQ(s[2].params, (std::vector<Dims>{{6, 5, 3, 3}}));  // bias=false
  EXPECT_EQ(s[3].params, (std::vector<Dims>{{3, 6 * 4 * 6}, {3}}));
  const ConvGeometry g = conv_geometry(spec.layer("same"), 7, 7);
  EXPECT_EQ(g.params.pad_top + g.params.pad_bottom, 2);  // (4 - 1) * 2 + 3 - 7
  EXPECT_EQ(g.params.stride_h, 2);
}

TEST(ShapeInference, PoolingRoundingConventions) {
  const ModelSpec spec = model("2 5 5",
                               "layer ceil pooling kernel=2 stride=2 padding=caffe_ceil\n"
                               "layer floor pooling kernel=2 input=ceil\n"
                               "layer same pooling mode=avg kernel=3 stride=2 padding=tf_same input=ceil\n"
                               "layer f inner_product outputs=3\n"
                               "layer loss softmax_loss\n");
  const auto s = infer_shapes(spec, 1);
  EXPECT_EQ(s[0].output, (Dims{1, 2, 3, 3}));  // Caffe: ceil((5 - 2) / 2) + 1
  EXPECT_EQ(s[1].output, (Dims{1, 2, 1, 1}));  // valid, stride defaults to kernel: floor((3 - 2) / 2) + 1
  EXPECT_EQ(s[2].output, (Dims{1, 2, 2, 2}));  // TF SAME: ceil(3 / 2)
  const auto p = pool_params(spec.layer("same"), 3, 3);
  EXPECT_EQ(p.kind, kernels::PoolKind::avg);
  EXPECT_EQ(p.stride_h, 2);
}

TEST(ShapeInference, ShapePreservingLayersAndBiasLayer) {
  const ModelSpec spec = model("3 6 6",
                               "layer c convolution outputs=4 kernel=3 bias=false\n"
                               "layer p pooling kernel=2\n"
                               "layer b bias\n"
                               "layer t tanh\n"
                               "layer n lrn size=3\n"
                               "layer d dropout keep=0.5\n"
                               "layer s sigmoid\n"
                               "layer f inner_product outputs=3\n"
                               "layer b2 bias\n"
                               "layer ls log_softmax\n"
                               "layer nll nll_loss\n");
  const auto s = infer_shapes(spec, 8);
  EXPECT_EQ(s[2].params, (std::vector<Dims>{{4}}));
  for (int i = 2; i <= 6; ++i) EXPECT_EQ(s[i].output, (Dims{8, 4, 2, 2})) << s[i].name;
  EXPECT_EQ(s[8].params, (std::vector<Dims>{{3}}));
  EXPECT_EQ(s[9].output, (Dims{8, 3}));
  EXPECT_EQ(s[10].output, (Dims{1}));
}

TEST(ShapeInference, KernelLargerThanPaddedInputNamesLayerAndShapes) {
  const ModelSpec conv = model("1 4 4",
                               "layer c1 convolution outputs=2 kernel=5\n"
                               "layer f inner_product outputs=3\nlayer loss softmax_loss\n");
  expect_error([&] { infer_shapes(conv, 16); },
               {"shapes.model:4:", "'c1'", "kernel 5x5", "padded input 4x4", "[16, 1, 4, 4]"});
  const ModelSpec pool = model("1 8 8",
                               "layer c1 convolution outputs=2 kernel=5\n"
                               "layer p1 pooling kernel=5 padding=caffe_ceil\n"
                               "layer f inner_product outputs=3\nlayer loss softmax_loss\n");
  expect_error([&] { infer_shapes(pool, 2); }, {"shapes.model:5:", "'p1'", "kernel 5x5", "4x4", "[2, 2, 4, 4]"});
}

TEST(ShapeInference, LayoutAndClassMismatches) {
  const ModelSpec conv_after_fc = model("1 8 8",
                                        "layer f1 inner_product outputs=12\n"
                                        "layer c1 convolution outputs=2 kernel=1\n"
                                        "layer f inner_product outputs=3\nlayer loss softmax_loss\n");
  expect_error([&] { infer_shapes(conv_after_fc, 4); }, {"shapes.model:5:", "'c1'", "[N, C, H, W]", "[4, 12]"});
  const ModelSpec wrong_classes = model("1 8 8", "layer f inner_product outputs=4\nlayer loss softmax_loss\n", 3);
  expect_error([&] { infer_shapes(wrong_classes, 4); }, {"shapes.model:5:", "'loss'", "[N, 3]", "[4, 4]"});
  const ModelSpec pad_too_big = model("1 8 8", "layer p pooling kernel=2 pad=2\nlayer f inner_product outputs=3\nlayer loss softmax_loss\n");
  expect_error([&] { infer_shapes(pad_too_big, 1); }, {"shapes.model:4:", "'p'", "pad 2"});
  expect_error([&] { infer_shapes(load_model("lenet"), 0); }, {"batch", "0"});
}

}  // namespace
}  // namespace ablate::models
