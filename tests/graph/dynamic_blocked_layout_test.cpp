// The dynamic strategy's blocked layout (EngineOptions::blocked_layout, graph/dynamic/context.h):
// on oneDNN in f32 the tape's convolutions write their backend's block (channels-last where it
// does not divide the channels), batch norm, pooling, LRN, ReLU and add keep it, and a blocked
// input is converted before the layers that read NCHW; training and evaluation give the losses
// and weights of the plain tape; without a blocked backend nothing changes.
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "blocked_layout_util.h"
#include "graph/engine.h"
#include "graph_test_util.h"
#include "kernels/op_label.h"
#include "kernels/op_observer.h"
#include "kernels/registry.h"
#include "kernels/tensor.h"

namespace ablate::graph {
namespace {

using namespace testing::blocked;

// The channel block of each op's first output, by op and layer, as the backend saw them.
class LayoutRecorder final : public kernels::OpObserver {
 public:
  void begin(kernels::OpCall& call) override {
    const kernels::Tensor* out = call.writes.outputs[0];
    if (out && !out->empty())
      blocks[std::string(kernels::op_name(call.op)) + " " + std::string(kernels::current_op_label().layer)] =
          out->channel_block();
  }
  void end(const kernels::OpCall&, bool) override {}
  std::map<std::string, int> blocks;
};

TEST(DynamicBlockedLayout, TrainsAndEvaluatesAsThePlainTape) {
  auto backend = kernels::make_backend("onednn", 2);
  if (backend->channel_block(kernels::DType::f32) == 0) GTEST_SKIP() << "onednn has no blocked layout on this CPU";
  expect_blocked_layout_trains_as_plain("dynamic", *backend);
}

TEST(DynamicBlockedLayout, KeepsTheBlockBetweenTheLayersThatRunItAndConvertsBeforeTheOthers) {
  auto backend = kernels::make_backend("onednn", 2);
  const int block = backend->channel_block(kernels::DType::f32);
  if (block == 0) GTEST_SKIP() << "onednn has no blocked layout on this CPU";
  for (const bool lenet : {false, true}) {
    const models::ModelSpec spec = testing::parse(lenet ? lenet_like_text() : residual_bn_text());
    SCOPED_TRACE(spec.name);
    auto engine = make_engine("dynamic", spec, *backend, blocked_layout_options());
    LayoutRecorder recorder;
    backend->set_observer(&recorder);
    train(*engine, spec);
    backend->set_observer(nullptr);
    auto block_of = [&](const std::string& key) {
      const auto it = recorder.blocks.find(key);
      EXPECT_NE(it, recorder.blocks.end()) << "no " << key;
      return it == recorder.blocks.end() ? -1 : it->second;
    };
    if (lenet) {  // 20 and 12 channels: channels-last
      EXPECT_EQ(block_of("conv2d_forward conv1"), 20);
      EXPECT_EQ(block_of("pool2d_forward pool1"), 20);
      for (const char* layer : {"conv2", "relu2", "norm2", "bn2", "pool2"}) {
        const std::string op = std::string(layer) == "conv2"   ? "conv2d_forward"
                               : std::string(layer) == "relu2" ? "activation_forward"
                               : std::string(layer) == "norm2" ? "lrn_forward"
                               : std::string(layer) == "bn2"   ? "batch_norm_forward_training"
                                                                : "pool2d_forward";
        EXPECT_EQ(block_of(op + " " + layer), 12) << layer;
      }
      EXPECT_EQ(block_of("copy pool2"), 0) << "pool2's output converted before the classifier";
      EXPECT_EQ(block_of("linear_forward ip"), 0);
    } else {
      for (const char* layer : {"conv0", "conv1", "conv2", "proj"}) EXPECT_EQ(block_of(std::string("conv2d_forward ") + layer), block);
      EXPECT_EQ(block_of("add sum"), block) << "the residual add keeps the block";
      EXPECT_EQ(block_of("copy relu2"), 0) << "the block's output converted before the global average pool";
    }
  }
}

TEST(DynamicBlockedLayout, ChangesNothingWithoutABlockedBackend) {
  auto backend = kernels::make_backend("eigen", 2);
  ASSERT_EQ(backend->channel_block(kernels::DType::f32), 0);
  const models::ModelSpec spec = testing::parse(lenet_like_text());
  auto engine = make_engine("dynamic", spec, *backend, blocked_layout_options());
  LayoutRecorder recorder;
  backend->set_observer(&recorder);
  train(*engine, spec);
  backend->set_observer(nullptr);
  for (const auto& [key, b] : recorder.blocks) EXPECT_EQ(b, 0) << key;
}

}  // namespace
}  // namespace ablate::graph
