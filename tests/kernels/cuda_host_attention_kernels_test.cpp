// The CUDA backend's own attention kernels run on the host, without a GPU: softmax along the last
// axis, layer normalisation (forward; backward as its column sums, then its rows, as the launcher
// orders them) and axis permutation, each struct of kernels/cuda/cuda_attention_bodies.h over its
// whole device grid (forwards and backwards), on canary-fenced buffers (cuda_host_harness.h),
// against the reference backend in f32 and f64. Each thread sums its row or column in double in
// the reference's order, yet not bit for bit: compilers contract a * b + c into an FMA in one
// loop and not in another (nvcc on the device too), so the sums agree to rounding, within
// tolerance(dtype, terms summed); permutation, a copy, exactly. Row counts run past the block
// size (257 rows).
#include <gtest/gtest.h>

#include <functional>
#include <numeric>
#include <vector>

#include "cuda_host_harness.h"
#include "kernels/cuda/cuda_attention_bodies.h"

namespace ablate::kernels::test {
namespace {

constexpr bool kExact = true;
constexpr bool kRounding = false;

// Shapes viewed as [R, K]: one row and one column, a few rows, tokens [N, T, D], and 257 rows
// (a block of 256 threads and one more).
const std::vector<Shape>& row_shapes() {
  static const std::vector<Shape> shapes{{1, 1}, {3, 7}, {2, 16, 64}, {2, 4, 16, 16}, {257, 5}};
  return shapes;
}

TEST(CudaHostKernels, SoftmaxLastForwardAndBackward) {
  for_each_setting(41, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    for (const Shape& s : row_shapes())
      for (double scale : {1.0, 0.125}) {
        SCOPED_TRACE(shape_string(s) + " scale " + std::to_string(scale));
        const Tensor x = random_of<T>(s, rng, -4, 4), dy = random_of<T>(s, rng);
        const std::int64_t K = s.back(), R = x.numel() / K;
        Tensor y(s, x.dtype()), dx(s, x.dtype());
        ref.softmax_last_forward(x, scale, y);
        ref.softmax_last_backward(y, dy, scale, dx);

        Guarded<T> gx(x), gy(x.numel());
        run_grid_on_host(cuda::SoftmaxLastForwardKernel<T>{gx.ptr(), R, K, scale, gy.ptr()}, order);
        expect_output("y", gy, y, double(K), kRounding);
        Guarded<T> gp(y), gdy(dy), gdx(x.numel());
        run_grid_on_host(cuda::SoftmaxLastBackwardKernel<T>{gp.ptr(), gdy.ptr(), R, K, scale, gdx.ptr()}, order);
        expect_output("dx", gdx, dx, double(K), kRounding);
        // In place, as backend.h allows: y over x, dx over dy.
        run_grid_on_host(cuda::SoftmaxLastForwardKernel<T>{gx.ptr(), R, K, scale, gx.ptr()}, order);
        expect_output("y in place", gx, y, double(K), kRounding);
        run_grid_on_host(cuda::SoftmaxLastBackwardKernel<T>{gp.ptr(), gdy.ptr(), R, K, scale, gdy.ptr()}, order);
        expect_output("dx in place", gdy, dx, double(K), kRounding);
      }
  });
}

TEST(CudaHostKernels, LayerNormForwardAndBackward) {
  for_each_setting(42, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    for (const Shape& s : row_shapes())
      for (bool affine : {true, false}) {
        SCOPED_TRACE(shape_string(s) + (affine ? " affine" : " no affine part"));
        const std::int64_t D = s.back(), R = std::accumulate(s.begin(), s.end() - 1, std::int64_t{1}, std::multiplies<>());
        const Tensor x = random_of<T>(s, rng, -3, 3), dy = random_of<T>(s, rng);
        const Tensor gamma = affine ? random_of<T>({D}, rng, 0.5, 1.5) : Tensor();
        const Tensor beta = affine ? random_of<T>({D}, rng) : Tensor();
        Tensor y(s, x.dtype()), mean({R}, x.dtype()), rstd({R}, x.dtype());
        ref.layer_norm_forward(x, gamma, beta, 1e-5, y, mean, rstd);
        Tensor dx(s, x.dtype()), dgamma({D}, x.dtype()), dbeta({D}, x.dtype());
        ref.layer_norm_backward(x, dy, gamma, mean, rstd, dx, dgamma, dbeta);

        Guarded<T> gx(x), gg(gamma), gb(beta), gy(x.numel()), gm(R), gr(R);
        const T* gamma_ptr = affine ? gg.ptr() : nullptr;
        run_grid_on_host(cuda::LayerNormForwardKernel<T>{gx.ptr(), gamma_ptr, affine ? gb.ptr() : nullptr, R, D, 1e-5,
                                                         gy.ptr(), gm.ptr(), gr.ptr()},
                         order);
        expect_output("y", gy, y, double(D), kRounding);
        expect_output("mean", gm, mean, double(D), kRounding);
        expect_output("rstd", gr, rstd, double(D), kRounding);

        Guarded<T> gdy(dy), gdx(x.numel()), gdg(D), gdb(D), gmean(mean), grstd(rstd);
        run_grid_on_host(cuda::LayerNormBackwardColumnsKernel<T>{gx.ptr(), gdy.ptr(), gmean.ptr(), grstd.ptr(), R, D,
                                                                 gdg.ptr(), gdb.ptr()},
                         order);
        run_grid_on_host(cuda::LayerNormBackwardRowsKernel<T>{gx.ptr(), gdy.ptr(), gamma_ptr, gmean.ptr(), grstd.ptr(),
                                                              R, D, gdx.ptr()},
                         order);
        expect_output("dx", gdx, dx, double(D), kRounding);
        expect_output("dgamma", gdg, dgamma, double(R), kRounding);
        expect_output("dbeta", gdb, dbeta, double(R), kRounding);
        // dx over dy, after the column sums have read dy (the launcher's order); a null dgamma
        // or dbeta is left alone.
        Guarded<T> gdb_only(D);
        run_grid_on_host(cuda::LayerNormBackwardColumnsKernel<T>{gx.ptr(), gdy.ptr(), gmean.ptr(), grstd.ptr(), R, D,
                                                                 nullptr, gdb_only.ptr()},
                         order);
        expect_output("dbeta alone", gdb_only, dbeta, double(R), kRounding);
        run_grid_on_host(cuda::LayerNormBackwardRowsKernel<T>{gx.ptr(), gdy.ptr(), gamma_ptr, gmean.ptr(), grstd.ptr(),
                                                              R, D, gdy.ptr()},
                         order);
        expect_output("dx in place", gdy, dx, double(D), kRounding);
      }
  });
}

