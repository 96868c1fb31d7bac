// Per-channel bias loops shared by convolution, fully connected layers and bias_add:
// y [N, C, inner] += b[c] (Caffe adds it with a GEMM against a ones vector; a loop is the
// same sum), and db[c] = sum over n and inner of dy[n, c, inner], accumulated in double.
#pragma once

#include <cstdint>

namespace ablate::kernels::cpu {

template <class T>
void add_channel_bias(int threads, T* y, const T* b, std::int64_t n, std::int64_t c, std::int64_t inner);
template <class T>
void channel_bias_grad(int threads, const T* dy, std::int64_t n, std::int64_t c, std::int64_t inner, T* db);

}  // namespace ablate::kernels::cpu
