// The CUDA backend's own layer kernels run on the host, without a GPU, as in
// cuda_host_kernels_test.cpp: pooling (Caffe ceil, TF SAME, valid; max with ties, first and
// all maxima; average), the zero padding and crop of asymmetric convolution padding (checked
// through the reference's convolution: padded then unpadded equals padded by the op), the
// connection-table convolution (forward, data, weights) and batch normalisation (statistics,
// inference affine, apply, backward sums and data), each over its whole device grid on
// canary-fenced buffers against the reference backend, f32 and f64, both grid orders; and
// concatenation's strided copies (no kernel: cudaMemcpy2DAsync's arguments, copied here by a
// host copy of the same meaning).
#include <gtest/gtest.h>

#include <cstring>
#include <stdexcept>
#include <vector>

#include "cuda_host_harness.h"
#include "kernels/cuda/cuda_batch_norm_bodies.h"
#include "kernels/cuda/cuda_concat_copies.h"
#include "kernels/cuda/cuda_conv_map_bodies.h"
#include "kernels/cuda/cuda_elementwise_bodies.h"
#include "kernels/cuda/cuda_pool_bodies.h"
#include "kernels/reference/reference_backend.h"

namespace ablate::kernels::test {
namespace {

// Small integers: max pooling windows full of ties.
template <class T> Tensor tied_values(const Shape& shape, Rng& rng) {
  Tensor t(shape, dtype_of<T>());
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, random_int(rng, 0, 2));
  return t;
}

struct PoolWindowCase {
  int kernel, stride, pad;
};

// The pooling geometry of x for the case, or none where the convention refuses it.
bool pool_params(PoolKind kind, const PoolWindowCase& w, PoolPadding padding, const Shape& x, Pool2dParams& p) {
  try {
    p = make_pool2d_params(kind, w.kernel, w.stride, w.pad, padding, int(x[2]), int(x[3]));
  } catch (const std::invalid_argument&) {
    return false;
  }
  return p.out_h > 0 && p.out_w > 0;
}

TEST(CudaHostKernels, Pooling) {
  auto ref_all = make_reference_backend();
  ref_all->set_pool_gradient(PoolGradient::all);
  int checked = 0;
  for_each_setting(30, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    for (PoolPadding padding : {PoolPadding::caffe_ceil, PoolPadding::tf_same, PoolPadding::valid})
      for (PoolKind kind : {PoolKind::max, PoolKind::avg})
        for (PoolWindowCase w : {PoolWindowCase{2, 2, 0}, {3, 2, 1}, {3, 1, 1}, {2, 1, 0}, {3, 3, 0}})
          for (const Shape& s : {Shape{1, 3, 5, 7}, Shape{2, 2, 8, 9}, Shape{2, 3, 17, 19}, Shape{1, 1, 3, 3}}) {
            Pool2dParams p;
            if (!pool_params(kind, w, padding, s, p)) continue;
            ++checked;
            SCOPED_TRACE(std::string(pool_padding_name(padding)) + (kind == PoolKind::max ? " max " : " avg ") +
                         std::to_string(w.kernel) + "/" + std::to_string(w.stride) + "/" + std::to_string(w.pad) +
                         " on " + shape_string(s));
            const bool max = kind == PoolKind::max;
            const Shape ys{s[0], s[1], p.out_h, p.out_w};
            const Tensor x = max ? tied_values<T>(s, rng) : random_of<T>(s, rng), dy = random_of<T>(ys, rng);
            cuda::PoolGeometry g = cuda::pool_geometry(p, s);
            Guarded<T> gx(x), y(shape_numel(ys)), gdy(dy);
            Guarded<std::int32_t> argmax(shape_numel(ys));
            run_grid_on_host(cuda::PoolForwardKernel<T>{g, gx.ptr(), y.ptr(), max ? argmax.ptr() : nullptr}, order);
            Tensor ey(ys, dtype_of<T>()), workspace;
            ref.pool2d_forward(x, ey, workspace, p);
            const double window = double(w.kernel) * w.kernel;
            expect_output("y", y, ey, window);
            if (max) expect_output("argmax", argmax, workspace, 1, true);
            // the backward as CudaBackend calls it: argmax for `first`, x and y for `all`
            for (PoolGradient gradient : {PoolGradient::first, PoolGradient::all}) {
              if (!max && gradient == PoolGradient::all) continue;
              g.all_maxima = max && gradient == PoolGradient::all;
              Guarded<T> dx(shape_numel(s));
              run_grid_on_host(cuda::PoolBackwardKernel<T>{g, g.all_maxima ? gx.ptr() : nullptr,
                                                           g.all_maxima ? y.ptr() : nullptr, gdy.ptr(),
                                                           max && !g.all_maxima ? argmax.ptr() : nullptr, dx.ptr()},
                               order);
              Tensor edx(s, dtype_of<T>());
              (g.all_maxima ? *ref_all : ref).pool2d_backward(x, ey, dy, workspace, edx, p);
              expect_output(g.all_maxima ? "dx (all maxima)" : "dx", dx, edx, window);
            }
          }
  });
  EXPECT_GT(checked, 100);  // every convention, kind and most windows made a case
}

