// Bias addition and its gradient over [N, C, ...] (Caffe's bias term of Convolution and
// InnerProduct, Theano's "+ b.dimshuffle('x', 0, 'x', 'x')" after pooling), also over a
// channel-blocked [N, C, H, W] (kernels/tensor.h) where the backend runs that layout (oneDNN).
#include <algorithm>
#include <vector>

#include "kernels/cpu/accumulate.h"
#include "kernels/cpu/bias_loops.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {

template <class T>
void add_channel_bias(int threads, T* y, const T* b, std::int64_t n, std::int64_t c, std::int64_t inner) {
  if (inner == 1) {  // [N, C]: a row's channels lie side by side, and so do their biases
    parallel_for(threads, n, row_grain(c), [&](std::int64_t begin, std::int64_t end) {
      for (std::int64_t r = begin; r < end; ++r) {
        T* row = y + r * c;
        for (std::int64_t ch = 0; ch < c; ++ch) row[ch] += b[ch];
      }
    });
    return;
  }
  // Rows (n, c) of `inner` values each.
  parallel_for(threads, n * c, row_grain(inner),
               [&](std::int64_t begin, std::int64_t end) {
                 for (std::int64_t r = begin; r < end; ++r) {
                   const T v = b[r % c];
                   T* row = y + r * inner;
                   for (std::int64_t s = 0; s < inner; ++s) row[s] += v;
                 }
               });
}

template <class T>
void channel_bias_grad(int threads, const T* dy, std::int64_t n, std::int64_t c, std::int64_t inner, T* db) {
  // Each thread owns a range of channels and walks all images over it.
  const std::int64_t per_channel = std::max<std::int64_t>(n * inner, 1);
  parallel_for(threads, c, row_grain(per_channel),
               [&](std::int64_t begin, std::int64_t end) {
                 std::vector<double> acc(static_cast<std::size_t>(end - begin), 0.0);
                 for (std::int64_t i = 0; i < n; ++i) {
                   const T* image = dy + i * c * inner;
                   if (inner == 1) {
                     for (std::int64_t ch = begin; ch < end; ++ch) acc[ch - begin] += image[ch];
                   } else {
                     for (std::int64_t ch = begin; ch < end; ++ch) acc[ch - begin] += sum_run(image + ch * inner, inner);
                   }
                 }
                 for (std::int64_t ch = begin; ch < end; ++ch) db[ch] = static_cast<T>(acc[ch - begin]);
               });
}

template <class T>
void channel_bias_partials(const T* dy, std::int64_t begin, std::int64_t end, std::int64_t c, std::int64_t inner,
                           double* partial) {
  for (std::int64_t i = begin; i < end; ++i)
    for (std::int64_t ch = 0; ch < c; ++ch) partial[i * c + ch] = sum_run(dy + (i * c + ch) * inner, inner);
}

template <class T> void channel_bias_from_partials(const double* partial, std::int64_t n, std::int64_t c, T* db) {
  for (std::int64_t ch = 0; ch < c; ++ch) {
    double acc = 0.0;
    for (std::int64_t i = 0; i < n; ++i) acc += partial[i * c + ch];
    db[ch] = static_cast<T>(acc);
  }
}

template void add_channel_bias<float>(int, float*, const float*, std::int64_t, std::int64_t, std::int64_t);
template void add_channel_bias<double>(int, double*, const double*, std::int64_t, std::int64_t, std::int64_t);
template void channel_bias_grad<float>(int, const float*, std::int64_t, std::int64_t, std::int64_t, float*);
template void channel_bias_grad<double>(int, const double*, std::int64_t, std::int64_t, std::int64_t, double*);
template void channel_bias_partials<float>(const float*, std::int64_t, std::int64_t, std::int64_t, std::int64_t, double*);
template void channel_bias_partials<double>(const double*, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                                            double*);
template void channel_bias_from_partials<float>(const double*, std::int64_t, std::int64_t, float*);
template void channel_bias_from_partials<double>(const double*, std::int64_t, std::int64_t, double*);

namespace {
// [N, C, trailing...] -> inner = product of the trailing dimensions.
std::int64_t inner_size(const Tensor& t) { return t.dim(1) == 0 ? 0 : t.numel() / (t.dim(0) * t.dim(1)); }

// A channel-blocked y (kernels/tensor.h): rows (n, c/B) of S cells of B channels each.
template <class T> void add_blocked_channel_bias(int threads, T* y, const T* b, std::int64_t n, std::int64_t c, std::int64_t s, int block) {
  const std::int64_t blocks = c / block;
  parallel_for(threads, n * blocks, row_grain(s * block), [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t r = begin; r < end; ++r) {
      const T* lane = b + (r % blocks) * block;
      T* row = y + r * s * block;
      for (std::int64_t i = 0; i < s; ++i)
        for (int j = 0; j < block; ++j) row[i * block + j] += lane[j];
    }
  });
}

// Per channel, the sum over images and cells in double, in one fixed order (any thread count).
template <class T> void blocked_channel_bias_grad(int threads, const T* dy, std::int64_t n, std::int64_t c, std::int64_t s, int block, T* db) {
  const std::int64_t blocks = c / block;
  parallel_for(threads, blocks, row_grain(n * s * block), [&](std::int64_t begin, std::int64_t end) {
    std::vector<double> acc(static_cast<std::size_t>(block));
    for (std::int64_t cb = begin; cb < end; ++cb) {
      std::fill(acc.begin(), acc.end(), 0.0);
      for (std::int64_t image = 0; image < n; ++image) {
        const T* row = dy + (image * blocks + cb) * s * block;
        for (std::int64_t i = 0; i < s; ++i)
          for (int j = 0; j < block; ++j) acc[static_cast<std::size_t>(j)] += row[i * block + j];
      }
      for (int j = 0; j < block; ++j) db[cb * block + j] = static_cast<T>(acc[static_cast<std::size_t>(j)]);
    }
  });
}
}  // namespace

void CpuBackend::bias_add_impl(Tensor& y, const Tensor& bias) {
  if (y.numel() == 0) return;
  dispatch_float(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (y.channel_block() != 0)
      add_blocked_channel_bias(loop_threads_, y.data<T>(), bias.data<T>(), y.dim(0), y.dim(1), inner_size(y), y.channel_block());
    else
      add_channel_bias(loop_threads_, y.data<T>(), bias.data<T>(), y.dim(0), y.dim(1), inner_size(y));
  });
}

void CpuBackend::bias_backward_impl(const Tensor& dy, Tensor& dbias) {
  dispatch_float(dy.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (dy.numel() == 0) {
      std::fill(dbias.data<T>(), dbias.data<T>() + dbias.numel(), T(0));
      return;
    }
    if (dy.channel_block() != 0)
      blocked_channel_bias_grad(loop_threads_, dy.data<T>(), dy.dim(0), dy.dim(1), inner_size(dy), dy.channel_block(),
                                dbias.data<T>());
    else
      channel_bias_grad(loop_threads_, dy.data<T>(), dy.dim(0), dy.dim(1), inner_size(dy), dbias.data<T>());
  });
}

}  // namespace ablate::kernels::cpu
