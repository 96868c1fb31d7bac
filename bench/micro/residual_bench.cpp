// Microbenchmarks of the non-convolution ops of a residual network, on ResNet-20's activations
// at batch 128 (stage 1: [128,16,32,32], stage 2: [128,32,16,16], stage 3: [128,64,8,8]): batch
// normalisation's training forward and backward, the shortcut's add and ReLU forward and
// backward. They are memory-bound: the `bytes` counter is the tensor passes each makes (reads +
// writes, the statistics' extra reads not counted), so bytes_per_second against `copy` shows how
// close each runs to memory.
#include <benchmark/benchmark.h>

#include "bench/micro/micro_fixture.h"

namespace ablate::micro {
namespace {

using kernels::Tensor;

struct Stage {
  const char* name;
  kernels::Shape shape;
};

const Stage kStages[] = {
    {"resnet20_s1", {128, 16, 32, 32}}, {"resnet20_s2", {128, 32, 16, 16}}, {"resnet20_s3", {128, 64, 8, 8}}};

double bytes_of(const kernels::Shape& s) { return 4.0 * s[0] * s[1] * s[2] * s[3]; }

// The op of `name` on tensors of shape `s`, with per-channel parameters where it needs them.
OpFactory residual_case(const std::string& name, const kernels::Shape& s) {
  return [name, s](kernels::Backend& backend) -> OpRunner {
    TensorMaker make(backend);
    const kernels::Shape c{s[1]};
    Tensor x = make.random(s), dy = make.random(s), y = make.zeros(s), dx = make.zeros(s);
    Tensor gamma = make.random(c), beta = make.random(c), mean = make.zeros(c), var = make.zeros(c);
    Tensor dgamma = make.zeros(c), dbeta = make.zeros(c);
    kernels::Backend* b = &backend;
    b->batch_norm_forward_training(x, gamma, beta, 1e-5, y, mean, var);  // statistics for the backward
    if (name == "bn_forward") return [=]() mutable { b->batch_norm_forward_training(x, gamma, beta, 1e-5, y, mean, var); };
    if (name == "bn_backward")
      return [=]() mutable { b->batch_norm_backward(x, dy, gamma, mean, var, 1e-5, dx, dgamma, dbeta); };
    if (name == "add") return [=]() mutable { b->add(x, dy, y); };
    if (name == "copy") return [=]() mutable { b->copy(x, y); };
    if (name == "relu_forward") return [=]() mutable { b->activation_forward(kernels::Activation::relu, x, y); };
    return [=]() mutable { b->activation_backward(kernels::Activation::relu, x, dy, dx); };
  };
}

}  // namespace

void register_residual_benchmarks() {
  // name, tensor passes: bn forward reads x twice (statistics, normalise) and writes y; its
  // backward reads x and dy twice and writes dx.
  const std::pair<const char*, double> ops[] = {{"copy", 2},         {"bn_forward", 3},   {"bn_backward", 5},
                                                {"add", 3},          {"relu_forward", 2}, {"relu_backward", 3}};
  for (const Stage& st : kStages)
    for (const auto& [op, passes] : ops)
      register_case({std::string("residual/") + st.name + "/" + op, 0, residual_case(op, st.shape), passes * bytes_of(st.shape)});
}

}  // namespace ablate::micro
