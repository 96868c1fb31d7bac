// The CUDA backend's own elementwise, reduction, loss, dropout, GELU, fused and optimizer
// kernels run on the host, without a GPU: each kernel struct of kernels/cuda/cuda_*_bodies.h over
// its whole device grid (kernels/cuda/cuda_host_launch.h: every block and thread, the tail
// past the data too, forwards and backwards), on canary-fenced buffers (cuda_host_harness.h),
// against the reference backend, in f32 and f64, on sizes around the block size. No GPU is
// needed: these run everywhere, CUDA toolkit or not. The layer kernels (pooling, padding,
// connection-table convolution, batch norm) are in cuda_host_layer_kernels_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "cuda_host_harness.h"
#include "kernels/cuda/cuda_elementwise_bodies.h"
#include "kernels/cuda/cuda_fused_bodies.h"
#include "kernels/cuda/cuda_loss_bodies.h"
#include "kernels/cuda/cuda_optimizer_bodies.h"
#include "kernels/cuda/cuda_reduce_bodies.h"
#include "kernels/reference/reference_backend.h"

namespace ablate::kernels::test {
namespace {

// The harness itself: a kernel that writes one element past its data (i <= n) is caught.
template <class T> struct OffByOneFill {
  T* x;
  std::int64_t n;
  cuda::Grid grid() const { return cuda::grid_stride_grid(n); }
  void operator()(const cuda::ThreadIndex& t) const {
    for (std::int64_t i = cuda::grid_first(t); i <= n; i += cuda::grid_step(t)) x[i] = T(1);
  }
};

TEST(CudaHostKernels, HarnessCatchesAWriteOnePastTheEnd) {
  for (std::int64_t n : {std::int64_t{255}, std::int64_t{256}, std::int64_t{300}}) {
    Guarded<float> x(n);
    run_grid_on_host(OffByOneFill<float>{x.ptr(), n});
    EXPECT_FALSE(x.canaries_intact()) << n;
  }
}

TEST(CudaHostKernels, Fill) {
  for_each_setting(0, [&](auto tag, HostOrder order, Backend& ref, Rng&) {
    using T = decltype(tag);
    for (std::int64_t n : bound_sizes()) {
      Guarded<T> x(n);
      run_grid_on_host(cuda::FillKernel<T>{x.ptr(), n, T(0.375)}, order);
      Tensor expected({n}, dtype_of<T>());
      ref.fill(expected, 0.375);
      expect_output("x", x, expected);
    }
  });
}

// More elements than the capped grid has threads: every thread walks a second time.
TEST(CudaHostKernels, FillPastTheGridCap) {
  const std::int64_t n = cuda::kMaxBlocks * cuda::kThreads + 300;
  ASSERT_EQ(cuda::grid_stride_grid(n).blocks_x, cuda::kMaxBlocks);
  Guarded<float> x(n);
  run_grid_on_host(cuda::FillKernel<float>{x.ptr(), n, -2.5f});
  Tensor expected({n}, DType::f32);
  make_reference_backend()->fill(expected, -2.5);
  expect_output("x", x, expected);
}

TEST(CudaHostKernels, Elementwise) {
  for_each_setting(11, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    for (std::int64_t n : bound_sizes()) {
      SCOPED_TRACE(n);
      const Tensor x = random_of<T>({n}, rng), y = random_of<T>({n}, rng);
      // axpby in place on y (beta != 0: axpy, axpby), and scale in place on x (beta 0, out = x)
      for (double beta : {1.0, -0.5}) {
        Guarded<T> gx(x), out(y);
        run_grid_on_host(
            cuda::ElementwiseKernel<T>{cuda::Elementwise::axpby, n, 1.25, gx.ptr(), beta, nullptr, out.ptr()}, order);
        Tensor expected = y.clone();
        ref.axpby(1.25, x, beta, expected);
        expect_output("axpby", out, expected);
      }
      Guarded<T> scaled(x);
      run_grid_on_host(
          cuda::ElementwiseKernel<T>{cuda::Elementwise::axpby, n, -3.0, scaled.ptr(), 0.0, nullptr, scaled.ptr()}, order);
      Tensor expected = x.clone();
      ref.scale(expected, -3.0);
      expect_output("scale", scaled, expected);
      for (cuda::Elementwise op : {cuda::Elementwise::add, cuda::Elementwise::mul}) {
        Guarded<T> gx(x), gy(y), out(n);
        run_grid_on_host(cuda::ElementwiseKernel<T>{op, n, 1.0, gx.ptr(), 0.0, gy.ptr(), out.ptr()}, order);
        Tensor e({n}, dtype_of<T>());
        if (op == cuda::Elementwise::add) ref.add(x, y, e);
        else ref.mul(x, y, e);
        expect_output(op == cuda::Elementwise::add ? "add" : "mul", out, e);
      }
    }
  });
}

TEST(CudaHostKernels, BiasAdd) {
  for_each_setting(12, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    for (const Shape& s : {Shape{1, 3}, Shape{5, 7}, Shape{1, 4, 5, 7}, Shape{3, 5, 11, 13}, Shape{2, 1, 16, 16}}) {
      SCOPED_TRACE(shape_string(s));
      const Tensor y = random_of<T>(s, rng), bias = random_of<T>({s[1]}, rng);
      Guarded<T> gy(y), gb(bias);
      const std::int64_t inner = y.numel() / (s[0] * s[1]);
      run_grid_on_host(cuda::BiasAddKernel<T>{gy.ptr(), gb.ptr(), s[0], s[1], inner}, order);
      Tensor expected = y.clone();
      ref.bias_add(expected, bias);
      expect_output("y", gy, expected);
    }
  });
}

