// Max-pooling microbenchmarks: Caffe LeNet's 2x2 stride-2 pools (ceil rounding, as Caffe's
// PoolingLayer) on [64,20,24,24] and [64,50,8,8], forward and backward, in NCHW and (on the
// backends with a channel block) channels-last. No FLOP count.
#include <benchmark/benchmark.h>

#include "bench/micro/micro_fixture.h"
#include "kernels/op_params.h"

namespace ablate::micro {
namespace {

using kernels::Tensor;

struct PoolShape {
  const char* name;
  int n, c, h, w;
};

constexpr PoolShape kShapes[] = {{"lenet_pool1", 64, 20, 24, 24}, {"lenet_pool2", 64, 50, 8, 8}};

// channels_last: every tensor NHWC (a channel block of all C channels, kernels/tensor.h), as
// the layer-wise blocked layout keeps LeNet's blobs on oneDNN.
OpFactory pool_factory(const PoolShape& s, bool backward, bool channels_last) {
  return [s, backward, channels_last](kernels::Backend& backend) -> OpRunner {
    const kernels::Pool2dParams p =
        kernels::make_pool2d_params(kernels::PoolKind::max, 2, 2, 0, kernels::PoolPadding::caffe_ceil, s.h, s.w);
    TensorMaker make(backend);
    const int block = channels_last ? s.c : 0;
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
    for (bool nhwc : {false, true}) {
      const std::string name = std::string("pool/") + s.name + (nhwc ? "_nhwc" : "");
      register_case({name + "/forward", 0, pool_factory(s, false, nhwc), 0, nhwc});
      register_case({name + "/backward", 0, pool_factory(s, true, nhwc), 0, nhwc});
    }
}

}  // namespace ablate::micro
