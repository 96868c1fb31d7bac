// Fully connected (Caffe InnerProduct) microbenchmarks: LeNet's ip1 800->500 and ip2 500->10
// at batch 64, cifar10_quick's ip1 1024->64 and ip2 64->10 at batch 100 and the TF MNIST CNN's fc1
// 3136->1024 at batch 50, forward (with bias), backward data and backward weights (with bias); each
// pass is 2*N*I*O flops.
#include <benchmark/benchmark.h>

#include "bench/micro/micro_fixture.h"

namespace ablate::micro {
namespace {

using kernels::Tensor;

struct LinearShape {
  const char* name;
  int n, in, out;  // x [n,in], w [out,in], y [n,out]
};

constexpr LinearShape kShapes[] = {{"lenet_ip1", 64, 800, 500},
                                   {"lenet_ip2", 64, 500, 10},
                                   {"cifar_ip1", 100, 1024, 64},  // 64 maps of 4x4 after pool3
                                   {"cifar_ip2", 100, 64, 10},
                                   {"tf_mnist_fc1", 50, 3136, 1024}};  // 64 maps of 7x7, batch 50

enum class Pass { forward, backward_data, backward_weights };

OpFactory linear_factory(const LinearShape& s, Pass pass) {
  return [s, pass](kernels::Backend& backend) -> OpRunner {
    TensorMaker make(backend);
    Tensor x = make.random({s.n, s.in}), w = make.random({s.out, s.in});
    Tensor bias = make.random({s.out}), y = make.random({s.n, s.out});
    kernels::Backend* b = &backend;
    switch (pass) {
      case Pass::forward:
        return [=]() mutable { b->linear_forward(x, w, bias, y); };
      case Pass::backward_data:
        return [=]() mutable { b->linear_backward_data(y, w, x); };
      case Pass::backward_weights:
        return [=]() mutable { b->linear_backward_weights(x, y, w, bias); };
    }
    return {};
  };
}

}  // namespace

void register_linear_benchmarks() {
  const std::pair<Pass, const char*> passes[] = {
      {Pass::forward, "forward"}, {Pass::backward_data, "backward_data"}, {Pass::backward_weights, "backward_weights"}};
  for (const LinearShape& s : kShapes) {
    const double flops = 2.0 * s.n * s.in * s.out;
    for (const auto& [pass, pass_name] : passes)
      register_case({std::string("fc/") + s.name + "/" + pass_name, flops, linear_factory(s, pass)});
  }
}

}  // namespace ablate::micro
