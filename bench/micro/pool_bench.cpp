// Max-pooling microbenchmarks: Caffe LeNet's 2x2 stride-2 pools (ceil rounding, as Caffe's
// PoolingLayer) on [64,20,24,24] and [64,50,8,8], and the TF CNN's 3x3 stride-2 SAME pool on
// [50,64,24,24], forward and backward, in NCHW and (on the backends with a channel block)
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
};

// LeNet's (Caffe ceil rounding) and the TF CNN's first (3x3, stride 2, SAME, 64 channels).
constexpr PoolShape kShapes[] = {{"lenet_pool1", 64, 20, 24, 24, 2, 2, kernels::PoolPadding::caffe_ceil},
                                 {"lenet_pool2", 64, 50, 8, 8, 2, 2, kernels::PoolPadding::caffe_ceil},
                                 {"tf_cnn_pool1", 50, 64, 24, 24, 3, 2, kernels::PoolPadding::tf_same}};

// The layout every tensor of a case is in (kernels/tensor.h).
enum class Layout { nchw, nhwc, blocked };

// The channel block of `layout` on `backend`: 0, all C (channels-last, as the layer-wise blocked
// layout keeps LeNet's blobs on oneDNN) or the backend's own (nChw16c with AVX-512).
int block_of(Layout layout, const PoolShape& s, const kernels::Backend& backend) {
  if (layout == Layout::nhwc) return s.c;
  return layout == Layout::blocked ? backend.channel_block(kernels::DType::f32) : 0;
}

OpFactory pool_factory(const PoolShape& s, bool backward, Layout layout) {
  return [s, backward, layout](kernels::Backend& backend) -> OpRunner {
    const kernels::Pool2dParams p =
        kernels::make_pool2d_params(kernels::PoolKind::max, s.kernel, s.stride, 0, s.padding, s.h, s.w);
    TensorMaker make(backend);
    const int block = block_of(layout, s, backend);
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
    for (Layout layout : {Layout::nchw, Layout::nhwc, Layout::blocked}) {
      if (layout == Layout::blocked && s.c % 16 != 0) continue;  // no block divides LeNet's channels
      const std::string name =
          std::string("pool/") + s.name + (layout == Layout::nhwc ? "_nhwc" : layout == Layout::blocked ? "_blocked" : "");
      const bool blocked = layout != Layout::nchw;
      register_case({name + "/forward", 0, pool_factory(s, false, layout), 0, blocked});
      register_case({name + "/backward", 0, pool_factory(s, true, layout), 0, blocked});
    }
}

}  // namespace ablate::micro
