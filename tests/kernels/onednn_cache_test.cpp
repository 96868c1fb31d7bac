// The onednn backend's primitive cache: a repeated call (a training step after the first)
// builds no primitive, a new shape or parameter builds one, and cached buffers (reordered
// copies, workspaces) carry no stale data from one call into the next.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <thread>
#include <utility>
#include <vector>

#include "kernels/onednn/onednn_backend_impl.h"
#include "kernels/registry.h"
#include "kernels/shared_tuning.h"

namespace ablate::kernels {
namespace {

using onednn::ConvLayout;
using onednn::OnednnBackend;
using onednn::OnednnOptions;

OnednnOptions with_layout(ConvLayout layout, bool forward_training = true) {
  OnednnOptions options;
  options.conv_layout = layout;
  options.conv_forward_training = forward_training;
  return options;
}

Tensor random_f32(const Shape& shape, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Tensor t(shape, DType::f32);
  float* p = t.data<float>();
  for (std::int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(u(rng));
  return t;
}

double max_abs_diff(const Tensor& a, const Tensor& b) {
  double worst = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i) worst = std::max(worst, std::abs(a.at(i) - b.at(i)));
  return worst;
}

// max |a - b| relative to the largest |b| (at least 1): f32 sums of hundreds of terms of
// magnitudes in the hundreds differ in the last bits between layouts.
double max_rel_diff(const Tensor& a, const Tensor& b) {
  double scale = 1;
  for (std::int64_t i = 0; i < b.numel(); ++i) scale = std::max(scale, std::abs(b.at(i)));
  return max_abs_diff(a, b) / scale;
}

// One forward + backward of LeNet's layers at batch n: conv 5x5/20, max-pool 2/2,
// conv 5x5/50, max-pool 2/2, fc 800->500, relu, fc 500->10, log-softmax.
struct LeNetStep {
  std::int64_t n;
  Tensor x, w1, b1, c1, p1, ws1, w2, b2, c2, p2, ws2, w3, b3, f3, w4, b4, f4, out;
  Tensor dout, df4, dw4, db4, df3, dw3, db3, dp2, dc2, dw2, db2, dp1, dc1, dw1, db1;
  Conv2dParams conv;
  Pool2dParams pool1 = make_pool2d_params(PoolKind::max, 2, 2, 0, PoolPadding::caffe_ceil, 24, 24);
  Pool2dParams pool2 = make_pool2d_params(PoolKind::max, 2, 2, 0, PoolPadding::caffe_ceil, 8, 8);

  explicit LeNetStep(std::int64_t n) : n(n) {
    x = random_f32({n, 1, 28, 28}, 1);
    w1 = random_f32({20, 1, 5, 5}, 2), b1 = random_f32({20}, 3), c1 = Tensor({n, 20, 24, 24});
    p1 = Tensor({n, 20, 12, 12});
    w2 = random_f32({50, 20, 5, 5}, 4), b2 = random_f32({50}, 5), c2 = Tensor({n, 50, 8, 8});
    p2 = Tensor({n, 50, 4, 4});
    w3 = random_f32({500, 800}, 6), b3 = random_f32({500}, 7), f3 = Tensor({n, 500});
    w4 = random_f32({10, 500}, 8), b4 = random_f32({10}, 9), f4 = Tensor({n, 10}), out = Tensor({n, 10});
    dout = random_f32({n, 10}, 10);
    for (Tensor* t : {&df4, &df3}) *t = Tensor({n, t == &df4 ? 10 : 500});
    dw4 = Tensor({10, 500}), db4 = Tensor({10}), dw3 = Tensor({500, 800}), db3 = Tensor({500});
    dp2 = Tensor({n, 50, 4, 4}), dc2 = Tensor({n, 50, 8, 8}), dw2 = Tensor({50, 20, 5, 5}), db2 = Tensor({50});
    dp1 = Tensor({n, 20, 12, 12}), dc1 = Tensor({n, 20, 24, 24}), dw1 = Tensor({20, 1, 5, 5}), db1 = Tensor({20});
  }

