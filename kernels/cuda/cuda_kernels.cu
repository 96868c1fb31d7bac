// The CUDA backend's own kernels (see cuda_kernels.h). Grid-stride loops over 64-bit
// indices; accumulations in double, as the reference backend does.
#include "kernels/cuda/cuda_kernels.h"

#include <algorithm>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_launch.h"
#include "kernels/gelu_math.h"

namespace ablate::kernels::cuda {
namespace {

// kernels/counter_random.h's counter_uniform, identical bit for bit.
__device__ std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
__device__ double counter_uniform(std::uint64_t seed, std::uint64_t index) {
  std::uint64_t z = mix64(seed * 0x9e3779b97f4a7c15ULL + mix64(index + 0x632be59bd9b4e019ULL));
  return static_cast<double>(z >> 11) * 0x1.0p-53;
}

template <class T> __global__ void fill_kernel(T* x, std::int64_t n, T v) {
  GRID_LOOP(i, n) x[i] = v;
}

template <class T>
__global__ void elementwise_kernel(Elementwise op, std::int64_t n, double alpha, const T* x, double beta, const T* y,
                                   T* out) {
  GRID_LOOP(i, n) {
    double r;
    if (op == Elementwise::axpby) r = beta == 0 ? alpha * double(x[i]) : alpha * double(x[i]) + beta * double(out[i]);
    else if (op == Elementwise::add) r = double(x[i]) + double(y[i]);
    else r = double(x[i]) * double(y[i]);
    out[i] = T(r);
  }
}

template <class T> __global__ void partial_sums_kernel(const T* x, std::int64_t n, bool squares, double* partials) {
  __shared__ double shared[kThreads];
  double s = 0;
  GRID_LOOP(i, n) {
    double v = x[i];
    s += squares ? v * v : v;
  }
  shared[threadIdx.x] = s;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x] += shared[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) partials[blockIdx.x] = shared[0];
}

template <class T> __global__ void argmax_rows_kernel(const T* x, std::int64_t rows, std::int64_t cols, std::int32_t* out) {
  GRID_LOOP(r, rows) {
    const T* row = x + r * cols;
    std::int64_t best = 0;
    for (std::int64_t k = 1; k < cols; ++k)
      if (row[k] > row[best]) best = k;
    out[r] = static_cast<std::int32_t>(best);
  }
}

template <class T> __global__ void bias_add_kernel(T* y, const T* bias, std::int64_t total, std::int64_t C, std::int64_t inner) {
  GRID_LOOP(i, total) y[i] = T(double(y[i]) + double(bias[(i / inner) % C]));
}

// One block per channel, a fixed-order tree reduction.
template <class T> __global__ void bias_backward_kernel(const T* dy, T* dbias, std::int64_t N, std::int64_t C, std::int64_t inner) {
  __shared__ double shared[kThreads];
  std::int64_t c = blockIdx.x;
  double s = 0;
  for (std::int64_t j = threadIdx.x; j < N * inner; j += blockDim.x) {
    std::int64_t n = j / inner, i = j % inner;
    s += dy[(n * C + c) * inner + i];
  }
  shared[threadIdx.x] = s;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x] += shared[threadIdx.x + stride];
    __syncthreads();
  }
  if (threadIdx.x == 0) dbias[c] = T(shared[0]);
}

template <class T>
__global__ void dropout_kernel(T* mask, std::int64_t n, double keep, std::uint64_t seed, std::uint64_t first, T kept) {
  GRID_LOOP(i, n) mask[i] = counter_uniform(seed, first + static_cast<std::uint64_t>(i)) < keep ? kept : T(0);
}

template <class T>
__global__ void xent_rows_kernel(const T* x, const std::int32_t* labels, std::int64_t N, std::int64_t K, double* loss) {
  GRID_LOOP(n, N) {
    const T* row = x + n * K;
    double m = row[0];
    for (std::int64_t k = 1; k < K; ++k) m = fmax(m, double(row[k]));
    double s = 0;
    for (std::int64_t k = 0; k < K; ++k) s += exp(double(row[k]) - m);
    loss[n] = (m - double(row[labels[n]])) + log(s);
  }
}

