// LRN microbenchmarks: the TF CNN's norm1 (tf-cifar10.model: [50, 64, 12, 12], size 9, beta
// 0.75), forward and backward, in NCHW and (on the backends with a channel block)
// channels-last and channel-blocked, as the blocked layouts hand it over. No FLOP count.
#include <benchmark/benchmark.h>

#include "bench/micro/micro_fixture.h"
#include "kernels/op_params.h"

namespace ablate::micro {
namespace {

using kernels::Tensor;

constexpr int kN = 50, kC = 64, kH = 12, kW = 12;

OpFactory lrn_factory(bool backward, CaseLayout layout) {
  return [backward, layout](kernels::Backend& backend) -> OpRunner {
    kernels::LrnParams p;
    p.size = 9;
    p.alpha = 0.001;
    p.beta = 0.75;
    p.k = 1;
    const int block = case_block(layout, kC, backend);
    TensorMaker make(backend);
    Tensor x = make.random({kN, kC, kH, kW}).with_channel_block(block), y = make.zeros(x.shape()).with_channel_block(block);
    Tensor dy = make.random(x.shape()).with_channel_block(block), dx = make.zeros(x.shape()).with_channel_block(block);
    Tensor workspace;
    kernels::Backend* b = &backend;
    b->lrn_forward(x, y, workspace, p);  // fills the workspace that backward reads
    if (backward) return [=]() mutable { b->lrn_backward(x, y, dy, workspace, dx, p); };
    return [=]() mutable { b->lrn_forward(x, y, workspace, p); };
  };
}

}  // namespace

void register_lrn_benchmarks() {
  for (CaseLayout layout : kCaseLayouts) {
    const std::string name = std::string("lrn/tf_cnn_norm1") + case_layout_suffix(layout);
    register_case({name + "/forward", 0, lrn_factory(false, layout), 0, layout != CaseLayout::nchw});
    register_case({name + "/backward", 0, lrn_factory(true, layout), 0, layout != CaseLayout::nchw});
  }
}

}  // namespace ablate::micro
