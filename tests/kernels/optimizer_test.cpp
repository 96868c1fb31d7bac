// The optimizer updates of the reference backend against the formulas of kernels/op_params.h
// worked out by hand for three steps, in f32 and f64: w = [1, -2], gradients
// [0.5, 0.25], [0.5, -1], [-0.2, 0.3].
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kernels/registry.h"
#include "test_tensors.h"

namespace ablate::kernels::test {
namespace {

const std::vector<std::vector<double>> kGradients = {{0.5, 0.25}, {0.5, -1.0}, {-0.2, 0.3}};

Tensor vec(std::vector<double> v, DType dtype) {
  Tensor t({static_cast<std::int64_t>(v.size())}, dtype);
  for (std::size_t i = 0; i < v.size(); ++i) t.set(static_cast<std::int64_t>(i), v[i]);
  return t;
}

class OptimizerByHand : public ::testing::TestWithParam<DType> {
 protected:
  std::unique_ptr<Backend> b = make_backend("reference");
  DType dt = GetParam();
  double tol() const { return dt == DType::f32 ? 1e-6 : 1e-13; }
  void expect(const Tensor& t, std::vector<double> want, const char* what, int step) {
    EXPECT_TRUE(all_near(t, vec(want, DType::f64), tol())) << what << " after step " << step;
  }
};

TEST_P(OptimizerByHand, CaffeSgd) {
  // lr 0.1, momentum 0.9, weight decay 0.1: g += 0.1 w; h = 0.9 h + 0.1 g; w -= h.
  // Step 1: g = (0.5 + 0.1, 0.25 - 0.2) = (0.6, 0.05); h = (0.06, 0.005); w = (0.94, -2.005).
  // Step 2: g = (0.5 + 0.094, -1 - 0.2005); h = (0.054 + 0.0594, 0.0045 - 0.12005);
  //         w = (0.94 - 0.1134, -2.005 + 0.11555).
  const std::vector<std::vector<double>> w_after = {{0.94, -2.005}, {0.8266, -1.88945}, {0.736274, -1.7965605}};
  const std::vector<std::vector<double>> h_after = {{0.06, 0.005}, {0.1134, -0.11555}, {0.090326, -0.0928895}};
  Tensor w = vec({1.0, -2.0}, dt), h = vec({0, 0}, dt);
  for (int step = 0; step < 3; ++step) {
    Tensor g = vec(kGradients[step], dt);
    b->caffe_sgd_update(w, g, h, CaffeSgdParams{0.1, 0.9, 0.1});
    expect(w, w_after[step], "w", step + 1);
    expect(h, h_after[step], "history", step + 1);
  }
}

TEST_P(OptimizerByHand, TorchSgdWithDampening) {
  // lr 0.1, momentum 0.9, dampening 0.5, weight decay 0.1: g += 0.1 w;
  // v = first ? g : 0.9 v + 0.5 g; w -= 0.1 v.
  // Step 1: g = (0.6, 0.05) = v; w = (0.94, -2.005).
  // Step 2: g = (0.594, -1.2005); v = (0.54 + 0.297, 0.045 - 0.60025); w = (0.94 - 0.0837, -2.005 + 0.055525).
  const std::vector<std::vector<double>> w_after = {{0.94, -2.005}, {0.8563, -1.949475}, {0.7866885, -1.904755125}};
  const std::vector<std::vector<double>> v_after = {{0.6, 0.05}, {0.837, -0.55525}, {0.696115, -0.44719875}};
  Tensor w = vec({1.0, -2.0}, dt), v = vec({7, 7}, dt);  // the first step ignores v
  for (int step = 0; step < 3; ++step) {
    Tensor g = vec(kGradients[step], dt);
    b->torch_sgd_update(w, g, v, TorchSgdParams{0.1, 0.9, 0.5, 0.1, false, step == 0});
    expect(w, w_after[step], "w", step + 1);
    expect(v, v_after[step], "velocity", step + 1);
  }
}

TEST_P(OptimizerByHand, TorchSgdNesterov) {
  // lr 0.1, momentum 0.9, no dampening, weight decay 0.1, Nesterov: step = g + 0.9 v.
  // Step 1: g = v = (0.6, 0.05); step = (1.14, 0.095); w = (0.886, -2.0095).
  // Step 2: g = (0.5 + 0.0886, -1 - 0.20095) = (0.5886, -1.20095); v = (0.54 + 0.5886, 0.045 - 1.20095);
  //         step = (0.5886 + 1.01574, -1.20095 - 1.040355); w = (0.886 - 0.160434, -2.0095 + 0.2241305).
  const std::vector<std::vector<double>> w_after = {
      {0.886, -2.0095}, {0.725566, -1.7853695}, {0.658363646, -1.7148155295}};
  const std::vector<std::vector<double>> v_after = {{0.6, 0.05}, {1.1286, -1.15595}, {0.8882966, -0.91889195}};
  Tensor w = vec({1.0, -2.0}, dt), v = vec({0, 0}, dt);
  for (int step = 0; step < 3; ++step) {
    Tensor g = vec(kGradients[step], dt);
    b->torch_sgd_update(w, g, v, TorchSgdParams{0.1, 0.9, 0.0, 0.1, true, step == 0});
    expect(w, w_after[step], "w", step + 1);
    expect(v, v_after[step], "velocity", step + 1);
  }
}

TEST_P(OptimizerByHand, PlainGradientDescentIsMomentumZero) {
  Tensor w = vec({1.0, -2.0}, dt), v = vec({0, 0}, dt);
  for (int step = 0; step < 2; ++step) {
    Tensor g = vec(kGradients[step], dt);
    b->torch_sgd_update(w, g, v, TorchSgdParams{0.1, 0.0, 0.0, 0.0, false, step == 0});
  }
  expect(w, {1.0 - 0.05 - 0.05, -2.0 - 0.025 + 0.1}, "w", 2);
}

TEST_P(OptimizerByHand, TorchMomentumZeroIgnoresDampeningAndTheBuffer) {
  // Torch7's optim.sgd skips its momentum buffer when momentum is 0: each step is -lr g,
  // whatever the dampening, and the velocity tensor is not touched.
  Tensor w = vec({1.0, -2.0}, dt), v = vec({7.0, 7.0}, dt);
  for (int step = 0; step < 2; ++step) {
    Tensor g = vec(kGradients[step], dt);
    b->torch_sgd_update(w, g, v, TorchSgdParams{0.1, 0.0, 0.5, 0.0, false, step == 0});
  }
  expect(w, {1.0 - 0.05 - 0.05, -2.0 - 0.025 + 0.1}, "w", 2);
  expect(v, {7.0, 7.0}, "velocity", 2);
}

TEST_P(OptimizerByHand, Adam) {
  // lr 0.01, beta1 0.9, beta2 0.999, eps 1e-8. Step 1: m = 0.1 g, v = 0.001 g^2,
  // lr_1 = 0.01 sqrt(0.001) / 0.1, so w moves by lr_1 m / (sqrt(v) + eps) = 0.01 sign(g)
  // (less 6e-9 for eps): w = (0.99, -2.01).
  // Step 2: m = (0.045 + 0.05, 0.0225 - 0.1) = (0.095, -0.0775);
  //         v = (0.00024975 + 0.00025, 0.0000624375 + 0.001) = (0.00049975, 0.0010624375);
  //         lr_2 = 0.01 sqrt(1 - 0.999^2) / (1 - 0.81).
  const std::vector<std::vector<double>> w_after = {{0.9900000063245513, -2.0099999873509056},
                                                    {0.9800000107978037, -2.004404954127055},
                                                    {0.9743020417144799, -2.0020384746165045}};
  const std::vector<std::vector<double>> m_after = {{0.05, 0.025}, {0.095, -0.0775}, {0.0655, -0.03975}};
  const std::vector<std::vector<double>> v_after = {
      {0.00025, 6.25e-05}, {0.00049975, 0.0010624375}, {0.00053925025, 0.0011513750625}};
  Tensor w = vec({1.0, -2.0}, dt), m = vec({0, 0}, dt), v = vec({0, 0}, dt);
  for (int step = 0; step < 3; ++step) {
    Tensor g = vec(kGradients[step], dt);
    b->adam_update(w, g, m, v, AdamParams{0.01, 0.9, 0.999, 1e-8, step + 1});
    expect(w, w_after[step], "w", step + 1);
    expect(m, m_after[step], "m", step + 1);
    expect(v, v_after[step], "v", step + 1);
  }
}

TEST_P(OptimizerByHand, AdamNeedsAStepOfAtLeastOne) {
  Tensor w = vec({1.0}, dt), g = vec({1.0}, dt), m = vec({0}, dt), v = vec({0}, dt);
  try {
    b->adam_update(w, g, m, v, AdamParams{0.01, 0.9, 0.999, 1e-8, 0});
    FAIL() << "t = 0 did not throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("t 0"), std::string::npos) << e.what();
  }
}

// The weight gradient folded into Adam (linear_backward_weights_update) on every host backend:
// a NaN in dy's column 0 makes row 0 of dw NaN (50,000 values); with the check they are
// counted and row 0 of w is left as it was (the CPU backends' bands hold 2 rows of 50,000
// inputs: rows 2-5 are still updated there; the unfused default leaves all of w), without it
// row 0 of w becomes NaN and nothing is counted. A state count the update does not keep is
// refused, naming both counts.
TEST(FoldedUpdate, NonFiniteGradientBandsAreCountedAndLeftUnapplied) {
  const std::int64_t n = 2, in = 50000, out = 6;
  for (const std::string& name : backend_names()) {
    if (name == "cuda") continue;
    SCOPED_TRACE(name);
    auto b = make_backend(name, 2);
    Tensor x({n, in}, DType::f32), dy({n, out}, DType::f32), none;
    for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, 0.001 * static_cast<double>(i % 97));
    for (std::int64_t i = 0; i < dy.numel(); ++i) dy.set(i, 0.1 * static_cast<double>(i + 1));
    dy.set(out, std::nan(""));  // sample 1, output 0
    for (const bool check : {true, false}) {
      Tensor w({out, in}, DType::f32), m({out, in}, DType::f32), v({out, in}, DType::f32);
      for (std::int64_t i = 0; i < w.numel(); ++i) w.set(i, 1.0), m.set(i, 0.0), v.set(i, 0.0);
      std::vector<Tensor*> state{&m, &v};
      const std::int64_t bad = b->linear_backward_weights_update(x, dy, w, state, none, AdamParams{}, check);
      EXPECT_EQ(bad, check ? in : 0);
      EXPECT_EQ(std::isnan(w.at(0)), !check) << "row 0 of w";
      if (!check) continue;
      for (std::int64_t i = 0; i < in; ++i) ASSERT_EQ(w.at(i), 1.0) << "row 0, entry " << i;
      if (name != "reference") {
        EXPECT_LT(w.at(2 * in + 1), 1.0) << "row 2, in a band without NaN, was updated";
      }
    }
    Tensor w({out, in}, DType::f32), m({out, in}, DType::f32);
    std::vector<Tensor*> one{&m};
    try {
      b->linear_backward_weights_update(x, dy, w, one, none, AdamParams{}, true);
      FAIL() << "Adam with one state tensor did not throw";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("1 state tensors; the update keeps 2"), std::string::npos) << e.what();
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, OptimizerByHand, ::testing::Values(DType::f32, DType::f64),
                         [](const ::testing::TestParamInfo<DType>& info) { return dtype_name(info.param); });

}  // namespace
}  // namespace ablate::kernels::test