TEST(CudaHostKernels, Dropout) {
  for_each_setting(0, [&](auto tag, HostOrder order, Backend& ref, Rng&) {
    using T = decltype(tag);
    for (std::int64_t n : bound_sizes())
      for (double keep : {0.5, 0.8}) {
        Guarded<T> mask(n);
        run_grid_on_host(cuda::DropoutKernel<T>{mask.ptr(), n, keep, 1234, 77}, order);
        Tensor expected({n}, dtype_of<T>());
        ref.dropout_mask(expected, keep, 1234, 77);
        expect_output("mask", mask, expected, 1, true);
      }
  });
}

TEST(CudaHostKernels, Gelu) {
  for_each_setting(13, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    for (std::int64_t n : bound_sizes())
      for (GeluApprox approx : {GeluApprox::exact, GeluApprox::tanh}) {
        const Tensor x = random_of<T>({n}, rng, -4, 4), dy = random_of<T>({n}, rng);
        Guarded<T> gx(x), y(n), gdy(dy);
        run_grid_on_host(cuda::GeluForwardKernel<T>{gx.ptr(), y.ptr(), n, approx}, order);
        Tensor ey({n}, dtype_of<T>());
        ref.gelu_forward(x, ey, approx);
        expect_output("y", y, ey);
        // dx in place on dy, as the backend allows
        run_grid_on_host(cuda::GeluBackwardKernel<T>{gx.ptr(), gdy.ptr(), gdy.ptr(), n, approx}, order);
        Tensor edx({n}, dtype_of<T>());
        ref.gelu_backward(x, dy, edx, approx);
        expect_output("dx", gdy, edx);
      }
  });
}

// PartialSumsKernel's blocks, added in order on the host as CudaBackend::reduce does.
TEST(CudaHostKernels, PartialSums) {
  for_each_setting(14, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    std::vector<std::int64_t> sizes = bound_sizes();
    sizes.push_back(256 * 256 * 2 + 13);  // past the 256-block cap: threads walk three times
    for (std::int64_t n : sizes)
      for (bool squares : {false, true}) {
        SCOPED_TRACE(n);
        const Tensor x = random_of<T>({n}, rng);
        const std::int64_t blocks = cuda::partial_sums_grid(n).blocks_x;
        Guarded<T> gx(x);
        Guarded<double> partials(blocks);
        run_block_sums_on_host(cuda::PartialSumsKernel<T>{gx.ptr(), n, squares, partials.ptr()}, order);
        expect_total("sum", partials, 1.0, squares ? ref.sum_squares(x) : ref.sum(x), DType::f64, double(n));
      }
  });
}

TEST(CudaHostKernels, ArgmaxRowsWithTies) {
  for_each_setting(15, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    for (std::int64_t rows : {1, 3, 300})
      for (std::int64_t cols : {1, 5, 10}) {
        Tensor x({rows, cols}, dtype_of<T>());
        for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, random_int(rng, 0, 2));  // many ties
        Guarded<T> gx(x);
        Guarded<std::int32_t> out(rows);
        run_grid_on_host(cuda::ArgmaxRowsKernel<T>{gx.ptr(), rows, cols, out.ptr()}, order);
        Tensor expected({rows}, DType::i32);
        ref.argmax_rows(x, expected);
        expect_output("argmax", out, expected, 1, true);
      }
  });
}

