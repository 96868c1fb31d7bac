// Max-pooling microbenchmarks: Caffe LeNet's 2x2 stride-2 pools (ceil rounding, as Caffe's
// PoolingLayer) on [64,20,24,24] and [64,50,8,8], forward and backward. No FLOP count.
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

OpFactory pool_factory(const PoolShape& s, bool backward) {
  return [s, backward](kernels::Backend& backend) -> OpRunner {
    const kernels::Pool2dParams p =
        kernels::make_pool2d_params(kernels::PoolKind::max, 2, 2, 0, kernels::PoolPadding::caffe_ceil, s.h, s.w);
    TensorMaker make(backend);
    Tensor x = make.random({s.n, s.c, s.h, s.w}), y = make.zeros({s.n, s.c, p.out_h, p.out_w});
    Tensor dy = make.random(y.shape()), dx = make.zeros(x.shape()), workspace;
    kernels::Backend* b = &backend;
    b->pool2d_forward(x, y, workspace, p);  // fills the workspace that backward reads
    if (backward) return [=]() mutable { b->pool2d_backward(x, y, dy, workspace, dx, p); };
    return [=]() mutable { b->pool2d_forward(x, y, workspace, p); };
  };
}

}  // namespace

void register_pool_benchmarks() {
  for (const PoolShape& s : kShapes) {
    register_case({std::string("pool/") + s.name + "/forward", 0, pool_factory(s, false)});
    register_case({std::string("pool/") + s.name + "/backward", 0, pool_factory(s, true)});
  }
}

}  // namespace ablate::micro