// cuDNN pads symmetrically; CudaBackend pads x (Pad2dKernel) and crops dx (Crop2dKernel) for
// TF SAME's odd padding. Checked through the reference: the unpadded convolution of the
// padded x is the padded convolution of x, and the crop of the unpadded backward is its dx.
TEST(CudaHostKernels, PadAndCropOfAsymmetricConvolution) {
  struct ConvCase {
    Shape x;
    std::int64_t K, KH, KW;
    Conv2dParams p;  // stride h, w; pad top, left, bottom, right
  };
  const std::vector<ConvCase> cases{{{1, 2, 5, 7}, 3, 3, 3, {1, 1, 1, 0, 2, 1}},
                                    {{2, 3, 8, 9}, 2, 2, 2, {2, 2, 0, 0, 1, 1}},
                                    {{2, 1, 17, 16}, 4, 5, 3, {2, 1, 2, 1, 3, 1}}};
  for_each_setting(31, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    for (const ConvCase& c : cases) {
      SCOPED_TRACE(shape_string(c.x));
      const Conv2dParams& p = c.p;
      const std::int64_t N = c.x[0], C = c.x[1], H = c.x[2], W = c.x[3];
      const std::int64_t HP = H + p.pad_top + p.pad_bottom, WP = W + p.pad_left + p.pad_right;
      const Shape ys{N, c.K, conv2d_out_size(int(H), int(c.KH), p.stride_h, p.pad_top, p.pad_bottom),
                     conv2d_out_size(int(W), int(c.KW), p.stride_w, p.pad_left, p.pad_right)};
      const Conv2dParams unpadded{p.stride_h, p.stride_w, 0, 0, 0, 0};
      const Tensor x = random_of<T>(c.x, rng), w = random_of<T>({c.K, C, c.KH, c.KW}, rng), dy = random_of<T>(ys, rng);

      const cuda::PadGeometry g{N * C, H, W, p.pad_top, p.pad_left, HP, WP};
      Guarded<T> gx(x), xp(N * C * HP * WP);
      run_grid_on_host(cuda::Pad2dKernel<T>{g, gx.ptr(), xp.ptr()}, order);
      EXPECT_TRUE(xp.canaries_intact()) << "xp";
      Tensor y(ys, dtype_of<T>()), ey(ys, dtype_of<T>());
      ref.conv2d_forward(xp.tensor({N, C, HP, WP}), w, Tensor(), y, unpadded);
      ref.conv2d_forward(x, w, Tensor(), ey, p);
      EXPECT_TRUE(all_near(y, ey, tolerance(dtype_of<T>(), double(C * c.KH * c.KW)))) << "y through the padded x";

      Tensor dxp({N, C, HP, WP}, dtype_of<T>()), edx(c.x, dtype_of<T>());
      ref.conv2d_backward_data(dy, w, dxp, unpadded);
      ref.conv2d_backward_data(dy, w, edx, p);
      Guarded<T> gdxp(dxp), dx(N * C * H * W);
      run_grid_on_host(cuda::Crop2dKernel<T>{g, gdxp.ptr(), dx.ptr()}, order);
      expect_output("dx", dx, edx, double(c.K * c.KH * c.KW));
    }
  });
}