template <class T>
__global__ void xent_backward_kernel(const T* p, const std::int32_t* labels, std::int64_t N, std::int64_t K, double scale, T* d) {
  GRID_LOOP(i, N * K) {
    std::int64_t n = i / K, k = i % K;
    d[i] = T((double(p[i]) - (k == labels[n] ? 1.0 : 0.0)) * scale);
  }
}

template <class T>
__global__ void nll_rows_kernel(const T* logp, const std::int32_t* labels, std::int64_t N, std::int64_t K, double* loss) {
  GRID_LOOP(n, N) loss[n] = -double(logp[n * K + labels[n]]);
}

template <class T>
__global__ void nll_backward_kernel(const std::int32_t* labels, std::int64_t N, std::int64_t K, double scale, T* d) {
  GRID_LOOP(i, N * K) d[i] = (i % K) == labels[i / K] ? T(-scale) : T(0);
}

// The window of output (oh, ow) clipped to the real image, and its average divisor.
struct Window {
  std::int64_t h0, h1, w0, w1;
  double divisor;
};
__device__ Window pool_window(const PoolGeometry& g, std::int64_t oh, std::int64_t ow) {
  std::int64_t hs = oh * g.stride_h - g.pad_top, ws = ow * g.stride_w - g.pad_left;
  std::int64_t he = hs + g.kernel_h, we = ws + g.kernel_w;
  Window win{hs > 0 ? hs : 0, he < g.H ? he : g.H, ws > 0 ? ws : 0, we < g.W ? we : g.W, 0};
  if (g.avg_count_padding) {
    std::int64_t hl = g.H + g.pad_bottom_limit, wl = g.W + g.pad_right_limit;
    win.divisor = double((he < hl ? he : hl) - hs) * double((we < wl ? we : wl) - ws);
  } else {
    win.divisor = double(win.h1 - win.h0) * double(win.w1 - win.w0);
  }
  return win;
}

template <class T> __global__ void pool_forward_kernel(PoolGeometry g, const T* x, T* y, std::int32_t* argmax) {
  GRID_LOOP(out, g.planes * g.out_h * g.out_w) {
    std::int64_t ow = out % g.out_w, oh = (out / g.out_w) % g.out_h, plane = out / (g.out_w * g.out_h);
    Window win = pool_window(g, oh, ow);
    const T* in = x + plane * g.H * g.W;
    if (g.max) {
      std::int64_t best = win.h0 * g.W + win.w0;
      for (std::int64_t h = win.h0; h < win.h1; ++h)
        for (std::int64_t w = win.w0; w < win.w1; ++w)
          if (in[h * g.W + w] > in[best]) best = h * g.W + w;
      y[out] = in[best];
      argmax[out] = static_cast<std::int32_t>(best);
    } else {
      double s = 0;
      for (std::int64_t h = win.h0; h < win.h1; ++h)
        for (std::int64_t w = win.w0; w < win.w1; ++w) s += in[h * g.W + w];
      y[out] = T(s / win.divisor);
    }
  }
}

// Output rows whose window [o*S - pad, o*S - pad + K) contains input row h.
__device__ void covering(std::int64_t h, int kernel, int stride, int pad, std::int64_t out, std::int64_t& lo, std::int64_t& hi) {
  std::int64_t a = h + pad - kernel + 1;  // o*S >= a
  lo = a <= 0 ? 0 : (a + stride - 1) / stride;
  hi = (h + pad) / stride + 1;  // o*S <= h + pad
  if (hi > out) hi = out;
}

template <class T>
__global__ void pool_backward_kernel(PoolGeometry g, const T* x, const T* y, const T* dy, const std::int32_t* argmax, T* dx) {
  GRID_LOOP(i, g.planes * g.H * g.W) {
    std::int64_t w = i % g.W, h = (i / g.W) % g.H, plane = i / (g.W * g.H);
    std::int64_t oh0, oh1, ow0, ow1;
    covering(h, g.kernel_h, g.stride_h, g.pad_top, g.out_h, oh0, oh1);
    covering(w, g.kernel_w, g.stride_w, g.pad_left, g.out_w, ow0, ow1);
    double s = 0;
    std::int64_t base = plane * g.out_h * g.out_w;
    for (std::int64_t oh = oh0; oh < oh1; ++oh)
      for (std::int64_t ow = ow0; ow < ow1; ++ow) {
        std::int64_t out = base + oh * g.out_w + ow;
        if (g.max) {
          if (g.all_maxima ? x[i] == y[out] : argmax[out] == h * g.W + w) s += dy[out];
        } else {
          s += double(T(dy[out] / pool_window(g, oh, ow).divisor));
        }
      }
    dx[i] = T(s);
  }
}

