// Connection-table convolution microbenchmarks (Torch7's nn.SpatialConvolutionMap) on the
// layers of Torch's CIFAR-10 demo, batch 1 (its per-sample loop) and 16, next to the dense
// convolution of the same planes (conv2d, every input feeding every output), so that the
// table's saving and the direct loops' speed can be compared:
//   torch_cifar_map1  3 -> 16 planes, fan_in 1, 5x5 on 32x32 -> 28x28 (dense: fan_in 3)
//   torch_cifar_map2  16 -> 256 planes, fan_in 4, 5x5 on 14x14 -> 10x10 (dense: fan_in 16)
// A pass is 2*N*T*KH*KW*OH*OW flops with T = K*fan_in connections (bias not counted); the
// dense rows count 2*N*K*C*KH*KW*OH*OW.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <vector>

#include "bench/micro/micro_fixture.h"
#include "kernels/op_params.h"

namespace ablate::micro {
namespace {

using kernels::Tensor;

struct MapShape {
  const char* name;
  int n, c, h, w, k, fan_in, kernel;  // stride 1, no padding (as the demo)
  int out_h() const { return h - kernel + 1; }
  int out_w() const { return w - kernel + 1; }
};

constexpr MapShape kShapes[] = {
    {"torch_cifar_map1_b1", 1, 3, 32, 32, 16, 1, 5},    {"torch_cifar_map1_b16", 16, 3, 32, 32, 16, 1, 5},
    {"torch_cifar_map2_b1", 1, 16, 14, 14, 256, 4, 5},  {"torch_cifar_map2_b16", 16, 16, 14, 14, 256, 4, 5},
};

enum class Pass { forward, backward_data, backward_weights };

// nn.tables.random's layout: output planes in order, each the next fan_in planes of a
// shuffled permutation of the inputs (fixed seed), placed on the backend's device.
Tensor random_table(kernels::Backend& backend, const MapShape& s) {
  std::mt19937 rng(7);
  std::vector<std::int32_t> perm(static_cast<std::size_t>(s.c));
  Tensor host({std::int64_t(s.k) * s.fan_in, 2}, kernels::DType::i32);
  std::int32_t* t = host.data<std::int32_t>();
  std::size_t next = perm.size();
  for (int o = 0; o < s.k; ++o) {
    if (next + static_cast<std::size_t>(s.fan_in) > perm.size()) {
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      next = 0;
    }
    for (int f = 0; f < s.fan_in; ++f, t += 2) {
      t[0] = perm[next++];
      t[1] = o;
    }
  }
  if (backend.device() == kernels::Device::cpu) return host;
  Tensor placed(host.shape(), host.dtype(), &backend.allocator());
  backend.copy(host, placed);
  return placed;
}

OpFactory map_factory(const MapShape& s, Pass pass) {
  return [s, pass](kernels::Backend& backend) -> OpRunner {
    const kernels::Conv2dParams p;
    TensorMaker make(backend);
    Tensor x = make.random({s.n, s.c, s.h, s.w}), w = make.random({std::int64_t(s.k) * s.fan_in, s.kernel, s.kernel});
    Tensor bias = make.random({s.k}), y = make.random({s.n, s.k, s.out_h(), s.out_w()});
    Tensor table = random_table(backend, s);
    kernels::Backend* b = &backend;
    switch (pass) {
      case Pass::forward:
        return [=]() mutable { b->conv2d_map_forward(x, w, bias, table, y, p); };
      case Pass::backward_data:
        return [=]() mutable { b->conv2d_map_backward_data(y, w, table, x, p); };
      case Pass::backward_weights:
        return [=]() mutable { b->conv2d_map_backward_weights(x, y, table, w, bias, p); };
    }
    return {};
  };
}

// The dense convolution of the same planes, for comparison.
OpFactory dense_factory(const MapShape& s, Pass pass) {
  return [s, pass](kernels::Backend& backend) -> OpRunner {
    const kernels::Conv2dParams p;
    TensorMaker make(backend);
    Tensor x = make.random({s.n, s.c, s.h, s.w}), w = make.random({s.k, s.c, s.kernel, s.kernel});
    Tensor bias = make.random({s.k}), y = make.random({s.n, s.k, s.out_h(), s.out_w()});
    kernels::Backend* b = &backend;
    switch (pass) {
      case Pass::forward:
        return [=]() mutable { b->conv2d_forward(x, w, bias, y, p); };
      case Pass::backward_data:
        return [=]() mutable { b->conv2d_backward_data(y, w, x, p); };
      case Pass::backward_weights:
        return [=]() mutable { b->conv2d_backward_weights(x, y, w, bias, p); };
    }
    return {};
  };
}

}  // namespace

void register_conv_map_benchmarks() {
  const std::pair<Pass, const char*> passes[] = {
      {Pass::forward, "forward"}, {Pass::backward_data, "backward_data"}, {Pass::backward_weights, "backward_weights"}};
  for (const MapShape& s : kShapes) {
    const double taps = 2.0 * s.n * s.kernel * s.kernel * s.out_h() * s.out_w();
    for (const auto& [pass, pass_name] : passes) {
      register_case({std::string("conv_map/") + s.name + "/" + pass_name, taps * s.k * s.fan_in, map_factory(s, pass)});
      register_case({std::string("conv_map_dense/") + s.name + "/" + pass_name, taps * s.k * s.c, dense_factory(s, pass)});
    }
  }
}

}  // namespace ablate::micro
