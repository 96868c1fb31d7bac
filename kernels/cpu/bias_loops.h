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

// The same db in two steps, for a loop over images whose threads each own a range of them (the
// convolution's weight gradient, conv2d.cpp): each reads only the dy it already holds in its
// cache, where channel_bias_grad's channel ranges would read the other core's images.
//   partial[i*c + ch] = the double sum of dy[i, ch, :], for images [begin, end)
//   db[ch] = the partials of images 0..n-1 added in order: channel_bias_grad's bits
template <class T>
void channel_bias_partials(const T* dy, std::int64_t begin, std::int64_t end, std::int64_t c, std::int64_t inner,
                           double* partial);
template <class T> void channel_bias_from_partials(const double* partial, std::int64_t n, std::int64_t c, T* db);

}  // namespace ablate::kernels::cpu