template <class T>
__global__ void pad2d_kernel(const T* x, std::int64_t planes, std::int64_t H, std::int64_t W, int top, int left,
                             std::int64_t HP, std::int64_t WP, T* xp) {
  GRID_LOOP(i, planes * HP * WP) {
    std::int64_t w = i % WP - left, h = (i / WP) % HP - top, plane = i / (WP * HP);
    xp[i] = (h >= 0 && h < H && w >= 0 && w < W) ? x[(plane * H + h) * W + w] : T(0);
  }
}

template <class T>
__global__ void crop2d_kernel(const T* xp, std::int64_t planes, std::int64_t H, std::int64_t W, int top, int left,
                              std::int64_t HP, std::int64_t WP, T* x) {
  GRID_LOOP(i, planes * H * W) {
    std::int64_t w = i % W, h = (i / W) % H, plane = i / (W * H);
    x[i] = xp[(plane * HP + h + top) * WP + w + left];
  }
}

template <class T> __global__ void caffe_sgd_kernel(T* w, T* g, T* hist, std::int64_t n, double lr, double mom, double wd) {
  GRID_LOOP(i, n) {
    double grad = double(g[i]) + wd * double(w[i]);
    double h = mom * double(hist[i]) + lr * grad;
    g[i] = T(grad);
    hist[i] = T(h);
    w[i] = T(double(w[i]) - h);
  }
}

template <class T>
__global__ void torch_sgd_kernel(T* w, T* g, T* vel, std::int64_t n, double lr, double mom, double damp, double wd,
                                 bool nesterov, bool first) {
  GRID_LOOP(i, n) {
    double grad = double(g[i]) + wd * double(w[i]);
    double step = grad;  // momentum 0: Torch7 uses the gradient itself, no buffer
    if (mom != 0) {
      double v = first ? grad : mom * double(vel[i]) + (1 - damp) * grad;
      vel[i] = T(v);
      step = nesterov ? grad + mom * v : v;
    }
    g[i] = T(grad);
    w[i] = T(double(w[i]) - lr * step);
  }
}

template <class T> __global__ void gelu_forward_kernel(const T* x, T* y, std::int64_t n, GeluApprox approx) {
  GRID_LOOP(i, n) y[i] = gelu_value(x[i], approx);
}

template <class T>
__global__ void gelu_backward_kernel(const T* x, const T* dy, T* dx, std::int64_t n, GeluApprox approx) {
  GRID_LOOP(i, n) dx[i] = dy[i] * gelu_derivative(x[i], approx);
}

template <class T>
__global__ void adam_kernel(T* w, const T* g, T* m, T* v, std::int64_t n, double lr_t, double b1, double b2, double eps) {
  GRID_LOOP(i, n) {
    double grad = g[i];
    double mi = b1 * double(m[i]) + (1 - b1) * grad;
    double vi = b2 * double(v[i]) + (1 - b2) * grad * grad;
    m[i] = T(mi);
    v[i] = T(vi);
    w[i] = T(double(w[i]) - lr_t * mi / (sqrt(vi) + eps));
  }
}

}  // namespace

