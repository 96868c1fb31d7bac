// Convolution microbenchmarks: forward, backward data and backward weights (with bias) of
// Caffe LeNet's conv layers (batch 64), cifar10_quick's (batch 100) and the TF MNIST CNN's
// (batch 50; SAME padding of a 5x5 kernel at stride 1 is 2 on each side) and ResNet-20's 3x3
// stages (batch 128). Each pass is
// 2*N*K*C*KH*KW*OH*OW flops (the bias terms are not counted).
#include <benchmark/benchmark.h>

#include "bench/micro/micro_fixture.h"
#include "kernels/op_params.h"

namespace ablate::micro {
namespace {

using kernels::Tensor;

struct ConvShape {
  const char* name;
  int n, c, h, w, k, kernel, pad;  // x [n,c,h,w], w [k,c,kernel,kernel], stride 1
};

constexpr ConvShape kShapes[] = {
    {"lenet_conv1", 64, 1, 28, 28, 20, 5, 0},   // 1->20 5x5 on 28x28 -> 24x24
    {"lenet_conv2", 64, 20, 12, 12, 50, 5, 0},  // 20->50 5x5 on 12x12 -> 8x8
    {"cifar_conv1", 100, 3, 32, 32, 32, 5, 2},  // 3->32 5x5 pad 2 on 32x32
    {"cifar_conv2", 100, 32, 16, 16, 32, 5, 2}, // 32->32 5x5 pad 2 on 16x16
    {"cifar_conv3", 100, 32, 8, 8, 64, 5, 2},   // 32->64 5x5 pad 2 on 8x8
    {"tf_conv1", 50, 1, 28, 28, 32, 5, 2},      // 1->32 5x5 SAME on 28x28
    {"tf_conv2", 50, 32, 14, 14, 64, 5, 2},     // 32->64 5x5 SAME on 14x14
    {"resnet20_s1", 128, 16, 32, 32, 16, 3, 1}, // ResNet-20's 3x3 stages (batch 128): 16 on 32x32,
    {"resnet20_s2", 128, 32, 16, 16, 32, 3, 1}, // 32 on 16x16,
    {"resnet20_s3", 128, 64, 8, 8, 64, 3, 1},   // 64 on 8x8
};

enum class Pass { forward, backward_data, backward_weights };

OpFactory conv_factory(const ConvShape& s, Pass pass) {
  return [s, pass](kernels::Backend& backend) -> OpRunner {
    kernels::Conv2dParams p;
    p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = s.pad;
    const int oh = kernels::conv2d_out_size(s.h, s.kernel, 1, s.pad, s.pad);
    const int ow = kernels::conv2d_out_size(s.w, s.kernel, 1, s.pad, s.pad);
    TensorMaker make(backend);
    Tensor x = make.random({s.n, s.c, s.h, s.w}), w = make.random({s.k, s.c, s.kernel, s.kernel});
    Tensor bias = make.random({s.k}), y = make.random({s.n, s.k, oh, ow});
    kernels::Backend* b = &backend;
    switch (pass) {
      case Pass::forward:
        return [=]() mutable { b->conv2d_forward(x, w, bias, y, p); };
      case Pass::backward_data:
        return [=]() mutable { b->conv2d_backward_data(y, w, x, p); };
      case Pass::backward_weights:
        return [=]() mutable { b->conv2d_backward_weights(x, y, w, bias, p); };
    }
    return {};
  };
}

}  // namespace

void register_conv_benchmarks() {
  const std::pair<Pass, const char*> passes[] = {
      {Pass::forward, "forward"}, {Pass::backward_data, "backward_data"}, {Pass::backward_weights, "backward_weights"}};
  for (const ConvShape& s : kShapes) {
    const double oh = kernels::conv2d_out_size(s.h, s.kernel, 1, s.pad, s.pad);
    const double ow = kernels::conv2d_out_size(s.w, s.kernel, 1, s.pad, s.pad);
    const double flops = 2.0 * s.n * s.k * s.c * s.kernel * s.kernel * oh * ow;
    for (const auto& [pass, pass_name] : passes)
      register_case({std::string("conv/") + s.name + "/" + pass_name, flops, conv_factory(s, pass)});
  }
}

}  // namespace ablate::micro
