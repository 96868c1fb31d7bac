// The convolution's epilogue on the CPU backends (Conv2dParams::activation): bias and
// activation in one pass over an output block, y = f(conv + b[c]), run right after the GEMM or
// contraction that wrote the block, while it is in cache (TF's _FusedConv2D with BiasAdd and
// Relu; Caffe and Torch ran the bias inside the convolution and the ReLU as a layer after).
// The formulas are activation_math.h's in the tensor's precision, and the bias is added first
// as bias_add does, so a fused convolution gives the bits of conv2d_forward followed by
// activation_forward. Used by the shared im2col + GEMM loops (conv2d.cpp) and by the eigen
// backend's NHWC contraction (eigen_backend.cpp).
#pragma once

#include <cstdint>
#include <optional>

#include "kernels/cpu/activation_math.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {

// One row of an epilogue: `inner` values read at src, written at dst (may be src), of channel c.
template <class T> struct EpilogueRow {
  const T* src;
  T* dst;
  std::int64_t channel;
};

// For r in [0, rows): with {src, dst, c} = row(r), dst[s] = f(src[s] + bias[c]) for s < inner,
// f the identity when `activation` is none and no add when `bias` is null. The switch over f
// stays outside the loop. Rows are split over `threads` (parallel_for's grain).
template <class T, class RowOf>
void conv_epilogue(int threads, std::optional<Activation> activation, const T* bias, std::int64_t rows,
                   std::int64_t inner, RowOf&& row) {
  auto run = [&](auto f) {
    parallel_for(threads, rows, row_grain(inner), [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) {
        const EpilogueRow<T> e = row(r);
        if (bias) {
          const T v = bias[e.channel];
          for (std::int64_t s = 0; s < inner; ++s) e.dst[s] = f(e.src[s] + v);
        } else {
          for (std::int64_t s = 0; s < inner; ++s) e.dst[s] = f(e.src[s]);
        }
      }
    });
  };
  if (activation) for_activation<T>(*activation, run);
  else run([](T v) { return v; });
}

// The epilogue in place over y [n, c, inner]: nothing to do without bias and activation.
template <class T>
void conv_epilogue_in_place(int threads, std::optional<Activation> activation, const T* bias, T* y, std::int64_t n,
                            std::int64_t c, std::int64_t inner) {
  if (!bias && !activation) return;
  conv_epilogue<T>(threads, activation, bias, n * c, inner, [&](std::int64_t r) {
    return EpilogueRow<T>{y + r * inner, y + r * inner, r % c};
  });
}

}  // namespace ablate::kernels::cpu