TEST(CudaHostKernels, ConnectionTableConvolution) {
  struct MapCase {
    Shape x;
    std::int64_t K, KH, KW;
    Conv2dParams p;
    std::vector<std::int32_t> table;  // [T, 2]: (input plane, output plane)
    bool bias;
  };
  const std::vector<MapCase> cases{
      // a repeated connection (0 > 1 twice), output plane 2 fed by nothing, asymmetric padding
      {{3, 3, 7, 6}, 3, 3, 2, {2, 1, 1, 0, 0, 1}, {0, 1, 2, 0, 0, 1, 1, 0, 2, 1}, true},
      // the full table on an odd input, stride 2, padding 1, batch 1
      {{1, 4, 9, 9}, 2, 3, 3, {2, 2, 1, 1, 1, 1}, {0, 0, 1, 0, 2, 0, 3, 0, 0, 1, 1, 1, 2, 1, 3, 1}, false},
      // N * OH * OW = 578 > 256: the weights' threads walk three times
      {{2, 2, 17, 17}, 2, 5, 5, {1, 1, 2, 2, 2, 2}, {0, 0, 1, 0, 1, 1}, true},
      {{1, 1, 1, 1}, 1, 1, 1, {}, {0, 0}, true}};
  for_each_setting(32, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    for (const MapCase& c : cases) {
      SCOPED_TRACE(shape_string(c.x));
      const std::int64_t T_ = static_cast<std::int64_t>(c.table.size() / 2);
      const Shape ws{T_, c.KH, c.KW},
          ys{c.x[0], c.K, conv2d_out_size(int(c.x[2]), int(c.KH), c.p.stride_h, c.p.pad_top, c.p.pad_bottom),
             conv2d_out_size(int(c.x[3]), int(c.KW), c.p.stride_w, c.p.pad_left, c.p.pad_right)};
      Tensor table({T_, 2}, DType::i32);
      std::copy(c.table.begin(), c.table.end(), table.data<std::int32_t>());
      const Tensor x = random_of<T>(c.x, rng), w = random_of<T>(ws, rng), dy = random_of<T>(ys, rng),
                   bias = c.bias ? random_of<T>({c.K}, rng) : Tensor();
      const cuda::MapGeometry g = cuda::map_geometry(c.x, ws, ys, c.p);
      Guarded<T> gx(x), gw(w), gdy(dy), gbias(bias), y(shape_numel(ys)), dx(shape_numel(c.x)), dw(shape_numel(ws));
      Guarded<std::int32_t> gtable(table), by_output(0), by_input(0);
      const auto groups = [&](int column, std::int64_t planes) {
        const std::vector<std::int32_t> array = cuda::map_groups_array(c.table, T_, column, planes);
        Tensor t({static_cast<std::int64_t>(array.size())}, DType::i32);
        std::copy(array.begin(), array.end(), t.data<std::int32_t>());
        return Guarded<std::int32_t>(t);
      };
      by_output = groups(1, c.K);
      by_input = groups(0, c.x[1]);

      run_grid_on_host(cuda::ConvMapForwardKernel<T>{g, gx.ptr(), gw.ptr(), c.bias ? gbias.ptr() : nullptr,
                                                     gtable.ptr(), cuda::map_groups_of(by_output.ptr(), c.K), y.ptr()},
                       order);
      Tensor ey(ys, dtype_of<T>());
      ref.conv2d_map_forward(x, w, bias, table, ey, c.p);
      expect_output("y", y, ey, double(T_ * c.KH * c.KW));

      run_grid_on_host(cuda::ConvMapBackwardDataKernel<T>{g, gdy.ptr(), gw.ptr(), gtable.ptr(),
                                                          cuda::map_groups_of(by_input.ptr(), c.x[1]), dx.ptr()},
                       order);
      Tensor edx(c.x, dtype_of<T>());
      ref.conv2d_map_backward_data(dy, w, table, edx, c.p);
      expect_output("dx", dx, edx, double(T_ * c.KH * c.KW));

      run_block_sums_on_host(cuda::ConvMapBackwardWeightsKernel<T>{g, gx.ptr(), gdy.ptr(), gtable.ptr(), dw.ptr()}, order);
      Tensor edw(ws, dtype_of<T>()), no_bias;
      ref.conv2d_map_backward_weights(x, dy, table, edw, no_bias, c.p);
      expect_output("dw", dw, edw, double(ys[0] * ys[2] * ys[3]));
    }
  });
}

