// PlannedBackend (kernels/planned_backend.h): each op runs on the backend routed to the layer
// named by the thread's op label, the fallback elsewhere; routes are checked; identity and
// settings reach every backend it holds; OpenBLAS's threads are released where the backend
// changes.
#include <gtest/gtest.h>

#include <algorithm>

#include "kernels/op_label.h"
#include "kernels/planned_backend.h"
#include "kernels/registry.h"
#include "tests/kernels/library_pool.h"

namespace ablate::kernels {
namespace {

using testing::product;
using testing::thread_count;

std::unique_ptr<Backend> reference_with(PoolGradient g) {
  BackendOptions o;
  o.pool_gradient = g;
  return make_backend("reference", o);
}

// Max pooling of one 2x2 window of four equal values: the gradient goes to the first cell
// (PoolGradient::first) or to all four (PoolGradient::all), so the result tells which
// backend ran the op.
Tensor pooled_gradient(Backend& backend) {
  Tensor x({1, 1, 2, 2}), y({1, 1, 1, 1}), workspace, dy({1, 1, 1, 1}), dx({1, 1, 2, 2});
  for (int i = 0; i < 4; ++i) x.data<float>()[i] = 3.0f;
  dy.data<float>()[0] = 1.0f;
  Pool2dParams p;
  p.kind = PoolKind::max;
  p.out_h = p.out_w = 1;
  backend.pool2d_forward(x, y, workspace, p);
  backend.pool2d_backward(x, y, dy, workspace, dx, p);
  return dx;
}

TEST(PlannedBackend, RunsEachLayerOnItsRoutedBackend) {
  PlannedBackend planned(reference_with(PoolGradient::first), "reference/first");
  Backend& all = planned.add(reference_with(PoolGradient::all), "reference/all");
  planned.route("pool_all", all);

  {
    const OpLabelScope label({"backward", "pool_all", "pooling"});
    const Tensor dx = pooled_gradient(planned);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(dx.data<float>()[i], 1.0f) << "routed layer, cell " << i;
  }
  {
    const OpLabelScope label({"backward", "pool_other", "pooling"});
    const Tensor dx = pooled_gradient(planned);
    EXPECT_EQ(dx.data<float>()[0], 1.0f);
    for (int i = 1; i < 4; ++i) EXPECT_EQ(dx.data<float>()[i], 0.0f) << "unrouted layer: the fallback, cell " << i;
  }
  const Tensor no_label = pooled_gradient(planned);
  EXPECT_EQ(no_label.data<float>()[3], 0.0f) << "an op of no layer runs on the fallback";

  planned.route_all(&all);
  EXPECT_EQ(pooled_gradient(planned).data<float>()[3], 1.0f) << "route_all sends every op to one backend";
  {
    // route_all with a stand-in: every op on `all` except layer pool_other's, on the fallback.
    planned.route_all(&all, {{"pool_other", &planned.fallback()}});
    const OpLabelScope label({"backward", "pool_other", "pooling"});
    EXPECT_EQ(pooled_gradient(planned).data<float>()[3], 0.0f) << "the excepted layer on its stand-in";
  }
  {
    const OpLabelScope label({"backward", "pool_third", "pooling"});
    EXPECT_EQ(pooled_gradient(planned).data<float>()[3], 1.0f) << "every other layer on route_all's backend";
  }
  planned.route_all(nullptr);
  EXPECT_EQ(pooled_gradient(planned).data<float>()[3], 0.0f);
  {
    const OpLabelScope label({"backward", "pool_other", "pooling"});
    EXPECT_EQ(pooled_gradient(planned).data<float>()[3], 0.0f) << "the routes again";
  }
}

// The ops that reached one backend of a plan.
class OpsSeen final : public OpObserver {
 public:
  void begin(OpCall&) override {}
  void end(const OpCall& call, bool) override { ops.push_back(call.op); }
  std::vector<Op> ops;
};

// One convolution's three passes under layer conv1's label.
void convolution_passes(Backend& backend) {
  Tensor x({1, 1, 4, 4}), w({1, 1, 3, 3}), bias({1}), y({1, 1, 2, 2}), dy({1, 1, 2, 2}), dx({1, 1, 4, 4}),
      dw({1, 1, 3, 3}), dbias({1});
  backend.fill(x, 1.0);
  backend.fill(w, 0.5);
  backend.fill(bias, 0.0);
  backend.fill(dy, 1.0);
  const OpLabelScope label({"backward", "conv1", "convolution"});
  backend.conv2d_forward(x, w, bias, y, Conv2dParams{});
  backend.conv2d_backward_data(dy, w, dx, Conv2dParams{});
  backend.conv2d_backward_weights(x, dy, dw, dbias, Conv2dParams{});
}

TEST(PlannedBackend, AWeightsRowRunsTheLayersWeightGradientUnlessTheLayerIsBlocked) {
  EXPECT_EQ(PlannedBackend::weights_row("conv1"), "conv1:weights");
  EXPECT_EQ(PlannedBackend::weights_layer("conv1:weights"), "conv1");
  EXPECT_EQ(PlannedBackend::weights_layer("conv1"), "");
  EXPECT_EQ(PlannedBackend::weights_layer(":weights"), "");
  for (const bool blocked : {false, true}) {
    PlannedBackend planned(make_backend("reference"), "reference");
    Backend& layer = planned.add(make_backend("reference"), "layer");
    Backend& gradient = planned.add(make_backend("reference"), "gradient");
    OpsSeen on_layer, on_gradient;
    layer.set_observer(&on_layer);
    gradient.set_observer(&on_gradient);
    planned.route("conv1", layer, blocked);
    planned.route("conv1:weights", gradient, true);  // a weights row takes its layer's layout, whatever it asks
    convolution_passes(planned);
    const std::vector<Op> both = {Op::conv2d_forward, Op::conv2d_backward_data};
    if (blocked) {
      EXPECT_TRUE(on_gradient.ops.empty()) << "a blocked layer keeps its weight gradient";
      EXPECT_EQ(on_layer.ops.size(), 3u);
    } else {
      EXPECT_EQ(on_layer.ops, both);
      EXPECT_EQ(on_gradient.ops, std::vector<Op>{Op::conv2d_backward_weights});
      EXPECT_EQ(planned.channel_block_for(DType::f32, "conv1:weights"), 0);
    }
  }
  // route_all with a weights row among the stand-ins: the gradient there, the rest on route_all's.
  PlannedBackend planned(make_backend("reference"), "reference");
  Backend& gradient = planned.add(make_backend("reference"), "gradient");
  OpsSeen on_fallback, on_gradient;
  planned.fallback().set_observer(&on_fallback);
  gradient.set_observer(&on_gradient);
  planned.route_all(&planned.fallback(), {{"conv1:weights", &gradient}});
  convolution_passes(planned);
  EXPECT_EQ(on_gradient.ops, std::vector<Op>{Op::conv2d_backward_weights});
  EXPECT_EQ(on_fallback.ops.size(), 6u);  // the four fills (no layer), the forward and the data gradient
}

TEST(PlannedBackend, RefusesBadRoutes) {
  PlannedBackend planned(make_backend("reference"), "reference");
  auto stranger = make_backend("reference");
  try {
    planned.route("conv1", *stranger);
    FAIL() << "a backend not added was routed";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("was not added"), std::string::npos) << e.what();
  }
  Backend& added = planned.add(make_backend("reference"), "reference-2");
  planned.route("conv1", added);
  try {
    planned.route("conv1", planned.fallback());
    FAIL() << "a layer was routed twice";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("layer 'conv1' is routed twice (to reference-2 and reference)"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(planned.add(nullptr, "none"), std::invalid_argument);
}

TEST(PlannedBackend, SettingsReachEveryBackend) {
  const std::vector<std::string> names = cpu_speed_backend_names();
  if (names.empty()) GTEST_SKIP() << "no optimized host backend in this build";
  PlannedBackend planned(make_backend("reference"), "reference");
  Backend& other = planned.add(make_backend(names.front()), names.front());
  planned.route("ip1", other);
  planned.set_threads(2);
  EXPECT_EQ(planned.threads(), 2);
  EXPECT_EQ(other.threads(), 2);
  EXPECT_EQ(planned.name(), "planned");
  EXPECT_NE(planned.library_version().find(other.library_version()), std::string::npos) << planned.library_version();
  bool routed = false;
  for (const auto& [key, value] : planned.choices()) routed = routed || (key == "plan.ip1" && value == names.front());
  EXPECT_TRUE(routed) << "choices() names each layer's backend";
}

// With release_on_switch, an op on another backend first stops the threads that OpenBLAS left
// spinning after its product (its pthread build); the next product starts them again and is
// right. Without it the threads stay.
TEST(PlannedBackend, AnOpOnAnotherBackendReleasesOpenBlasThreadsWhenAsked) {
  if (const std::string why = testing::no_openblas_pool(); !why.empty()) GTEST_SKIP() << why;
  BackendOptions library;  // OpenBLAS's own threads run the products
  library.conv_lowering = cpu::ConvLowering::per_image_gemm;
  library.threading = cpu::Threading::library;
  PlannedBackend planned(make_backend("reference"), "reference");
  Backend& openblas = planned.add(make_backend("openblas", library), "openblas/per_image_gemm");
  planned.route("ip1", openblas);
  planned.set_threads(2);
  auto product_on_ip1 = [&] {
    const OpLabelScope label({"forward", "ip1", "gemm"});
    product(planned);
  };
  auto op_elsewhere = [&] {
    const OpLabelScope label({"forward", "loss", "gemm"});
    Tensor a({2, 2}), b({2, 2}), c({2, 2});
    planned.gemm(false, false, 1.0, a, b, 0.0, c);
  };
  product_on_ip1();
  const int with_pool = thread_count();
  op_elsewhere();
  EXPECT_EQ(thread_count(), with_pool) << "off by default: OpenBLAS's threads stay";

  planned.set_release_on_switch(true);
  product_on_ip1();
  op_elsewhere();
  EXPECT_LT(thread_count(), with_pool) << "released when the next op ran on the reference";
  product_on_ip1();  // started again, and right (product() checks)
  EXPECT_EQ(thread_count(), with_pool);
  planned.release_threads();
  EXPECT_LT(thread_count(), with_pool) << "release_threads reaches each backend";
}

}  // namespace
}  // namespace ablate::kernels