template <class T> void launch_fill(T* x, std::int64_t n, double value) {
  fill_kernel<T><<<blocks_for(n), kThreads>>>(x, n, T(value));
  ABLATE_CUDA_LAUNCHED();
}
template <class T>
void launch_elementwise(Elementwise op, std::int64_t n, double alpha, const T* x, double beta, const T* y, T* out) {
  elementwise_kernel<T><<<blocks_for(n), kThreads>>>(op, n, alpha, x, beta, y, out);
  ABLATE_CUDA_LAUNCHED();
}
template <class T> void launch_partial_sums(const T* x, std::int64_t n, bool squares, double* partials, int blocks) {
  partial_sums_kernel<T><<<blocks, kThreads>>>(x, n, squares, partials);
  ABLATE_CUDA_LAUNCHED();
}
template <class T> void launch_argmax_rows(const T* x, std::int64_t rows, std::int64_t cols, std::int32_t* out) {
  argmax_rows_kernel<T><<<blocks_for(rows), kThreads>>>(x, rows, cols, out);
  ABLATE_CUDA_LAUNCHED();
}
template <class T> void launch_bias_add(T* y, const T* bias, std::int64_t N, std::int64_t C, std::int64_t inner) {
  bias_add_kernel<T><<<blocks_for(N * C * inner), kThreads>>>(y, bias, N * C * inner, C, inner);
  ABLATE_CUDA_LAUNCHED();
}
template <class T> void launch_bias_backward(const T* dy, T* dbias, std::int64_t N, std::int64_t C, std::int64_t inner) {
  if (C == 0) return;
  bias_backward_kernel<T><<<static_cast<unsigned>(C), kThreads>>>(dy, dbias, N, C, inner);
  ABLATE_CUDA_LAUNCHED();
}
template <class T> void launch_dropout_mask(T* mask, std::int64_t n, double keep, std::uint64_t seed, std::uint64_t first) {
  dropout_kernel<T><<<blocks_for(n), kThreads>>>(mask, n, keep, seed, first, static_cast<T>(1.0 / keep));
  ABLATE_CUDA_LAUNCHED();
}
template <class T>
void launch_xent_rows(const T* x, const std::int32_t* labels, std::int64_t N, std::int64_t K, double* row_loss) {
  xent_rows_kernel<T><<<blocks_for(N), kThreads>>>(x, labels, N, K, row_loss);
  ABLATE_CUDA_LAUNCHED();
}
template <class T>
void launch_xent_backward(const T* p, const std::int32_t* labels, std::int64_t N, std::int64_t K, double scale, T* d) {
  xent_backward_kernel<T><<<blocks_for(N * K), kThreads>>>(p, labels, N, K, scale, d);
  ABLATE_CUDA_LAUNCHED();
}
template <class T>
void launch_nll_rows(const T* logp, const std::int32_t* labels, std::int64_t N, std::int64_t K, double* row_loss) {
  nll_rows_kernel<T><<<blocks_for(N), kThreads>>>(logp, labels, N, K, row_loss);
  ABLATE_CUDA_LAUNCHED();
}
template <class T> void launch_nll_backward(const std::int32_t* labels, std::int64_t N, std::int64_t K, double scale, T* d) {
  nll_backward_kernel<T><<<blocks_for(N * K), kThreads>>>(labels, N, K, scale, d);
  ABLATE_CUDA_LAUNCHED();
}
template <class T> void launch_pool_forward(const PoolGeometry& g, const T* x, T* y, std::int32_t* argmax) {
  pool_forward_kernel<T><<<blocks_for(g.planes * g.out_h * g.out_w), kThreads>>>(g, x, y, argmax);
  ABLATE_CUDA_LAUNCHED();
}
template <class T>
void launch_pool_backward(const PoolGeometry& g, const T* x, const T* y, const T* dy, const std::int32_t* argmax, T* dx) {
  pool_backward_kernel<T><<<blocks_for(g.planes * g.H * g.W), kThreads>>>(g, x, y, dy, argmax, dx);
  ABLATE_CUDA_LAUNCHED();
}
template <class T>
void launch_pad2d(const T* x, std::int64_t planes, std::int64_t H, std::int64_t W, int top, int left, std::int64_t HP,
                  std::int64_t WP, T* xp) {
  pad2d_kernel<T><<<blocks_for(planes * HP * WP), kThreads>>>(x, planes, H, W, top, left, HP, WP, xp);
  ABLATE_CUDA_LAUNCHED();
}
template <class T>
void launch_crop2d(const T* xp, std::int64_t planes, std::int64_t H, std::int64_t W, int top, int left, std::int64_t HP,
                   std::int64_t WP, T* x) {
  crop2d_kernel<T><<<blocks_for(planes * H * W), kThreads>>>(xp, planes, H, W, top, left, HP, WP, x);
  ABLATE_CUDA_LAUNCHED();
}
template <class T> void launch_gelu_forward(const T* x, T* y, std::int64_t n, GeluApprox approx) {
  gelu_forward_kernel<T><<<blocks_for(n), kThreads>>>(x, y, n, approx);
  ABLATE_CUDA_LAUNCHED();
}
template <class T> void launch_gelu_backward(const T* x, const T* dy, T* dx, std::int64_t n, GeluApprox approx) {
  gelu_backward_kernel<T><<<blocks_for(n), kThreads>>>(x, dy, dx, n, approx);
  ABLATE_CUDA_LAUNCHED();
}
template <class T>
void launch_caffe_sgd(T* w, T* g, T* h, std::int64_t n, double lr, double momentum, double weight_decay) {
  caffe_sgd_kernel<T><<<blocks_for(n), kThreads>>>(w, g, h, n, lr, momentum, weight_decay);
  ABLATE_CUDA_LAUNCHED();
}
template <class T>
void launch_torch_sgd(T* w, T* g, T* v, std::int64_t n, double lr, double momentum, double dampening,
                      double weight_decay, bool nesterov, bool first) {
  torch_sgd_kernel<T><<<blocks_for(n), kThreads>>>(w, g, v, n, lr, momentum, dampening, weight_decay, nesterov, first);
  ABLATE_CUDA_LAUNCHED();
}
template <class T>
void launch_adam(T* w, const T* g, T* m, T* v, std::int64_t n, double lr_t, double beta1, double beta2, double eps) {
  adam_kernel<T><<<blocks_for(n), kThreads>>>(w, g, m, v, n, lr_t, beta1, beta2, eps);
  ABLATE_CUDA_LAUNCHED();
}