TEST(CudaHostKernels, BatchNorm) {
  const double eps = 1e-5;
  for_each_setting(33, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    // M = N * S: 1, below, above and at twice the block of 256 threads
    for (const Shape& s : {Shape{1, 3}, Shape{7, 5}, Shape{1, 4, 5, 7}, Shape{3, 5, 11, 13}, Shape{2, 3, 16, 16}})
      for (bool affine : {true, false}) {
        SCOPED_TRACE(shape_string(s) + (affine ? ", gamma and beta" : ", no gamma or beta"));
        const std::int64_t C = s[1], n = shape_numel(s);
        const double M = double(n / C);
        const cuda::BatchGeometry g = cuda::batch_geometry(s);
        const Tensor x = random_of<T>(s, rng, -2, 3), dy = random_of<T>(s, rng);
        const Tensor gamma = affine ? random_of<T>({C}, rng, 0.5, 1.5) : Tensor(),
                     beta = affine ? random_of<T>({C}, rng) : Tensor();
        Guarded<T> gx(x), gdy(dy), ggamma(gamma), gbeta(beta);
        const T* gamma_ptr = affine ? ggamma.ptr() : nullptr;
        const T* beta_ptr = affine ? gbeta.ptr() : nullptr;

        // training: statistics, then the affine applied (in place on a copy of x when no gamma)
        Guarded<T> mean(C), var(C), y(affine ? n : 0), in_place(x);
        Guarded<cuda::ChannelAffine> channel(C);
        run_block_sums_on_host(
            cuda::BatchNormStatsKernel<T>{g, gx.ptr(), gamma_ptr, beta_ptr, eps, mean.ptr(), var.ptr(), channel.ptr()},
            order);
        EXPECT_TRUE(channel.canaries_intact());
        Guarded<T>& out = affine ? y : in_place;
        run_grid_on_host(cuda::BatchNormApplyKernel<T>{g, affine ? gx.ptr() : in_place.ptr(), channel.ptr(), out.ptr()},
                         order);
        Tensor ey(s, dtype_of<T>()), emean({C}, dtype_of<T>()), evar({C}, dtype_of<T>());
        ref.batch_norm_forward_training(x, gamma, beta, eps, ey, emean, evar);
        expect_output("mean", mean, emean, M);
        expect_output("var", var, evar, M);
        expect_output("y", out, ey, M);

        // inference from given statistics
        const Tensor rmean = random_of<T>({C}, rng), rvar = random_of<T>({C}, rng, 0.1, 2);
        Guarded<T> grmean(rmean), grvar(rvar), yi(n);
        Guarded<cuda::ChannelAffine> channel_i(C);
        run_grid_on_host(cuda::BatchNormAffineKernel<T>{C, gamma_ptr, beta_ptr, grmean.ptr(), grvar.ptr(), eps,
                                                        channel_i.ptr()},
                         order);
        EXPECT_TRUE(channel_i.canaries_intact());
        run_grid_on_host(cuda::BatchNormApplyKernel<T>{g, gx.ptr(), channel_i.ptr(), yi.ptr()}, order);
        Tensor eyi(s, dtype_of<T>());
        ref.batch_norm_forward_inference(x, gamma, beta, rmean, rvar, eps, eyi);
        expect_output("y (inference)", yi, eyi);

        // backward from the reference's batch statistics
        Guarded<T> bmean(emean), bvar(evar), dx(n), dgamma(C), dbeta(C);
        Guarded<double> sums(2 * C);
        run_block_sums_on_host(cuda::BatchNormBackwardSumsKernel<T>{g, gx.ptr(), gdy.ptr(), bmean.ptr(), bvar.ptr(), eps,
                                                                    sums.ptr(), dgamma.ptr(), dbeta.ptr()},
                               order);
        EXPECT_TRUE(sums.canaries_intact());
        run_grid_on_host(cuda::BatchNormBackwardDataKernel<T>{g, gx.ptr(), gdy.ptr(), gamma_ptr, bmean.ptr(), bvar.ptr(),
                                                              eps, sums.ptr(), dx.ptr()},
                         order);
        Tensor edx(s, dtype_of<T>()), edgamma({C}, dtype_of<T>()), edbeta({C}, dtype_of<T>());
        ref.batch_norm_backward(x, dy, gamma, emean, evar, eps, edx, edgamma, edbeta);
        expect_output("dx", dx, edx, M);
        expect_output("dgamma", dgamma, edgamma, M);
        expect_output("dbeta", dbeta, edbeta, M);
      }
  });
}

