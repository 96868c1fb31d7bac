// The random convolution geometry of the conformance cases, shared by the dense convolution
// (conformance_conv_cases.cpp) and the connection-table convolution
// (conformance_conv_map_cases.cpp): batch 1-3, 1-4 channels in and out, kernels 1-5 (square
// and not), strides 1-3 per axis, asymmetric padding below the kernel, inputs 1-11 that hold
// at least one window.
#pragma once

#include <algorithm>
#include <sstream>
#include <string>

#include "kernels/op_params.h"
#include "test_tensors.h"

namespace ablate::kernels::test {

struct ConvShape {
  std::int64_t N, C, H, W, K, KH, KW;
  Conv2dParams p;
  bool bias;
  std::int64_t out_h() const { return (H + p.pad_top + p.pad_bottom - KH) / p.stride_h + 1; }
  std::int64_t out_w() const { return (W + p.pad_left + p.pad_right - KW) / p.stride_w + 1; }
  Shape x() const { return {N, C, H, W}; }
  Shape w() const { return {K, C, KH, KW}; }
  Shape y() const { return {N, K, out_h(), out_w()}; }
  std::string describe() const {
    std::ostringstream s;
    s << "x " << shape_string(x()) << ", w " << shape_string(w()) << ", stride " << p.stride_h << "x" << p.stride_w
      << ", pad t" << p.pad_top << " l" << p.pad_left << " b" << p.pad_bottom << " r" << p.pad_right
      << (bias ? ", bias" : ", no bias");
    return s.str();
  }
};

inline ConvShape random_conv_shape(Rng& rng) {
  ConvShape s{};
  s.N = random_int(rng, 1, 3);
  s.C = random_int(rng, 1, 4);
  s.K = random_int(rng, 1, 4);
  s.KH = random_int(rng, 1, 5);
  s.KW = random_int(rng, 1, 5);
  s.p.stride_h = random_int(rng, 1, 3);
  s.p.stride_w = random_int(rng, 1, 3);
  s.p.pad_top = random_int(rng, 0, static_cast<int>(s.KH) - 1);
  s.p.pad_bottom = random_int(rng, 0, static_cast<int>(s.KH) - 1);
  s.p.pad_left = random_int(rng, 0, static_cast<int>(s.KW) - 1);
  s.p.pad_right = random_int(rng, 0, static_cast<int>(s.KW) - 1);
  // The padded input holds at least one window.
  s.H = std::max<std::int64_t>(random_int(rng, 1, 11), s.KH - s.p.pad_top - s.p.pad_bottom);
  s.W = std::max<std::int64_t>(random_int(rng, 1, 11), s.KW - s.p.pad_left - s.p.pad_right);
  s.H = std::max<std::int64_t>(s.H, 1);
  s.W = std::max<std::int64_t>(s.W, 1);
  s.bias = random_int(rng, 0, 1) == 1;
  return s;
}

}  // namespace ablate::kernels::test
