// The convolution's activation epilogue (Conv2dParams::activation) beyond the
// conformance cases (conformance_conv_cases.cpp compares it with the reference on every
// backend and lowering): the contract refuses GELU and an activation on the backward and
// table ops on every backend; on the CPU backends the fused forward gives the bits of the
// unfused pair conv2d_forward + activation_forward (what makes the static graph's
// conv_activation_fusion exact there), except where the backend's own activation_forward is
// another formula: onednn's f32 tanh and sigmoid are oneDNN's eltwise, not the shared loop's
// std::tanh and std::exp (the two agree to 1e-6 there); oneDNN's primitive cache tells a convolution with a
// post-op from one without.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/registry.h"
#include "test_tensors.h"

namespace ablate::kernels::test {
namespace {

// A TF MNIST conv2-like layer, scaled down: 2 images, 16 -> 32 channels, 5x5 SAME on 7x7.
struct Layer {
  Tensor x, w, bias;
  Conv2dParams p = make_same_conv2d_params(5, 5, 1, 7, 7);
  Shape y_shape{2, 32, 7, 7};
  Layer(DType dtype, std::uint64_t seed) {
    Rng rng(seed);
    x = random_tensor({2, 16, 7, 7}, dtype, rng);
    w = random_tensor({32, 16, 5, 5}, dtype, rng, -0.2, 0.2);
    bias = random_tensor({32}, dtype, rng);
  }
};

bool same_bits(const Tensor& a, const Tensor& b) {
  return a.bytes() == b.bytes() && std::memcmp(a.raw_data(), b.raw_data(), a.bytes()) == 0;
}

std::vector<std::unique_ptr<Backend>> backends() {
  std::vector<std::unique_ptr<Backend>> all;
  for (const std::string& name : backend_names()) {
    try {
      all.push_back(make_backend(name));
    } catch (const std::runtime_error&) {  // a CUDA build without a device
    }
  }
  return all;
}

TEST(ConvEpilogue, TheContractTakesReluTanhSigmoidOnTheForwardOnly) {
  for (auto& b : backends()) {
    const std::string name = b->name();
    Layer l(DType::f32, 1);
    Tensor y(l.y_shape, DType::f32), dx(l.x.shape(), DType::f32), dw(l.w.shape(), DType::f32), db({32}, DType::f32);
    Conv2dParams gelu = l.p;
    gelu.activation = Activation::gelu;
    EXPECT_EQ(invalid_argument_of([&] { b->conv2d_forward(l.x, l.w, l.bias, y, gelu); }),
              name + " conv2d_forward: activation gelu: expected relu, tanh or sigmoid (an epilogue's gradient reads "
                     "the fused output y; GELU's reads x)");
    Conv2dParams relu = l.p;
    relu.activation = Activation::relu;
    const std::string backward_only =
        ": activation relu: expected none (only conv2d_forward takes an activation epilogue; its gradient is "
        "activation_backward on y, run before the backward convolutions)";
    EXPECT_EQ(invalid_argument_of([&] { b->conv2d_backward_data(y, l.w, dx, relu); }),
              name + " conv2d_backward_data" + backward_only);
    EXPECT_EQ(invalid_argument_of([&] { b->conv2d_backward_weights(l.x, y, dw, db, relu); }),
              name + " conv2d_backward_weights" + backward_only);
    Tensor table({1, 2}, DType::i32), wm({1, 5, 5}, DType::f32), ym({2, 1, 7, 7}, DType::f32);
    table.data<std::int32_t>()[0] = 0;
    table.data<std::int32_t>()[1] = 0;
    EXPECT_EQ(invalid_argument_of([&] { b->conv2d_map_forward(l.x, wm, Tensor(), table, ym, relu); }),
              name + " conv2d_map_forward" + backward_only);
    EXPECT_NO_THROW(b->conv2d_forward(l.x, l.w, l.bias, y, relu)) << name;
  }
}

// The CPU backends in each lowering whose epilogue is the shared loop (conv_epilogue.h).
std::vector<std::pair<std::string, BackendOptions>> cpu_variants() {
  std::vector<std::pair<std::string, BackendOptions>> out;
  for (const char* name : {"openblas", "eigen", "onednn"})
    for (cpu::ConvLowering l : conv_lowerings_of(name)) {
      if (l == cpu::ConvLowering::direct) continue;  // oneDNN's post-op: conformance compares it
      for (int threads : {1, 2}) {
        BackendOptions o;
        o.conv_lowering = l;
        o.threads = threads;
        out.push_back({name, o});
      }
    }
  return out;
}

TEST(ConvEpilogue, TheSharedLoopsGiveTheBitsOfConvolutionThenActivation) {
  for (const auto& [name, options] : cpu_variants()) {
    auto b = make_backend(name, options);
    for (DType dtype : {DType::f32, DType::f64})
      for (Activation a : {Activation::relu, Activation::tanh, Activation::sigmoid})
        for (bool with_bias : {true, false}) {
          Layer l(dtype, 7);
          const Tensor bias = with_bias ? l.bias : Tensor();
          Tensor unfused(l.y_shape, dtype), fused(l.y_shape, dtype);
          b->conv2d_forward(l.x, l.w, bias, unfused, l.p);
          b->activation_forward(a, unfused, unfused);
          Conv2dParams p = l.p;
          p.activation = a;
          b->conv2d_forward(l.x, l.w, bias, fused, p);
          const bool own_eltwise = name == "onednn" && dtype == DType::f32 && a != Activation::relu;
          if (own_eltwise)
            EXPECT_TRUE(all_near(fused, unfused, 1e-6)) << name << " " << activation_name(a);
          else
            EXPECT_TRUE(same_bits(fused, unfused))
              << name << " " << cpu::conv_lowering_name(*options.conv_lowering) << " " << options.threads << " threads "
              << dtype_name(dtype) << " " << activation_name(a) << (with_bias ? " with" : " without") << " bias";
        }
  }
}

// One shape, the same backend: the cached primitive without a post-op must not serve the
// call with one, nor the other way round.
TEST(ConvEpilogue, OnednnCachesTheConvolutionPerPostOp) {
  BackendOptions o;
  o.conv_lowering = cpu::ConvLowering::direct;
  auto b = make_backend("onednn", o);
  auto reference = make_backend("reference");
  Layer l(DType::f32, 11);
  Conv2dParams relu = l.p, tanh = l.p;
  relu.activation = Activation::relu;
  tanh.activation = Activation::tanh;
  for (const Conv2dParams& p : {l.p, relu, tanh, l.p, relu}) {
    Tensor y(l.y_shape, DType::f32), expected(l.y_shape, DType::f32);
    b->conv2d_forward(l.x, l.w, l.bias, y, p);
    reference->conv2d_forward(l.x, l.w, l.bias, expected, p);
    EXPECT_TRUE(all_near(y, expected, tolerance(DType::f32, 16 * 25)))
        << (p.activation ? activation_name(*p.activation) : "none");
  }
}

}  // namespace
}  // namespace ablate::kernels::test