// cudaMemcpy2D's meaning on the host: height rows of width bytes, spitch and dpitch bytes apart.
void copy_2d(void* dst, std::size_t dpitch, const void* src, std::size_t spitch, std::size_t width, std::size_t height) {
  for (std::size_t r = 0; r < height; ++r)
    std::memcpy(static_cast<char*>(dst) + r * dpitch, static_cast<const char*>(src) + r * spitch, width);
}

TEST(CudaHostKernels, ConcatCopies) {
  const std::vector<std::vector<Shape>> cases{{{3, 2, 5, 7}, {3, 1, 5, 7}, {3, 4, 5, 7}},
                                              {{1, 3}, {1, 5}},
                                              {{2, 1, 1, 1}, {2, 2, 1, 1}, {2, 1, 1, 1}},
                                              {{4, 3, 2}}};
  for_each_setting(34, [&](auto tag, HostOrder, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    for (const std::vector<Shape>& shapes : cases) {
      SCOPED_TRACE(shape_string(shapes[0]) + " and " + std::to_string(shapes.size() - 1) + " more");
      Shape ws = shapes[0];
      ws[1] = 0;
      std::vector<Tensor> xs;
      std::vector<std::size_t> part_bytes;
      for (const Shape& s : shapes) {
        xs.push_back(random_of<T>(s, rng));
        ws[1] += s[1];
        part_bytes.push_back(static_cast<std::size_t>(shape_numel(s) / s[0]) * sizeof(T));
      }
      const std::size_t N = static_cast<std::size_t>(ws[0]);
      const std::vector<cuda::ConcatCopy> copies =
          cuda::concat_copies(part_bytes, static_cast<std::size_t>(shape_numel(ws) / ws[0]) * sizeof(T), N);
      ASSERT_EQ(copies.size(), xs.size());

      Guarded<T> whole(shape_numel(ws));
      std::vector<const Tensor*> inputs;
      for (std::size_t k = 0; k < xs.size(); ++k) {
        const Guarded<T> part(xs[k]);
        const cuda::ConcatCopy& c = copies[k];
        copy_2d(reinterpret_cast<char*>(whole.ptr()) + c.offset, c.pitch, part.ptr(), c.width, c.width, c.rows);
        inputs.push_back(&xs[k]);
      }
      Tensor y(ws, dtype_of<T>());
      ref.concat_forward(inputs, y);
      expect_output("y", whole, y);

      std::vector<Tensor> dxs;
      std::vector<Tensor*> outputs;
      for (const Shape& s : shapes) dxs.emplace_back(s, dtype_of<T>());
      for (Tensor& d : dxs) outputs.push_back(&d);
      ref.concat_backward(y, outputs);
      for (std::size_t k = 0; k < xs.size(); ++k) {
        Guarded<T> part(xs[k].numel());
        const cuda::ConcatCopy& c = copies[k];
        copy_2d(part.ptr(), c.width, reinterpret_cast<const char*>(whole.ptr()) + c.offset, c.pitch, c.width, c.rows);
        expect_output("dx", part, dxs[k]);
      }
    }
  });
}

}  // namespace
}  // namespace ablate::kernels::test
