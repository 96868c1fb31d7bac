// Elementwise fusion microbenchmarks: one Backend::fused_elementwise pass
// (Theano's Composite compiled into one loop) against the same chain run as whole-tensor ops,
// as the static graph runs it without `elementwise_fusion`, on two sizes of tensor:
//   lenet_conv1    LeNet's first convolution output at batch 64, [64, 20, 24, 24] f32 (2.9 MB):
//                  beyond a core's L2 but within a large L3, so passes are cheap
//   cifar10_conv1  TF's CIFAR-10 first convolution output at batch 256, [256, 64, 24, 24] f32
//                  (37.7 MB a tensor): beyond the L3, so each pass goes to memory
//   bias_relu:      forward after a convolution, y = relu(x + b[c])
//                   unfused: copy x -> y, bias_add(y, b), relu(y) in place: 6 tensor passes
//                   fused:   read x, write y: 2 passes
//   dropout_relu:   backward through dropout then ReLU, dx = relu'(y) * (dy * mask)
//                   unfused: t = mul(dy, mask), dx = relu_backward(y, t): 6 passes
//                   fused:   read dy, mask, y, write dx: 4 passes
// The `bytes` counter is those passes times the tensor's bytes (the [C] bias is left out).
#include <benchmark/benchmark.h>

#include "bench/micro/micro_fixture.h"

namespace ablate::micro {
namespace {

using kernels::Activation;
using kernels::ChainOp;
using kernels::ChainStep;
using kernels::Tensor;

struct FusedShape {
  const char* name;
  kernels::Shape shape;
  double bytes() const { return static_cast<double>(shape[0] * shape[1] * shape[2] * shape[3]) * sizeof(float); }
};
const FusedShape kShapes[] = {{"lenet_conv1", {64, 20, 24, 24}}, {"cifar10_conv1", {256, 64, 24, 24}}};

OpFactory bias_relu(const kernels::Shape& shape, bool fused) {
  return [shape, fused](kernels::Backend& backend) -> OpRunner {
    TensorMaker make(backend);
    Tensor x = make.random(shape), bias = make.random({shape[1]}), y = make.zeros(shape);
    kernels::Backend* b = &backend;
    if (fused) {
      const std::vector<ChainStep> steps{{ChainOp::bias_add, Activation::relu, 1.0, 1}, {ChainOp::activation, Activation::relu, 1.0, -1}};
      return [=]() mutable { b->fused_elementwise({&x, &bias}, steps, y); };
    }
    return [=]() mutable {
      b->copy(x, y);
      b->bias_add(y, bias);
      b->activation_forward(Activation::relu, y, y);
    };
  };
}

OpFactory dropout_relu_grad(const kernels::Shape& shape, bool fused) {
  return [shape, fused](kernels::Backend& backend) -> OpRunner {
    TensorMaker make(backend);
    Tensor dy = make.random(shape), mask = make.random(shape), y = make.random(shape);
    Tensor t = make.zeros(shape), dx = make.zeros(shape);
    kernels::Backend* b = &backend;
    if (fused) {
      const std::vector<ChainStep> steps{{ChainOp::mul, Activation::relu, 1.0, 1}, {ChainOp::activation_grad, Activation::relu, 1.0, 2}};
      return [=]() mutable { b->fused_elementwise({&dy, &mask, &y}, steps, dx); };
    }
    return [=]() mutable {
      b->mul(dy, mask, t);
      b->activation_backward(Activation::relu, y, t, dx);
    };
  };
}

}  // namespace

void register_fused_benchmarks() {
  for (const FusedShape& s : kShapes) {
    const std::string at = std::string("fused/") + s.name;
    register_case({at + "/bias_relu/unfused", 0, bias_relu(s.shape, false), 6 * s.bytes()});
    register_case({at + "/bias_relu/fused", 0, bias_relu(s.shape, true), 2 * s.bytes()});
    register_case({at + "/dropout_relu_grad/unfused", 0, dropout_relu_grad(s.shape, false), 6 * s.bytes()});
    register_case({at + "/dropout_relu_grad/fused", 0, dropout_relu_grad(s.shape, true), 4 * s.bytes()});
  }
}

}  // namespace ablate::micro
