// Convolution + bias + ReLU microbenchmarks: the forward with the activation as
// the convolution's epilogue (Conv2dParams::activation: the CPU loops apply it per image right
// after the GEMM, oneDNN as an eltwise post-op) against the unfused pair, conv2d_forward with its
// bias then activation_forward in place (a second pass over the output, as the layer-wise
// strategy and the static graph without conv_activation_fusion run it), on two zoo layers:
//   tf_mnist_conv2   TF's MNIST CNN conv2 at batch 50: 32 -> 64, 5x5 SAME on 14x14
//   cifar_conv2      cifar10_quick's conv2 at batch 100: 32 -> 32, 5x5 pad 2 on 16x16
// FLOPs: 2*N*K*C*KH*KW*OH*OW, the convolution's only (bias and ReLU not counted).
#include <benchmark/benchmark.h>

#include "bench/micro/micro_fixture.h"
#include "kernels/op_params.h"

namespace ablate::micro {
namespace {

using kernels::Activation;
using kernels::Tensor;

struct EpilogueShape {
  const char* name;
  int n, c, hw, k, kernel, pad;  // x [n,c,hw,hw], w [k,c,kernel,kernel], stride 1, output hw x hw
};
constexpr EpilogueShape kShapes[] = {
    {"tf_mnist_conv2", 50, 32, 14, 64, 5, 2},  // SAME with a 5x5 kernel: pad 2 on each side
    {"cifar_conv2", 100, 32, 16, 32, 5, 2},
};

OpFactory conv_bias_relu(const EpilogueShape& s, bool fused) {
  return [s, fused](kernels::Backend& backend) -> OpRunner {
    kernels::Conv2dParams p;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = s.pad;
    TensorMaker make(backend);
    Tensor x = make.random({s.n, s.c, s.hw, s.hw}), w = make.random({s.k, s.c, s.kernel, s.kernel});
    Tensor bias = make.random({s.k}), y = make.random({s.n, s.k, s.hw, s.hw});
    kernels::Backend* b = &backend;
    if (fused) {
      p.activation = Activation::relu;
      return [=]() mutable { b->conv2d_forward(x, w, bias, y, p); };
    }
    return [=]() mutable {
      b->conv2d_forward(x, w, bias, y, p);
      b->activation_forward(Activation::relu, y, y);
    };
  };
}

}  // namespace

void register_conv_epilogue_benchmarks() {
  for (const EpilogueShape& s : kShapes) {
    const double flops = 2.0 * s.n * s.k * s.c * s.kernel * s.kernel * s.hw * s.hw;
    const std::string at = std::string("conv_epilogue/") + s.name + "/bias_relu/";
    register_case({at + "unfused", flops, conv_bias_relu(s, false)});
    register_case({at + "fused", flops, conv_bias_relu(s, true)});
  }
}

}  // namespace ablate::micro