TEST(CudaHostKernels, PermuteEveryRank) {
  for_each_setting(43, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    const std::vector<std::pair<Shape, std::vector<int>>> cases{
        {{3, 5}, {1, 0}},
        {{2, 7, 16}, {0, 2, 1}},                 // images to tokens
        {{2, 16, 4, 16}, {0, 2, 1, 3}},          // heads apart
        {{2, 3, 4, 5, 6}, {4, 2, 0, 3, 1}},
        {{2, 3, 2, 3, 2, 5}, {5, 4, 3, 2, 1, 0}},
        {{1, 257, 3}, {2, 1, 0}}};
    for (const auto& [s, perm] : cases) {
      SCOPED_TRACE(shape_string(s));
      const Tensor x = random_of<T>(s, rng);
      Shape out_shape(s.size());
      for (std::size_t d = 0; d < s.size(); ++d) out_shape[d] = s[static_cast<std::size_t>(perm[d])];
      Tensor y(out_shape, x.dtype());
      ref.permute(x, perm, y);
      const cuda::PermuteGeometry g = cuda::permute_geometry(static_cast<int>(s.size()), s.data(), perm.data());
      EXPECT_EQ(g.numel, x.numel());
      Guarded<T> gx(x), gy(x.numel());
      run_grid_on_host(cuda::PermuteKernel<T>{g, gx.ptr(), gy.ptr()}, order);
      expect_output("y", gy, y, 1, kExact);
    }
  });
}

}  // namespace
}  // namespace ablate::kernels::test
