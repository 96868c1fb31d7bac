// Loops that several reference op families share: the dtype dispatch, the GEMM triple loop
// (gemm and the fully connected layer), the per-channel sum (conv bias, bias_add's gradient,
// linear bias) and the rounding of double accumulators into the output (both convolutions).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/tensor.h"

namespace ablate::kernels::reference {

// Calls f(T{}) with T = float for f32 and double for f64 and returns what it returns (the
// contract has checked that the op's tensors are f32 or f64).
template <class F> auto with_float_type(DType dtype, F&& f) {
  return dtype == DType::f32 ? f(float{}) : f(double{});
}

// Row-major C[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + beta * C, where op(A) = A of [M,K] or,
// transposed, A stored as [K,M]; likewise B as [K,N] or [N,K]. Each dot product accumulates
// in double. With beta == 0, C is overwritten (never read), as in BLAS.
template <class T>
void gemm_loops(bool trans_a, bool trans_b, std::int64_t M, std::int64_t N, std::int64_t K, double alpha,
                const T* a, const T* b, double beta, T* c) {
  for (std::int64_t i = 0; i < M; ++i) {
    for (std::int64_t j = 0; j < N; ++j) {
      double dot = 0;
      for (std::int64_t k = 0; k < K; ++k) {
        double a_ik = trans_a ? a[k * M + i] : a[i * K + k];
        double b_kj = trans_b ? b[j * K + k] : b[k * N + j];
        dot += a_ik * b_kj;
      }
      double old = beta == 0 ? 0.0 : beta * static_cast<double>(c[i * N + j]);
      c[i * N + j] = static_cast<T>(alpha * dot + old);
    }
  }
}

// sums[c] = sum over n and the `inner` trailing elements of x[n, c, ...] for x viewed as
// [outer, channels, inner]: the gradient of a per-channel bias.
template <class T>
void channel_sums(const T* x, std::int64_t outer, std::int64_t channels, std::int64_t inner, T* sums) {
  std::vector<double> acc(static_cast<std::size_t>(channels), 0.0);
  for (std::int64_t n = 0; n < outer; ++n)
    for (std::int64_t c = 0; c < channels; ++c)
      for (std::int64_t i = 0; i < inner; ++i) acc[c] += x[(n * channels + c) * inner + i];
  for (std::int64_t c = 0; c < channels; ++c) sums[c] = static_cast<T>(acc[c]);
}

// x[n, c, ...] += bias[c] for x viewed as [outer, channels, inner].
template <class T>
void add_channel_bias(T* x, std::int64_t outer, std::int64_t channels, std::int64_t inner, const T* bias) {
  for (std::int64_t n = 0; n < outer; ++n)
    for (std::int64_t c = 0; c < channels; ++c)
      for (std::int64_t i = 0; i < inner; ++i) x[(n * channels + c) * inner + i] += bias[c];
}

// out[i] = acc[i] rounded once to T: the end of every sum accumulated in double.
template <class T> void round_into(const std::vector<double>& acc, T* out) {
  for (std::size_t i = 0; i < acc.size(); ++i) out[i] = static_cast<T>(acc[i]);
}

}  // namespace ablate::kernels::reference
