// The layer-wise strategy's blocked layout (NetOptions::blocked_layout, graph/layerwise/net.h):
// on oneDNN in f32 the convolution, batch norm, pooling, ReLU and add blobs of a residual
// network and of a cifar10_quick-like chain (max and average pooling, LRN) stay channel-blocked,
// those of a LeNet-like chain whose channels no block divides channels-last (NHWC),
// Split tops take their source's layout, a LayoutConvert layer stands before each reader that
// takes NCHW only; training and evaluation give the losses and weights of the plain net; under
// a plan only the layers routed blocked are; without a blocked layout nothing changes.
#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "blocked_layout_util.h"
#include "graph/engine.h"
#include "graph/layerwise/net.h"
#include "graph_test_util.h"
#include "kernels/planned_backend.h"
#include "kernels/registry.h"
#include "models/checked_model.h"

namespace ablate::graph {
namespace {

using namespace testing::blocked;

layerwise::NetOptions blocked_options() {
  layerwise::NetOptions o;
  o.batch = 4;
  o.blocked_layout = true;
  return o;
}

std::size_t layer_index(const layerwise::Net& net, const std::string& name) {
  for (std::size_t i = 0; i < net.layers().size(); ++i)
    if (net.layers()[i]->name() == name) return i;
  ADD_FAILURE() << "no layer " << name;
  return 0;
}

TEST(LayerwiseBlockedLayout, BlocksBetweenTheBlockedLayersAndConvertsBeforeThePlainReaders) {
  auto backend = kernels::make_backend("onednn", 2);
  const int block = backend->channel_block(kernels::DType::f32);
  if (block == 0) GTEST_SKIP() << "onednn has no blocked layout on this CPU";
  const models::CheckedModel model(testing::parse(residual_bn_text()));
  layerwise::Net net(model, *backend, blocked_options());
  for (const char* name : {"conv0", "bn0", "conv1", "bn1", "conv2", "bn2", "proj", "bnp", "sum"})
    EXPECT_EQ(net.blob(name).channel_block(), block) << name;
  EXPECT_EQ(net.input().channel_block(), 0);
  EXPECT_EQ(net.scores().channel_block(), 0) << "the loss reads NCHW";
  int conversions = 0;
  for (std::size_t i = 0; i < net.layers().size(); ++i) {
    const std::string type = net.layers()[i]->type();
    if (type == "Split") {  // relu0's output feeds conv1 and proj: its tops take its layout
      for (const layerwise::Blob* top : net.tops(i)) EXPECT_EQ(top->channel_block(), block) << net.layers()[i]->name();
    }
    if (type == "LayoutConvert") {
      ++conversions;
      EXPECT_EQ(net.bottoms(i)[0]->channel_block(), block);
      EXPECT_EQ(net.tops(i)[0]->channel_block(), 0);
    }
  }
  EXPECT_EQ(conversions, 1) << "one conversion, before the global average pool";
  const std::size_t pool = layer_index(net, "pool");
  ASSERT_GT(pool, 0u);
  EXPECT_EQ(std::string(net.layers()[pool - 1]->type()), "LayoutConvert");

  const models::CheckedModel quick(testing::parse(quick_text()));
  layerwise::Net chain(quick, *backend, blocked_options());
  for (const char* name : {"conv1", "pool1", "norm1", "conv2", "pool2"})
    EXPECT_EQ(chain.blob(name).channel_block(), block) << name;
  EXPECT_EQ(std::string(chain.layers()[layer_index(chain, "ip") - 1]->type()), "LayoutConvert");

  // channels no block divides: channels-last (a block of all C) from each convolution on
  const models::CheckedModel lenet(testing::parse(lenet_like_text()));
  layerwise::Net narrow(lenet, *backend, blocked_options());
  for (const char* name : {"conv1", "pool1"}) EXPECT_TRUE(narrow.blob(name).data().channels_last()) << name;
  for (const char* name : {"conv2", "norm2", "bn2", "pool2"}) {
    EXPECT_TRUE(narrow.blob(name).data().channels_last()) << name;
    EXPECT_EQ(narrow.blob(name).channel_block(), 12) << name;
  }
  EXPECT_EQ(std::string(narrow.layers()[layer_index(narrow, "ip") - 1]->type()), "LayoutConvert");
}

TEST(LayerwiseBlockedLayout, TrainsAndEvaluatesAsThePlainNet) {
  auto backend = kernels::make_backend("onednn", 2);
  if (backend->channel_block(kernels::DType::f32) == 0) GTEST_SKIP() << "onednn has no blocked layout on this CPU";
  expect_blocked_layout_trains_as_plain("layerwise", *backend);
}

// Under a plan only the layers routed blocked run blocked: conv2 and relu2 on a blocked onednn,
// pool2 on eigen (plain: a conversion before it), the rest on the plain fallback.
TEST(LayerwiseBlockedLayout, APlanKeepsOnlyTheLayersItRoutesBlockedBlocked) {
  auto probe = kernels::make_backend("onednn", 1);
  const int block = probe->channel_block(kernels::DType::f32);
  if (block == 0) GTEST_SKIP() << "onednn has no blocked layout on this CPU";
  auto planned = std::make_unique<kernels::PlannedBackend>(kernels::make_backend("onednn", 1), "onednn");
  kernels::Backend& blocked = planned->add(kernels::make_backend("onednn", 1), "onednn+blocked");
  kernels::Backend& eigen = planned->add(kernels::make_backend("eigen", 1), "eigen");
  planned->route("conv2", blocked, true);
  planned->route("relu2", blocked, true);
  planned->route("pool2", eigen);
  const models::CheckedModel model(testing::parse(quick_text()));
  layerwise::Net net(model, *planned, blocked_options());
  EXPECT_EQ(net.blob("conv1").channel_block(), 0) << "conv1's layer is not routed blocked";
  EXPECT_EQ(net.blob("conv2").channel_block(), block);
  EXPECT_EQ(std::string(net.layers()[layer_index(net, "pool2") - 1]->type()), "LayoutConvert");
  EXPECT_EQ(net.blob("pool2").channel_block(), 0);

  const models::ModelSpec spec = testing::parse(quick_text());
  auto plain_backend = kernels::make_backend("onednn", 1);
  auto plain_engine = make_engine("layerwise", spec, *plain_backend, f32_options());
  auto engine = make_engine("layerwise", spec, *planned, blocked_layout_options());
  expect_close(train(*engine, spec), train(*plain_engine, spec));
}

TEST(LayerwiseBlockedLayout, ChangesNothingWithoutABlockedLayout) {
  const models::CheckedModel model(testing::parse(residual_bn_text()));
  auto eigen = kernels::make_backend("eigen", 1);
  auto onednn = kernels::make_backend("onednn", 1);
  for (auto [backend, dtype] : {std::pair{eigen.get(), kernels::DType::f32}, std::pair{onednn.get(), kernels::DType::f64}}) {
    layerwise::NetOptions o = blocked_options();
    o.dtype = dtype;
    layerwise::Net net(model, *backend, o);
    for (std::size_t i = 0; i < net.layers().size(); ++i) {
      EXPECT_STRNE(net.layers()[i]->type(), "LayoutConvert") << backend->name();
      for (const layerwise::Blob* top : net.tops(i)) EXPECT_EQ(top->channel_block(), 0) << top->name();
    }
  }
}

}  // namespace
}  // namespace ablate::graph