  void run(Backend& b) {
    b.conv2d_forward(x, w1, b1, c1, conv);
    b.pool2d_forward(c1, p1, ws1, pool1);
    b.conv2d_forward(p1, w2, b2, c2, conv);
    b.pool2d_forward(c2, p2, ws2, pool2);
    b.linear_forward(p2.reshaped({n, 800}), w3, b3, f3);
    b.activation_forward(Activation::relu, f3, f3);
    b.linear_forward(f3, w4, b4, f4);
    b.log_softmax_forward(f4, out);
    b.log_softmax_backward(out, dout, df4);
    b.linear_backward_weights(f3, df4, dw4, db4);
    b.linear_backward_data(df4, w4, df3);
    b.activation_backward(Activation::relu, f3, df3, df3);
    b.linear_backward_weights(p2.reshaped({n, 800}), df3, dw3, db3);
    Tensor dp2_flat = dp2.reshaped({n, 800});
    b.linear_backward_data(df3, w3, dp2_flat);
    b.pool2d_backward(c2, p2, dp2, ws2, dc2, pool2);
    b.conv2d_backward_weights(p1, dc2, dw2, db2, conv);
    b.conv2d_backward_data(dc2, w2, dp1, conv);
    b.pool2d_backward(c1, p1, dp1, ws1, dc1, pool1);
    b.conv2d_backward_weights(x, dc1, dw1, db1, conv);
  }
};

TEST(OnednnCache, SecondTrainingStepBuildsNothing) {
  OnednnBackend backend;
  LeNetStep step(4);
  step.run(backend);
  const auto builds = backend.primitive_builds();
  // One primitive per op of the step but the 2x2 pools (ablate's loops): 6 forward, 9 backward.
  EXPECT_EQ(builds, 15) << "one primitive per op of the step but the pools: 6 forward, 9 backward";
  EXPECT_EQ(backend.primitive_hits(), 0);
  step.run(backend);
  EXPECT_EQ(backend.primitive_builds(), builds);
  EXPECT_EQ(backend.primitive_hits(), 15);
}

// The one-time work a timer subtracts (Backend::setup_seconds): the builds' wall time grows
// with the first step and stands still in the second, which builds nothing.
TEST(OnednnCache, SetupSecondsCountTheBuildsOnly) {
  OnednnBackend backend;
  EXPECT_EQ(backend.setup_seconds(), 0.0);
  LeNetStep step(4);
  step.run(backend);
  const double first = backend.setup_seconds();
  EXPECT_GT(first, 0.0);
  step.run(backend);
  EXPECT_EQ(backend.setup_seconds(), first);
}

TEST(OnednnCache, IdenticalCallBuildsNoPrimitiveNewShapeDoes) {
  OnednnBackend backend;
  Conv2dParams p;
  Tensor x = random_f32({2, 3, 9, 9}, 1), w = random_f32({4, 3, 3, 3}, 2), bias = random_f32({4}, 3);
  Tensor y({2, 4, 7, 7});
  backend.conv2d_forward(x, w, bias, y, p);
  EXPECT_EQ(backend.primitive_builds(), 1);
  backend.conv2d_forward(x, w, bias, y, p);
  EXPECT_EQ(backend.primitive_builds(), 1);
  EXPECT_EQ(backend.primitive_hits(), 1);

  Tensor x2 = random_f32({3, 3, 9, 9}, 4), y2({3, 4, 7, 7});  // another batch
  backend.conv2d_forward(x2, w, bias, y2, p);
  EXPECT_EQ(backend.primitive_builds(), 2);
  p.pad_top = p.pad_bottom = 1;  // another padding
  Tensor y3({2, 4, 9, 7});
  backend.conv2d_forward(x, w, bias, y3, p);
  EXPECT_EQ(backend.primitive_builds(), 3);
  backend.conv2d_forward(x, w, Tensor(), y3, p);  // no bias
  EXPECT_EQ(backend.primitive_builds(), 4);
  backend.set_threads(backend.threads() + 1);  // primitives partition work per thread count
  backend.conv2d_forward(x, w, Tensor(), y3, p);
  EXPECT_EQ(backend.primitive_builds(), 5);
  EXPECT_EQ(backend.cached_primitives(), 5u);
}

TEST(OnednnCache, LrnParametersAreKeysAndF64BuildsNothing) {
  OnednnBackend backend;
  Tensor x = random_f32({2, 7, 3, 3}, 1), y({2, 7, 3, 3}), ws;
  LrnParams p;
  backend.lrn_forward(x, y, ws, p);
  p.alpha *= 1.0 + 1e-12;  // differs beyond float printing's default 6 digits
  backend.lrn_forward(x, y, ws, p);
  EXPECT_EQ(backend.primitive_builds(), 2);

  Tensor x64({2, 7, 3, 3}, DType::f64), y64({2, 7, 3, 3}, DType::f64);
  x64.copy_from(x);
  backend.activation_forward(Activation::tanh, x64, y64);  // f64 takes the shared loops
  EXPECT_EQ(backend.primitive_builds(), 2);
  EXPECT_NEAR(y64.at(5), std::tanh(x64.at(5)), 1e-12);
}

// Cached buffers (reordered copies with blocked layouts, workspaces) must hold this call's
// data: a second call with new inputs equals a fresh backend's answer.
TEST(OnednnCache, ReusedBuffersCarryNoStaleData) {
  for (ConvLayout layout : {ConvLayout::plain, ConvLayout::nhwc, ConvLayout::blocked}) {
    OnednnBackend warm(with_layout(layout)), fresh(with_layout(layout));
    LeNetStep a(3), b(3);
    a.run(warm);
    b.x = random_f32({3, 1, 28, 28}, 99);
    b.w2 = random_f32({50, 20, 5, 5}, 98);
    b.run(warm);
    LeNetStep c(3);
    c.x = b.x.clone();
    c.w2 = b.w2.clone();
    c.run(fresh);
    for (auto [got, want] : {std::pair{&b.c2, &c.c2}, {&b.dw1, &c.dw1}, {&b.dp1, &c.dp1}, {&b.dw2, &c.dw2}})
      EXPECT_EQ(max_abs_diff(*got, *want), 0.0) << conv_layout_name(layout);
    EXPECT_GT(max_abs_diff(a.c2, b.c2), 0.1) << "the inputs changed, so must the output";
  }
}

// Every layout and both forward prop kinds compute the same convolutions.
TEST(OnednnCache, LayoutOptionsAgree) {
  OnednnBackend plain_backend(with_layout(ConvLayout::plain, false));
  LeNetStep a(2);
  a.run(plain_backend);
  for (ConvLayout layout : {ConvLayout::nhwc, ConvLayout::blocked, ConvLayout::autotune}) {
    OnednnBackend backend(with_layout(layout));
    LeNetStep b(2);
    b.run(backend);
    for (auto [got, want] : {std::pair{&b.c1, &a.c1}, {&b.c2, &a.c2}, {&b.dw2, &a.dw2}, {&b.db2, &a.db2},
                             {&b.dp1, &a.dp1}, {&b.dw1, &a.dw1}})
      EXPECT_LT(max_rel_diff(*got, *want), 1e-5) << conv_layout_name(layout);
  }
}

// Autotune keeps one concrete layout per convolution primitive, chosen on the first call.
TEST(OnednnCache, AutotuneRecordsOneLayoutPerConvolution) {
  OnednnBackend backend(with_layout(ConvLayout::autotune));
  EXPECT_FALSE(backend.deterministic()) << "the choice is timed";
  LeNetStep step(2);
  step.run(backend);
  const auto layouts = backend.conv_layouts();
  ASSERT_EQ(layouts.size(), 5u) << "conv1 forward and backward weights, conv2 forward, backward data and weights";
  for (const auto& [key, layout] : layouts) {
    EXPECT_EQ(key.rfind("conv2d_", 0), 0u) << key;
    EXPECT_TRUE(layout == "plain" || layout == "nhwc" || layout == "blocked") << key << ": " << layout;
  }
  const auto builds = backend.primitive_builds();
  step.run(backend);
  EXPECT_EQ(backend.primitive_builds(), builds);
  EXPECT_EQ(backend.conv_layouts(), layouts);
  EXPECT_TRUE(OnednnBackend(with_layout(ConvLayout::nhwc)).deterministic());
}

// Within a SharedTuning scope (the plan's measurement) a second backend takes each convolution's
// layout as the first timed it, without timing again; outside one every backend times its own,
// and the scope's end forgets the winners.
TEST(OnednnCache, ASharedTuningScopeHandsTheFirstBackendsLayoutsToTheNext) {
  {
    OnednnBackend alone(with_layout(ConvLayout::autotune));
    LeNetStep step(2);
    step.run(alone);
    EXPECT_EQ(SharedTuning::recorded(), 0) << "no scope: nothing shared";
  }
  {
    const SharedTuning scope;
    OnednnBackend first(with_layout(ConvLayout::autotune)), second(with_layout(ConvLayout::autotune));
    LeNetStep a(2), b(2);
    a.run(first);
    EXPECT_EQ(SharedTuning::recorded(), 5) << "conv1 forward and backward weights, conv2's three";
    EXPECT_EQ(SharedTuning::handed_out(), 0);
    b.run(second);
    EXPECT_EQ(SharedTuning::handed_out(), 5);
    EXPECT_EQ(second.conv_layouts(), first.conv_layouts());
    for (auto [got, want] : {std::pair{&b.c1, &a.c1}, {&b.c2, &a.c2}, {&b.dw2, &a.dw2}, {&b.dp1, &a.dp1}})
      EXPECT_LT(max_rel_diff(*got, *want), 1e-5);
  }
  EXPECT_EQ(SharedTuning::recorded(), 0) << "the scope's end forgets the winners";
  EXPECT_EQ(SharedTuning::winner("anything"), std::nullopt);
}

// A static graph's inter-op pool calls one backend from several threads: entries of one
// shape are shared (their buffers serialised), and each thread runs at the backend's count.
TEST(OnednnCache, ConcurrentCallersShareEntriesSafely) {
  OnednnBackend sequential_backend(with_layout(ConvLayout::nhwc)), shared(with_layout(ConvLayout::nhwc));
  LeNetStep expected(2);
  expected.run(sequential_backend);
  std::vector<LeNetStep> steps;  // each its own tensors (a copy would share storage)
  steps.reserve(4);
  for (int i = 0; i < 4; ++i) steps.emplace_back(2);
  std::vector<std::thread> threads;
  for (auto& step : steps) threads.emplace_back([&shared, &step] {
    for (int i = 0; i < 3; ++i) step.run(shared);
  });
  for (auto& t : threads) t.join();
  EXPECT_EQ(shared.primitive_builds(), sequential_backend.primitive_builds());
  for (auto& step : steps) {
    EXPECT_EQ(max_abs_diff(step.dw1, expected.dw1), 0.0);
    EXPECT_EQ(max_abs_diff(step.dp1, expected.dp1), 0.0);
    EXPECT_EQ(max_abs_diff(step.out, expected.out), 0.0);
  }
}

TEST(OnednnCache, MaxPoolWorkspaceIsOnednnsBytes) {
  OnednnBackend backend;
  Pool2dParams p = make_pool2d_params(PoolKind::max, 3, 2, 0, PoolPadding::caffe_ceil, 7, 7);
  Tensor x = random_f32({1, 2, 7, 7}, 1), y({1, 2, 3, 3}), ws, dx({1, 2, 7, 7});
  backend.pool2d_forward(x, y, ws, p);
  ASSERT_FALSE(ws.empty());
  EXPECT_EQ(ws.dtype(), DType::u8);
  EXPECT_GE(ws.numel(), y.numel()) << "one argmax entry per output";
  Tensor wrong({ws.numel() + 1}, DType::u8);
  EXPECT_THROW(backend.pool2d_backward(x, y, y, wrong, dx, p), std::invalid_argument);
  EXPECT_THROW(backend.pool2d_backward(x, y, y, Tensor(), dx, p), std::invalid_argument);
}

// 2x2 windows at stride 2 run the CPU loops (faster than the primitive): their workspace is the
// loops' i32 argmax index, read back by the same loops' backward.
TEST(OnednnCache, TwoByTwoMaxPoolRunsTheLoopsWithTheirIndexWorkspace) {
  OnednnBackend backend;
  Pool2dParams p = make_pool2d_params(PoolKind::max, 2, 2, 0, PoolPadding::caffe_ceil, 6, 6);
  Tensor x = random_f32({1, 2, 6, 6}, 1), y({1, 2, 3, 3}), ws, dx({1, 2, 6, 6});
  backend.pool2d_forward(x, y, ws, p);
  EXPECT_EQ(ws.dtype(), DType::i32);
  EXPECT_EQ(ws.shape(), y.shape());
  Tensor dy = random_f32({1, 2, 3, 3}, 2);
  backend.pool2d_backward(x, y, dy, ws, dx, p);
  // Each window's gradient lands on its largest cell (random values: no ties), the rest 0.
  for (std::int64_t plane = 0; plane < 2; ++plane)
    for (std::int64_t o = 0; o < 9; ++o) {
      const std::int64_t oh = o / 3, ow = o % 3;
      std::int64_t best = -1;
      for (std::int64_t i = 0; i < 2; ++i)
        for (std::int64_t j = 0; j < 2; ++j) {
          const std::int64_t at = plane * 36 + (2 * oh + i) * 6 + 2 * ow + j;
          if (best < 0 || x.data<float>()[at] > x.data<float>()[best]) best = at;
        }
      EXPECT_EQ(y.data<float>()[plane * 9 + o], x.data<float>()[best]);
      EXPECT_EQ(dx.data<float>()[best], dy.data<float>()[plane * 9 + o]);
    }
}

TEST(OnednnCache, RegistryGivesTheOnednnBackend) {
  auto backend = make_backend("onednn", 1);
  EXPECT_NE(dynamic_cast<OnednnBackend*>(backend.get()), nullptr);
  EXPECT_NE(backend->library_version().find("oneDNN 2."), std::string::npos) << backend->library_version();
  EXPECT_NE(backend->library_version().find("f64"), std::string::npos) << backend->library_version();
}

}  // namespace
}  // namespace ablate::kernels
