// GELU as an activation (kernels/op_params.h): Activation::gelu and gelu_tanh, handed to the
// Backend's public activation_forward/backward, run as gelu_forward/gelu_backward on every
// backend this machine can make (the same values bit for bit; the backward's `y` is x), and
// an observer sees the GELU ops, not activation_*; the names and forms of the enum values.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/registry.h"

namespace ablate::kernels {
namespace {

// Records the ops it is told about.
struct OpLog final : OpObserver {
  std::vector<Op> ops;
  void begin(OpCall& call) override { ops.push_back(call.op); }
  void end(const OpCall&, bool) override {}
};

Tensor ramp(const Shape& shape, DType dtype, double from, double step) {
  Tensor t(shape, dtype);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, from + step * static_cast<double>(i));
  return t;
}

// A host copy of a backend tensor.
Tensor host(Backend& b, const Tensor& t) {
  Tensor out(t.shape(), t.dtype());
  b.copy(t, out);
  return out;
}

// A backend tensor made from a host one.
Tensor on(Backend& b, const Tensor& t) {
  Tensor out(t.shape(), t.dtype(), &b.allocator());
  b.copy(t, out);
  return out;
}

TEST(GeluActivation, RunsAsTheGeluOpsOnEveryBackend) {
  int backends = 0;
  for (const std::string& name : backend_names()) {
    std::unique_ptr<Backend> b;
    try {
      b = make_backend(name, 1);
    } catch (const std::runtime_error&) {
      continue;  // a CUDA build without a device
    }
    ++backends;
    for (DType dtype : {DType::f32, DType::f64})
      for (Activation a : {Activation::gelu, Activation::gelu_tanh}) {
        const GeluApprox form = gelu_approx_of(a);
        const Tensor x = on(*b, ramp({2, 3, 5}, dtype, -3.7, 0.25)), dy = on(*b, ramp({2, 3, 5}, dtype, 1.3, -0.1));
        Tensor y_act(x.shape(), dtype, &b->allocator()), y_gelu(x.shape(), dtype, &b->allocator());
        Tensor dx_act(x.shape(), dtype, &b->allocator()), dx_gelu(x.shape(), dtype, &b->allocator());
        OpLog log;
        b->set_observer(&log);
        b->activation_forward(a, x, y_act);
        b->activation_backward(a, x, dy, dx_act);  // GELU's backward reads x
        b->set_observer(nullptr);
        EXPECT_EQ(log.ops, (std::vector<Op>{Op::gelu_forward, Op::gelu_backward})) << name;
        b->gelu_forward(x, y_gelu, form);
        b->gelu_backward(x, dy, dx_gelu, form);
        const Tensor ya = host(*b, y_act), yg = host(*b, y_gelu), da = host(*b, dx_act), dg = host(*b, dx_gelu);
        const Tensor xs = host(*b, x);
        for (std::int64_t i = 0; i < ya.numel(); ++i) {
          ASSERT_EQ(ya.at(i), yg.at(i)) << name << " " << activation_name(a) << " " << dtype_name(dtype) << " y[" << i << "]";
          ASSERT_EQ(da.at(i), dg.at(i)) << name << " " << activation_name(a) << " " << dtype_name(dtype) << " dx[" << i << "]";
        }
        // Not another activation in disguise: GELU(x) < x for x > 0, GELU(x) < 0 for x < 0.
        for (std::int64_t i = 0; i < ya.numel(); ++i) {
          if (xs.at(i) != 0) {
            EXPECT_LT(ya.at(i), xs.at(i) > 0 ? xs.at(i) : 0.0) << name << " x " << xs.at(i);
          }
        }
      }
  }
  EXPECT_GE(backends, 1);
}

TEST(GeluActivation, NamesAndForms) {
  EXPECT_STREQ(activation_name(Activation::gelu), "gelu");
  EXPECT_STREQ(activation_name(Activation::gelu_tanh), "gelu_tanh");
  EXPECT_TRUE(is_gelu(Activation::gelu));
  EXPECT_TRUE(is_gelu(Activation::gelu_tanh));
  EXPECT_FALSE(is_gelu(Activation::tanh));
  EXPECT_EQ(gelu_approx_of(Activation::gelu), GeluApprox::exact);
  EXPECT_EQ(gelu_approx_of(Activation::gelu_tanh), GeluApprox::tanh);
  try {
    gelu_approx_of(Activation::relu);
    ADD_FAILURE() << "relu has no GELU form";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("activation relu is not a GELU"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ablate::kernels
