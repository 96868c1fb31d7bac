// TensorFlow 1.x's convolution as Eigen Tensor contractions on an intra-op thread pool (see
// eigen_spatial_conv.h). Shapes, with P = OH*OW output pixels and R = KH*KW*C taps:
//   x_nhwc [N,H,W,C], w_hwio [KH,KW,C,K] = [R,K], y_nhwc [N,OH,OW,K] = [N*P, K]
//   forward           y = patches(x) [N*P, R] . w [R, K]
//   backward data     col_n [P, R] = dy_n [P, K] . w^T, then dx_n += col2im(col_n)
//   backward weights  dw [R, K] += col^T [S*P, R] . dy [S*P, K] over shards of S images
// Eigen lays a RowMajor image out as [batch, cols, rows, depth]: for NHWC its "rows" are W and its
// "cols" are H, so patch sizes, strides and paddings go in swapped, as TensorFlow passes them.
#define EIGEN_USE_THREADS
// GCC 12 reports "may be used uninitialized" inside Eigen's AVX-512 packet code: a false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "kernels/eigen/eigen_spatial_conv.h"

#include <unsupported/Eigen/CXX11/Tensor>

#include <algorithm>

#include "kernels/cpu/conv_geometry.h"
#include "kernels/cpu/scratch.h"