#define ABLATE_INSTANTIATE(T)                                                                                     \
  template void launch_fill<T>(T*, std::int64_t, double);                                                         \
  template void launch_elementwise<T>(Elementwise, std::int64_t, double, const T*, double, const T*, T*);          \
  template void launch_partial_sums<T>(const T*, std::int64_t, bool, double*, int);                               \
  template void launch_argmax_rows<T>(const T*, std::int64_t, std::int64_t, std::int32_t*);                       \
  template void launch_bias_add<T>(T*, const T*, std::int64_t, std::int64_t, std::int64_t);                       \
  template void launch_bias_backward<T>(const T*, T*, std::int64_t, std::int64_t, std::int64_t);                  \
  template void launch_dropout_mask<T>(T*, std::int64_t, double, std::uint64_t, std::uint64_t);                   \
  template void launch_xent_rows<T>(const T*, const std::int32_t*, std::int64_t, std::int64_t, double*);          \
  template void launch_xent_backward<T>(const T*, const std::int32_t*, std::int64_t, std::int64_t, double, T*);   \
  template void launch_nll_rows<T>(const T*, const std::int32_t*, std::int64_t, std::int64_t, double*);           \
  template void launch_nll_backward<T>(const std::int32_t*, std::int64_t, std::int64_t, double, T*);              \
  template void launch_pool_forward<T>(const PoolGeometry&, const T*, T*, std::int32_t*);                         \
  template void launch_pool_backward<T>(const PoolGeometry&, const T*, const T*, const T*, const std::int32_t*, T*); \
  template void launch_pad2d<T>(const T*, std::int64_t, std::int64_t, std::int64_t, int, int, std::int64_t,       \
                                std::int64_t, T*);                                                                \
  template void launch_crop2d<T>(const T*, std::int64_t, std::int64_t, std::int64_t, int, int, std::int64_t,      \
                                 std::int64_t, T*);                                                               \
  template void launch_gelu_forward<T>(const T*, T*, std::int64_t, GeluApprox);                                   \
  template void launch_gelu_backward<T>(const T*, const T*, T*, std::int64_t, GeluApprox);                        \
  template void launch_caffe_sgd<T>(T*, T*, T*, std::int64_t, double, double, double);                            \
  template void launch_torch_sgd<T>(T*, T*, T*, std::int64_t, double, double, double, double, bool, bool);        \
  template void launch_adam<T>(T*, const T*, T*, T*, std::int64_t, double, double, double, double);

ABLATE_INSTANTIATE(float)
ABLATE_INSTANTIATE(double)

}  // namespace ablate::kernels::cuda
