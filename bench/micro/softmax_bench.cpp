// Softmax cross-entropy microbenchmarks: LeNet's loss on logits [64,10], forward (softmax,
// mean -log prob at the label) and backward ((prob - onehot) / N). No FLOP count.
#include <benchmark/benchmark.h>

#include "bench/micro/micro_fixture.h"

namespace ablate::micro {
namespace {

using kernels::Tensor;

constexpr int kBatch = 64, kClasses = 10;

OpFactory softmax_xent_factory(bool backward) {
  return [backward](kernels::Backend& backend) -> OpRunner {
    TensorMaker make(backend);
    Tensor logits = make.random({kBatch, kClasses}), prob = make.zeros({kBatch, kClasses});
    Tensor labels = make.labels(kBatch, kClasses), dlogits = make.zeros({kBatch, kClasses});
    kernels::Backend* b = &backend;
    b->softmax_xent_forward(logits, labels, prob);
    if (backward) return [=]() mutable { b->softmax_xent_backward(prob, labels, 1.0 / kBatch, dlogits); };
    return [=]() mutable { benchmark::DoNotOptimize(b->softmax_xent_forward(logits, labels, prob)); };
  };
}

}  // namespace

void register_softmax_benchmarks() {
  register_case({"softmax_xent/lenet_loss/forward", 0, softmax_xent_factory(false)});
  register_case({"softmax_xent/lenet_loss/backward", 0, softmax_xent_factory(true)});
}

}  // namespace ablate::micro