namespace ablate::kernels::eigen {

struct EigenSpatialConv::Pool {
  explicit Pool(int n) : pool(n), device(&pool, n) {}
  Eigen::ThreadPool pool;
  Eigen::ThreadPoolDevice device;
};

namespace {

using Index = Eigen::Index;
template <class T, int R> using Map = Eigen::TensorMap<Eigen::Tensor<T, R, Eigen::RowMajor, Index>>;
template <class T, int R> using ConstMap = Eigen::TensorMap<Eigen::Tensor<const T, R, Eigen::RowMajor, Index>>;
using Dims1 = Eigen::array<Eigen::IndexPair<Index>, 1>;

// TensorFlow's cache sizes in conv_grad_*_ops.cc: per-thread work under L2 runs images side by
// side; shards of images fill L3.
constexpr std::size_t kL2Bytes = 256 << 10, kL3Bytes = std::size_t{30} << 20;

// out = in with its dimensions permuted: output dimension i is input dimension order[i].
template <class T>
void permute(const Eigen::ThreadPoolDevice& d, const T* in, Eigen::array<Index, 4> in_dims, Eigen::array<Index, 4> order,
             T* out) {
  ConstMap<T, 4> src(in, in_dims);
  Eigen::array<Index, 4> out_dims;
  for (int i = 0; i < 4; ++i) out_dims[i] = in_dims[order[i]];
  Map<T, 4> dst(out, out_dims);
  dst.device(d) = src.shuffle(order);
}

constexpr Eigen::array<Index, 4> kNchwToNhwc{0, 2, 3, 1}, kNhwcToNchw{0, 3, 1, 2};
constexpr Eigen::array<Index, 4> kOihwToHwio{2, 3, 1, 0}, kHwioToOihw{3, 2, 0, 1};

// The columns of one NHWC image: col[oh*OW + ow][(i*KW + j)*C + c] = x[oh*sh - pt + i][ow*sw - pl + j][c],
// 0 in the padding (TensorFlow's Im2col in conv_grad_filter_ops.cc).
template <class T> void im2col_nhwc(const cpu::ConvGeometry& g, const T* x, T* col) {
  for (Index oh = 0; oh < g.oh; ++oh)
    for (Index ow = 0; ow < g.ow; ++ow)
      for (Index i = 0; i < g.kh; ++i) {
        const Index h = oh * g.p.stride_h - g.p.pad_top + i;
        for (Index j = 0; j < g.kw; ++j, col += g.c) {
          const Index w = ow * g.p.stride_w - g.p.pad_left + j;
          if (h < 0 || h >= g.h || w < 0 || w >= g.w) std::fill(col, col + g.c, T(0));
          else std::copy_n(x + (h * g.w + w) * g.c, g.c, col);
        }
      }
}

// The adjoint (TensorFlow's Col2im): dx [H,W,C] += every column back onto its pixels.
template <class T> void col2im_nhwc(const cpu::ConvGeometry& g, const T* col, T* dx) {
  for (Index oh = 0; oh < g.oh; ++oh)
    for (Index ow = 0; ow < g.ow; ++ow)
      for (Index i = 0; i < g.kh; ++i) {
        const Index h = oh * g.p.stride_h - g.p.pad_top + i;
        for (Index j = 0; j < g.kw; ++j, col += g.c) {
          const Index w = ow * g.p.stride_w - g.p.pad_left + j;
          if (h < 0 || h >= g.h || w < 0 || w >= g.w) continue;
          T* at = dx + (h * g.w + w) * g.c;
          for (Index c = 0; c < g.c; ++c) at[c] += col[c];
        }
      }
}

// Images per shard: TensorFlow's L3 target over one image's work (elements), at least one.
template <class T> Index images_per_shard(Index work) {
  return std::max<Index>(1, static_cast<Index>((kL3Bytes / sizeof(T) + work - 1) / work));
}

template <class T> T* scratch(cpu::ScratchSlot slot, Index count) {
  return cpu::scratch_of<T>(slot, static_cast<std::size_t>(std::max<Index>(count, 1)));
}

}  // namespace

EigenSpatialConv::EigenSpatialConv() = default;
EigenSpatialConv::~EigenSpatialConv() = default;

void EigenSpatialConv::set_threads(int threads) {
  if (threads != threads_) pool_.reset();
  threads_ = threads;
}

// The pool's threads start on the first convolution: a backend that never lowers this way has none.
const Eigen::ThreadPoolDevice& EigenSpatialConv::device() {
  if (!pool_) pool_ = std::make_unique<Pool>(threads_);
  return pool_->device;
}

void EigenSpatialConv::count(bool filter, std::int64_t bytes) {
  (filter ? filter_reorders_ : activation_reorders_) += 1;
  reorder_bytes_ += bytes;
}

// t (activations NCHW, or filters OIHW) as NHWC / HWIO in scratch slot `slot`, counted.
template <class T> T* EigenSpatialConv::reordered_in(const Tensor& t, bool filter, int slot) {
  T* out = scratch<T>(static_cast<cpu::ScratchSlot>(slot), t.numel());
  permute(device(), t.data<T>(), {t.dim(0), t.dim(1), t.dim(2), t.dim(3)}, filter ? kOihwToHwio : kNchwToNhwc, out);
  count(filter, static_cast<std::int64_t>(t.bytes()));
  return out;
}

// t = in (NHWC / HWIO of t's NCHW / OIHW shape) reordered back, counted.
template <class T> void EigenSpatialConv::reordered_out(const T* in, bool filter, Tensor& t) {
  const Eigen::array<Index, 4> dims = filter ? Eigen::array<Index, 4>{t.dim(2), t.dim(3), t.dim(1), t.dim(0)}
                                             : Eigen::array<Index, 4>{t.dim(0), t.dim(2), t.dim(3), t.dim(1)};
  permute(device(), in, dims, filter ? kHwioToOihw : kNhwcToNchw, t.data<T>());
  count(filter, static_cast<std::int64_t>(t.bytes()));
}

template <class T> void EigenSpatialConv::forward_t(const Tensor& x, const Tensor& w, Tensor& y, const Conv2dParams& p) {
  const cpu::ConvGeometry g = cpu::conv_geometry(x, w, p);
  const Eigen::ThreadPoolDevice& d = device();
  const Index P = g.pixels(), R = g.col_rows();
  const T* xn = reordered_in<T>(x, false, int(cpu::ScratchSlot::layout_in));
  const T* wf = reordered_in<T>(w, true, int(cpu::ScratchSlot::layout_filters));
  T* yn = scratch<T>(cpu::ScratchSlot::layout_out, g.n * g.out_size());
  ConstMap<T, 4> input(xn, g.n, g.h, g.w, g.c);
  ConstMap<T, 2> kernel(wf, R, g.k);
  Map<T, 2> out(yn, g.n * P, g.k);
  const Dims1 taps{Eigen::IndexPair<Index>(1, 0)};
  out.device(d) = input
                      .extract_image_patches(g.kw, g.kh, g.p.stride_w, g.p.stride_h, 1, 1, 1, 1, g.p.pad_left,
                                             g.p.pad_right, g.p.pad_top, g.p.pad_bottom, T(0))
                      .reshape(Eigen::array<Index, 2>{g.n * P, R})
                      .contract(kernel, taps);
  reordered_out(yn, false, y);
}

template <class T>
void EigenSpatialConv::backward_data_t(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) {
  const cpu::ConvGeometry g = cpu::conv_geometry(dx, w, p);
  const Eigen::ThreadPoolDevice& d = device();
  const Index P = g.pixels(), R = g.col_rows(), K = g.k;
  const T* dyn = reordered_in<T>(dy, false, int(cpu::ScratchSlot::layout_out));
  const T* wf = reordered_in<T>(w, true, int(cpu::ScratchSlot::layout_filters));
  T* dxn = scratch<T>(cpu::ScratchSlot::layout_in, g.n * g.in_size());
  std::fill(dxn, dxn + g.n * g.in_size(), T(0));
  const ConstMap<T, 2> filters(wf, R, K);
  const Dims1 out_channels{Eigen::IndexPair<Index>(1, 1)};
  const Index work = P * K + R * K + P * R;  // one image's operands, in elements
  const bool parallel_contraction =
      g.n == 1 || static_cast<std::size_t>(work / threads_) >= kL2Bytes / sizeof(T);
  if (parallel_contraction) {
    T* col = scratch<T>(cpu::ScratchSlot::columns, P * R);
    for (Index n = 0; n < g.n; ++n) {
      Map<T, 2>(col, P, R).device(d) = ConstMap<T, 2>(dyn + n * P * K, P, K).contract(filters, out_channels);
      col2im_nhwc(g, col, dxn + n * g.in_size());
    }
  } else {
    const Index shard = images_per_shard<T>(work);
    T* cols = scratch<T>(cpu::ScratchSlot::columns, std::min(shard, g.n) * P * R);
    for (Index n0 = 0; n0 < g.n; n0 += shard) {
      const Index images = std::min(shard, g.n - n0);
      d.parallelFor(images, Eigen::TensorOpCost(0, 0, static_cast<double>(work)), [&](Index b, Index e) {
        for (Index i = b; i < e; ++i) {  // a single-threaded contraction per image
          T* col = cols + i * P * R;
          Map<T, 2>(col, P, R) = ConstMap<T, 2>(dyn + (n0 + i) * P * K, P, K).contract(filters, out_channels);
          col2im_nhwc(g, col, dxn + (n0 + i) * g.in_size());
        }
      });
    }
  }
  reordered_out(dxn, false, dx);
}

template <class T>
void EigenSpatialConv::backward_weights_t(const Tensor& x, const Tensor& dy, Tensor& dw, const Conv2dParams& p) {
  const cpu::ConvGeometry g = cpu::conv_geometry(x, dw, p);
  const Eigen::ThreadPoolDevice& d = device();
  const Index P = g.pixels(), R = g.col_rows(), K = g.k;
  const T* xn = reordered_in<T>(x, false, int(cpu::ScratchSlot::layout_in));
  const T* dyn = reordered_in<T>(dy, false, int(cpu::ScratchSlot::layout_out));
  T* dwf = scratch<T>(cpu::ScratchSlot::layout_filters, R * K);
  Map<T, 2> grad(dwf, R, K);
  grad.device(d) = grad.constant(T(0));
  const Index work = P * R + P * K + R * K;
  const Index shard = images_per_shard<T>(work);
  T* cols = scratch<T>(cpu::ScratchSlot::columns, std::min(shard, g.n) * P * R);
  const Dims1 pixels{Eigen::IndexPair<Index>(0, 0)};
  for (Index n0 = 0; n0 < g.n; n0 += shard) {
    const Index images = std::min(shard, g.n - n0);
    d.parallelFor(images, Eigen::TensorOpCost(0, 0, static_cast<double>(P * R)), [&](Index b, Index e) {
      for (Index i = b; i < e; ++i) im2col_nhwc(g, xn + (n0 + i) * g.in_size(), cols + i * P * R);
    });
    grad.device(d) +=
        ConstMap<T, 2>(cols, images * P, R).contract(ConstMap<T, 2>(dyn + n0 * P * K, images * P, K), pixels);
  }
  reordered_out(dwf, true, dw);
}

void EigenSpatialConv::forward(const Tensor& x, const Tensor& w, Tensor& y, const Conv2dParams& p) {
  if (x.dtype() == DType::f32) forward_t<float>(x, w, y, p);
  else forward_t<double>(x, w, y, p);
}

void EigenSpatialConv::backward_data(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) {
  if (dy.dtype() == DType::f32) backward_data_t<float>(dy, w, dx, p);
  else backward_data_t<double>(dy, w, dx, p);
}

void EigenSpatialConv::backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, const Conv2dParams& p) {
  if (x.dtype() == DType::f32) backward_weights_t<float>(x, dy, dw, p);
  else backward_weights_t<double>(x, dy, dw, p);
}

}  // namespace ablate::kernels::eigen
