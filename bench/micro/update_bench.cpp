// Optimizer update microbenchmarks: one parameter update over TensorFlow's MNIST fc1 weights
// ([1024, 3136] f32, 12.8 MB a tensor, beyond the L3), the largest parameter of the zoo and,
// under the TF preset's Adam, a sixth of a training step. Each update is one elementwise pass;
// the `bytes` counter is the tensor passes it makes (reads + writes) times the tensor's bytes,
// so bytes_per_second against `copy` (one read, one write) shows how close it runs to memory:
//   copy        y = x                                               2 passes
//   caffe_sgd   g += wd w; h = m h + lr g; w -= h                  reads w g h, writes g h w: 6
//   torch_sgd   g += wd w; w -= lr g (momentum 0: Torch presets)   reads w g, writes g w: 4
//   adam        m, v moving moments; w -= lr_t m / (sqrt(v) + eps)  reads w g m v, writes m v w: 7
// And the weight gradient of fc1 at batch 50 (dw = dy^T x) with Adam after it, as two ops
// (linear_backward_weights, adam_update: dw written whole, then read: 9 passes) and folded
// into one (linear_backward_weights_update, the static strategy's update_fusion: 6 passes);
// FLOP/s counts the product's 2 N I O. Here every tensor may stay in the last-level cache
// between calls; in a training step the weights come from memory (docs/benchmarks.md, "The
// update folded into the weight gradient").
#include <memory>
#include <vector>

#include <benchmark/benchmark.h>

#include "bench/micro/micro_fixture.h"

namespace ablate::micro {
namespace {

using kernels::Tensor;

const kernels::Shape kWeights{1024, 3136};
double tensor_bytes() { return 1024.0 * 3136.0 * sizeof(float); }

OpFactory copy_case() {
  return [](kernels::Backend& backend) -> OpRunner {
    TensorMaker make(backend);
    Tensor x = make.random(kWeights), y = make.zeros(kWeights);
    kernels::Backend* b = &backend;
    return [=]() mutable { b->copy(x, y); };
  };
}

// Every call updates with the same g (refilling it would add passes); with these small rates and no
// weight decay the values stay finite over the benchmark's calls.
OpFactory update_case(const std::string& rule) {
  return [rule](kernels::Backend& backend) -> OpRunner {
    TensorMaker make(backend);
    Tensor w = make.random(kWeights), g = make.random(kWeights), a = make.zeros(kWeights), c = make.zeros(kWeights);
    kernels::Backend* b = &backend;
    if (rule == "adam") {
      auto step = std::make_shared<std::int64_t>(0);
      return [=]() mutable {
        kernels::AdamParams p;
        p.lr = 1e-4;
        p.t = ++*step;
        b->adam_update(w, g, a, c, p);
      };
    }
    if (rule == "torch_sgd") {
      return [=]() mutable {
        kernels::TorchSgdParams p;
        p.lr = 1e-6;  // momentum 0, as the Torch presets: no buffer
        b->torch_sgd_update(w, g, a, p);
      };
    }
    return [=]() mutable {
      kernels::CaffeSgdParams p;
      p.lr = 1e-6;
      p.momentum = 0.9;
      p.weight_decay = 0;
      b->caffe_sgd_update(w, g, a, p);
    };
  };
}

// dw = dy^T x for x [50, 3136], dy [50, 1024], then Adam on w, m, v: `fused` in one op.
OpFactory gradient_then_adam(bool fused) {
  return [fused](kernels::Backend& backend) -> OpRunner {
    TensorMaker make(backend);
    Tensor x = make.random({50, 3136}), dy = make.random({50, 1024}), w = make.random(kWeights);
    Tensor dw = make.zeros(kWeights), m = make.zeros(kWeights), v = make.zeros(kWeights), none;
    kernels::Backend* b = &backend;
    auto step = std::make_shared<std::int64_t>(0);
    return [=]() mutable {
      kernels::AdamParams p;
      p.lr = 1e-4;
      p.t = ++*step;
      if (fused) {
        std::vector<Tensor*> state{&m, &v};
        b->linear_backward_weights_update(x, dy, w, state, none, p, true);
      } else {
        b->linear_backward_weights(x, dy, dw, none);
        b->adam_update(w, dw, m, v, p);
      }
    };
  };
}

}  // namespace

void register_update_benchmarks() {
  const std::string at = "update/tf_mnist_fc1/";
  register_case({at + "copy", 0, copy_case(), 2 * tensor_bytes()});
  register_case({at + "caffe_sgd", 0, update_case("caffe_sgd"), 6 * tensor_bytes()});
  register_case({at + "torch_sgd", 0, update_case("torch_sgd"), 4 * tensor_bytes()});
  register_case({at + "adam", 0, update_case("adam"), 7 * tensor_bytes()});
  const double product = 2.0 * 50 * 3136 * 1024;
  register_case({at + "backward_weights_then_adam", product, gradient_then_adam(false), 9 * tensor_bytes()});
  register_case({at + "backward_weights_adam_fused", product, gradient_then_adam(true), 6 * tensor_bytes()});
}

}  // namespace ablate::micro