TEST(CudaHostKernels, BiasBackward) {
  for_each_setting(16, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    // N * inner below, at and above the block of 256 threads
    for (const Shape& s : {Shape{1, 3}, Shape{7, 5}, Shape{1, 4, 16, 16}, Shape{3, 5, 11, 13}, Shape{2, 1, 1, 1}}) {
      SCOPED_TRACE(shape_string(s));
      const Tensor dy = random_of<T>(s, rng);
      const std::int64_t inner = dy.numel() / (s[0] * s[1]);
      Guarded<T> gdy(dy), db(s[1]);
      run_block_sums_on_host(cuda::BiasBackwardKernel<T>{gdy.ptr(), db.ptr(), s[0], s[1], inner}, order);
      Tensor expected({s[1]}, dtype_of<T>());
      ref.bias_backward(dy, expected);
      expect_output("dbias", db, expected, double(s[0] * inner));
    }
  });
}

// Row losses averaged as CudaBackend does; the gradient from the reference's probabilities.
TEST(CudaHostKernels, SoftmaxCrossEntropy) {
  for_each_setting(17, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    for (std::int64_t N : {1, 7, 300})
      for (std::int64_t K : {1, 10, 13}) {
        SCOPED_TRACE(std::to_string(N) + " x " + std::to_string(K));
        const Tensor x = random_of<T>({N, K}, rng, -5, 5), labels = random_labels(N, K, rng);
        Guarded<T> gx(x);
        Guarded<std::int32_t> gl(labels);
        Guarded<double> rows(N);
        run_grid_on_host(cuda::XentRowsKernel<T>{gx.ptr(), gl.ptr(), N, K, rows.ptr()}, order);
        Tensor prob({N, K}, dtype_of<T>());
        const double expected = ref.softmax_xent_forward(x, labels, prob);
        expect_total("loss", rows, double(N), expected, dtype_of<T>(), double(K));

        Guarded<T> gp(prob), d(N * K);
        run_grid_on_host(cuda::XentBackwardKernel<T>{gp.ptr(), gl.ptr(), N, K, 0.25, d.ptr()}, order);
        Tensor ed({N, K}, dtype_of<T>());
        ref.softmax_xent_backward(prob, labels, 0.25, ed);
        expect_output("dlogits", d, ed);
      }
  });
}

TEST(CudaHostKernels, NegativeLogLikelihood) {
  for_each_setting(18, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    for (std::int64_t N : {1, 7, 300})
      for (std::int64_t K : {1, 10, 13}) {
        const Tensor logp = random_of<T>({N, K}, rng, -6, 0), labels = random_labels(N, K, rng);
        Guarded<T> gp(logp);
        Guarded<std::int32_t> gl(labels);
        Guarded<double> rows(N);
        run_grid_on_host(cuda::NllRowsKernel<T>{gp.ptr(), gl.ptr(), N, K, rows.ptr()}, order);
        expect_total("loss", rows, double(N), ref.nll_forward(logp, labels), dtype_of<T>(), double(N));

        Guarded<T> d(N * K);
        run_grid_on_host(cuda::NllBackwardKernel<T>{gl.ptr(), N, K, 0.5, d.ptr()}, order);
        Tensor ed({N, K}, dtype_of<T>());
        ref.nll_backward(labels, 0.5, ed);
        expect_output("dlogp", d, ed);
      }
  });
}

// The chains of conformance_fused_cases.cpp's kinds: a bias and an activation, gradients, and
// every step kind with an operand read twice; out in place on the first input.
TEST(CudaHostKernels, FusedElementwise) {
  using O = ChainOp;
  using A = Activation;
  auto step = [](O op, int operand = -1, A a = A::relu, double alpha = 1.0) { return ChainStep{op, a, alpha, operand}; };
  const std::vector<std::vector<ChainStep>> chains{
      {step(O::bias_add, 1), step(O::activation, -1, A::relu)},
      {step(O::mul, 1), step(O::activation_grad, 2, A::relu)},
      {step(O::activation_grad, 1, A::tanh), step(O::scale, -1, A::relu, -0.75)},
      {step(O::scale, -1, A::relu, 1.5), step(O::add, 1), step(O::activation, -1, A::sigmoid), step(O::mul, 2),
       step(O::bias_add, 3), step(O::activation_grad, 1, A::sigmoid), step(O::add, 2), step(O::activation, -1, A::tanh)}};
  for_each_setting(19, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    for (const Shape& s : {Shape{1, 3}, Shape{7, 13}, Shape{1, 3, 9, 9}, Shape{2, 5, 7, 11}})
      for (const std::vector<ChainStep>& steps : chains) {
        SCOPED_TRACE(shape_string(s) + ", " + std::to_string(steps.size()) + " steps");
        int operands = 0;
        for (const ChainStep& st : steps) operands = std::max(operands, st.operand);
        std::vector<Tensor> held{random_of<T>(s, rng)};
        for (int k = 1; k <= operands; ++k) {
          bool bias = false;
          for (const ChainStep& st : steps) bias = bias || (st.operand == k && st.op == O::bias_add);
          held.push_back(random_of<T>(bias ? Shape{s[1]} : s, rng));
        }
        std::vector<Guarded<T>> guarded;
        for (const Tensor& t : held) guarded.emplace_back(t);
        cuda::DeviceChain chain = cuda::device_chain(steps, s);
        for (std::size_t k = 0; k < guarded.size(); ++k) chain.inputs[k] = guarded[k].ptr();
        run_grid_on_host(cuda::FusedKernel<T>{chain, held[0].numel(), guarded[0].ptr()}, order);
        std::vector<const Tensor*> inputs;
        for (const Tensor& t : held) inputs.push_back(&t);
        Tensor expected(s, dtype_of<T>());
        ref.fused_elementwise(inputs, steps, expected);
        expect_output("out", guarded[0], expected);
      }
  });
}

