// Pooling microbenchmarks: Caffe LeNet's 2x2 stride-2 max pools (ceil rounding, as Caffe's
// PoolingLayer) on [64,20,24,24] and [64,50,8,8], cifar10_quick's 3x3 stride-2 pools (max on
// [100,32,32,32], average on [100,32,16,16] and [100,64,8,8]) and the TF CNN's 3x3 stride-2 SAME
// max pool on [50,64,24,24], forward and backward, in NCHW and (on the backends with a channel block)
// channels-last and, where the block divides the channels, channel-blocked. No FLOP count.
#include <benchmark/benchmark.h>

#include "bench/micro/micro_fixture.h"
#include "kernels/op_params.h"

namespace ablate::micro {
namespace {

using kernels::Tensor;

struct PoolShape {
  const char* name;
  int n, c, h, w;
  int kernel, stride;
  kernels::PoolPadding padding;
  kernels::PoolKind kind = kernels::PoolKind::max;
};

// LeNet's and cifar10_quick's (Caffe ceil rounding) and the TF CNN's first (3x3, stride 2, SAME,
// 64 channels).
constexpr auto kCeil = kernels::PoolPadding::caffe_ceil;
constexpr PoolShape kShapes[] = {{"lenet_pool1", 64, 20, 24, 24, 2, 2, kCeil},
                                 {"lenet_pool2", 64, 50, 8, 8, 2, 2, kCeil},
                                 {"cifar_pool1", 100, 32, 32, 32, 3, 2, kCeil},
                                 {"cifar_pool2", 100, 32, 16, 16, 3, 2, kCeil, kernels::PoolKind::avg},
                                 {"cifar_pool3", 100, 64, 8, 8, 3, 2, kCeil, kernels::PoolKind::avg},
                                 {"tf_cnn_pool1", 50, 64, 24, 24, 3, 2, kernels::PoolPadding::tf_same}};

OpFactory pool_factory(const PoolShape& s, bool backward, CaseLayout layout) {
  return [s, backward, layout](kernels::Backend& backend) -> OpRunner {
    const kernels::Pool2dParams p =
        kernels::make_pool2d_params(s.kind, s.kernel, s.stride, 0, s.padding, s.h, s.w);
    TensorMaker make(backend);
    const int block = case_block(layout, s.c, backend);
    Tensor x = make.random({s.n, s.c, s.h, s.w}).with_channel_block(block);
    Tensor y = make.zeros({s.n, s.c, p.out_h, p.out_w}).with_channel_block(block);
    Tensor dy = make.random(y.shape()).with_channel_block(block), dx = make.zeros(x.shape()).with_channel_block(block);
    Tensor workspace;
    kernels::Backend* b = &backend;
    b->pool2d_forward(x, y, workspace, p);  // fills the workspace that backward reads
    if (backward) return [=]() mutable { b->pool2d_backward(x, y, dy, workspace, dx, p); };
    return [=]() mutable { b->pool2d_forward(x, y, workspace, p); };
  };
}

}  // namespace

void register_pool_benchmarks() {
  for (const PoolShape& s : kShapes)
    for (CaseLayout layout : kCaseLayouts) {
      if (layout == CaseLayout::blocked && s.c % 16 != 0) continue;  // neither 16 nor 8 divides LeNet's 20 and 50
      const std::string name = std::string("pool/") + s.name + case_layout_suffix(layout);
      const bool blocked = layout != CaseLayout::nchw;
      register_case({name + "/forward", 0, pool_factory(s, false, layout), 0, blocked});
      register_case({name + "/backward", 0, pool_factory(s, true, layout), 0, blocked});
    }
}

}  // namespace ablate::micro
