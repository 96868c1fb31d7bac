// Fused attention against the unfused composition it replaces, on every CPU backend, f32 and
// f64: batched_gemm (q k^T), softmax_last with the scale, batched_gemm (p v) for the forward;
// for the backward the composition's gradients (dp = dout v^T, dv = p^T dout, ds =
// softmax_last_backward(p, dp), dq = ds k, dk = ds^T q). lse against log sum_j exp(s_ij)
// computed in double from the composition's scores. Odd T (17) with blocks that do not divide
// it, a block of 1 and a block past T.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "kernels/registry.h"
#include "test_tensors.h"

namespace ablate::kernels::test {
namespace {

struct Composed {
  Tensor o, lse, dq, dk, dv;
};

Composed unfused(Backend& b, const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& dout, double scale) {
  const std::int64_t B = q.dim(0), t = q.dim(1);
  const DType dt = q.dtype();
  Tensor s({B, t, t}, dt), p({B, t, t}, dt), dp({B, t, t}, dt), ds({B, t, t}, dt);
  Composed c{Tensor(q.shape(), dt), Tensor({B, t}, DType::f64), Tensor(q.shape(), dt), Tensor(q.shape(), dt),
             Tensor(q.shape(), dt)};
  b.batched_gemm(false, true, 1.0, q, k, 0.0, s);
  b.softmax_last_forward(s, scale, p);
  b.batched_gemm(false, false, 1.0, p, v, 0.0, c.o);
  b.batched_gemm(false, true, 1.0, dout, v, 0.0, dp);
  b.batched_gemm(true, false, 1.0, p, dout, 0.0, c.dv);
  b.softmax_last_backward(p, dp, scale, ds);
  b.batched_gemm(false, false, 1.0, ds, k, 0.0, c.dq);
  b.batched_gemm(true, false, 1.0, ds, q, 0.0, c.dk);
  const Tensor scores = as_f64(s);
  for (std::int64_t r = 0; r < B * t; ++r) {
    double m = -INFINITY, total = 0;
    for (std::int64_t j = 0; j < t; ++j) m = std::max(m, scale * scores.at(r * t + j));
    for (std::int64_t j = 0; j < t; ++j) total += std::exp(scale * scores.at(r * t + j) - m);
    c.lse.data<double>()[r] = m + std::log(total);
  }
  return c;
}

TEST(FusedAttention, EqualsTheUnfusedCompositionOnEveryCpuBackend) {
  for (const std::string& name : backend_names()) {
    if (name == "cuda") continue;
    auto b = make_backend(name);
    for (DType dt : {DType::f32, DType::f64})
      for (std::int64_t block : {1, 4, 5, 16, 64}) {
        Rng rng(1700 + static_cast<std::uint64_t>(block));
        const Shape shape{6, 17, 8};
        const double scale = 1.0 / std::sqrt(8.0);
        Tensor q = random_tensor(shape, dt, rng, -3, 3), k = random_tensor(shape, dt, rng, -3, 3);
        Tensor v = random_tensor(shape, dt, rng), dout = random_tensor(shape, dt, rng);
        const Composed want = unfused(*b, q, k, v, dout, scale);
        Tensor o(shape, dt), lse({6, 17}, dt), dq(shape, dt), dk(shape, dt), dv(shape, dt);
        b->fused_attention_forward(q, k, v, scale, block, o, lse);
        b->fused_attention_backward(q, k, v, o, lse, dout, scale, block, dq, dk, dv);
        const std::string what = name + " " + dtype_name(dt) + " T 17 block " + std::to_string(block);
        const double bound = tolerance(dt, 17.0 * 8 * 16);
        EXPECT_TRUE(all_near(as_f64(o), as_f64(want.o), bound)) << what << " o";
        EXPECT_TRUE(all_near(as_f64(lse), want.lse, bound)) << what << " lse";
        EXPECT_TRUE(all_near(as_f64(dq), as_f64(want.dq), bound)) << what << " dq";
        EXPECT_TRUE(all_near(as_f64(dk), as_f64(want.dk), bound)) << what << " dk";
        EXPECT_TRUE(all_near(as_f64(dv), as_f64(want.dv), bound)) << what << " dv";
      }
  }
}

// A wrong recurrence would show here: scores up to +-60 in f32 overflow exp without the running
// max; the fused result stays finite and equal to the composition (which subtracts the row max).
TEST(FusedAttention, LargeScoresStayFinite) {
  for (const std::string& name : backend_names()) {
    if (name == "cuda") continue;
    auto b = make_backend(name);
    Rng rng(99);
    const Shape shape{2, 33, 4};
    Tensor q = random_tensor(shape, DType::f32, rng, -8, 8), k = random_tensor(shape, DType::f32, rng, -8, 8);
    Tensor v = random_tensor(shape, DType::f32, rng), dout = random_tensor(shape, DType::f32, rng);
    const Composed want = unfused(*b, q, k, v, dout, 1.0);
    Tensor o(shape, DType::f32), lse({2, 33}, DType::f32);
    b->fused_attention_forward(q, k, v, 1.0, 8, o, lse);
    EXPECT_TRUE(all_near(as_f64(o), as_f64(want.o), 1e-4)) << name;
    EXPECT_TRUE(all_near(as_f64(lse), want.lse, 1e-4)) << name;
  }
}

}  // namespace
}  // namespace ablate::kernels::test