// One optimizer update over `state` (w, g, then its buffers; names[k] null: not compared): the
// kernel that make(pointers to guarded copies) builds runs on the host, update(state) on the
// reference, and each named state tensor is compared.
template <class T, class Make, class Update>
void check_update(std::vector<Tensor> state, const std::vector<const char*>& names, HostOrder order, Make&& make,
                  Update&& update) {
  std::vector<Guarded<T>> guarded(state.begin(), state.end());
  std::vector<T*> p;
  for (Guarded<T>& g : guarded) p.push_back(g.ptr());
  run_grid_on_host(make(p), order);
  update(state);
  for (std::size_t k = 0; k < state.size(); ++k)
    if (names[k]) expect_output(names[k], guarded[k], state[k]);
}

TEST(CudaHostKernels, CaffeSgd) {
  for_each_setting(20, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    const CaffeSgdParams c{0.05, 0.9, 5e-4};
    for (std::int64_t n : bound_sizes())
      check_update<T>(
          {random_of<T>({n}, rng), random_of<T>({n}, rng), random_of<T>({n}, rng)}, {"w", "g", "history"}, order,
          [&](const std::vector<T*>& p) {
            return cuda::CaffeSgdKernel<T>{p[0], p[1], p[2], n, c.lr, c.momentum, c.weight_decay};
          },
          [&](std::vector<Tensor>& s) { ref.caffe_sgd_update(s[0], s[1], s[2], c); });
  });
}

TEST(CudaHostKernels, TorchSgd) {
  for_each_setting(21, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    const std::vector<TorchSgdParams> settings{
        {0.1, 0.0, 0.0, 1e-4, false, false}, {0.1, 0.9, 0.1, 5e-4, false, true}, {0.1, 0.9, 0.0, 0.0, true, false}};
    for (std::int64_t n : bound_sizes())
      for (const TorchSgdParams& c : settings)
        check_update<T>(
            {random_of<T>({n}, rng), random_of<T>({n}, rng), random_of<T>({n}, rng)}, {"w", "g", "velocity"}, order,
            [&](const std::vector<T*>& p) {
              return cuda::TorchSgdKernel<T>{p[0], p[1], p[2], n, c.lr, c.momentum, c.dampening, c.weight_decay,
                                             c.nesterov, c.first_step};
            },
            [&](std::vector<Tensor>& s) { ref.torch_sgd_update(s[0], s[1], s[2], c); });
  });
}

TEST(CudaHostKernels, Adam) {
  for_each_setting(22, [&](auto tag, HostOrder order, Backend& ref, Rng& rng) {
    using T = decltype(tag);
    for (std::int64_t n : bound_sizes())
      for (std::int64_t step : {1, 7}) {
        const AdamParams c{1e-3, 0.9, 0.999, 1e-8, step};
        check_update<T>(
            {random_of<T>({n}, rng), random_of<T>({n}, rng), random_of<T>({n}, rng), random_of<T>({n}, rng, 0, 1)},
            {"w", nullptr, "m", "v"}, order,
            [&](const std::vector<T*>& p) {
              return cuda::AdamKernel<T>{p[0], p[1], p[2], p[3], n, cuda::adam_step_size(c), c.beta1, c.beta2, c.epsilon};
            },
            [&](std::vector<Tensor>& s) { ref.adam_update(s[0], s[1], s[2], s[3], c); });
      }
  });
}

}  // namespace
}  // namespace ablate::kernels::test
