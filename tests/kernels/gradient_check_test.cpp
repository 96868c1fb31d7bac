// Gradient checks of the reference backend: every backward op (conv2d_map's included)
// against central finite differences of its forward op, in f64 on small random shapes
// (Caffe's GradientChecker in spirit). For an op y = f(x) and a fixed random projection R,
// the scalar L = <f(x), R> has dL/dx = backward(dy = R), and each element is checked against
// (L(x + h e_i) - L(x - h e_i)) / 2h with h = 1e-5, to 1e-6 relative to max(1, |dL/dx_i|).
// Kinks are kept out of reach: relu inputs avoid 0 and max-pool inputs are distinct. GELU's
// backward reads x; batch normalisation's is that of its training forward (batch statistics).
// Concatenation's backward (the split) is checked against its forward the same way, and so are
// the attention ops': batched GEMM's products, the scaled softmax, layer norm, permute.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/op_params.h"
#include "kernels/registry.h"
#include "test_tensors.h"

namespace ablate::kernels::test {
namespace {

constexpr double kStep = 1e-5, kTolerance = 1e-6;

// <a, b> over all elements.
double dot(const Tensor& a, const Tensor& b) {
  double s = 0;
  for (std::int64_t i = 0; i < a.numel(); ++i) s += a.at(i) * b.at(i);
  return s;
}

// Central differences of loss() with respect to every element of `param` (perturbed in place).
Tensor numeric_gradient(Tensor& param, const std::function<double()>& loss) {
  Tensor grad(param.shape(), DType::f64);
  double* p = param.data<double>();
  for (std::int64_t i = 0; i < param.numel(); ++i) {
    double saved = p[i];
    p[i] = saved + kStep;
    double up = loss();
    p[i] = saved - kStep;
    double down = loss();
    p[i] = saved;
    grad.data<double>()[i] = (up - down) / (2 * kStep);
  }
  return grad;
}

void expect_gradient(const char* what, Tensor& param, const Tensor& analytic, const std::function<double()>& loss) {
  EXPECT_TRUE(all_near(analytic, numeric_gradient(param, loss), kTolerance)) << what;
}

class GradientCheck : public ::testing::Test {
 protected:
  std::unique_ptr<Backend> b = make_backend("reference");
  Rng rng{20240611};
  Tensor random(const Shape& s, double lo = -1, double hi = 1) { return random_tensor(s, DType::f64, rng, lo, hi); }
};

TEST_F(GradientCheck, Conv2dDataWeightsAndBias) {
  struct Geometry {
    Shape x, w;
    Conv2dParams p;
  };
  const Geometry cases[] = {
      {{2, 2, 5, 4}, {3, 2, 3, 2}, {1, 1, 0, 0, 0, 0}},
      {{1, 3, 6, 7}, {2, 3, 3, 3}, {2, 1, 1, 2, 0, 1}},  // strides 2x1, asymmetric padding
      {{2, 1, 7, 7}, {2, 1, 4, 4}, {3, 3, 2, 1, 1, 2}},
  };
  for (const Geometry& g : cases) {
    std::int64_t oh = conv2d_out_size(int(g.x[2]), int(g.w[2]), g.p.stride_h, g.p.pad_top, g.p.pad_bottom);
    std::int64_t ow = conv2d_out_size(int(g.x[3]), int(g.w[3]), g.p.stride_w, g.p.pad_left, g.p.pad_right);
    Shape ys{g.x[0], g.w[0], oh, ow};
    Tensor x = random(g.x), w = random(g.w), bias = random({g.w[0]}), R = random(ys), y(ys, DType::f64);
    auto loss = [&] {
      b->conv2d_forward(x, w, bias, y, g.p);
      return dot(y, R);
    };
    Tensor dx(g.x, DType::f64), dw(g.w, DType::f64), dbias({g.w[0]}, DType::f64);
    b->conv2d_backward_data(R, w, dx, g.p);
    b->conv2d_backward_weights(x, R, dw, dbias, g.p);
    expect_gradient("conv2d dx", x, dx, loss);
    expect_gradient("conv2d dw", w, dw, loss);
    expect_gradient("conv2d dbias", bias, dbias, loss);
  }
}

// Torch's SpatialConvolutionMap: tables with fan_in 1, a partial one with a repeated
// connection and an unfed output plane, and the full table; strides and asymmetric padding.
TEST_F(GradientCheck, Conv2dMapDataWeightsAndBias) {
  struct Geometry {
    Shape x;
    std::int64_t K, KH, KW;
    std::vector<std::int32_t> table;  // [T, 2]: (input plane, output plane)
    Conv2dParams p;
  };
  const Geometry cases[] = {
      {{2, 3, 5, 4}, 3, 3, 2, {0, 0, 1, 1, 2, 2}, {1, 1, 0, 0, 0, 0}},                   // fan_in 1
      {{1, 3, 6, 7}, 3, 3, 3, {2, 0, 0, 0, 1, 1, 2, 1, 2, 1}, {2, 1, 1, 2, 0, 1}},       // plane 2 unfed, 2>1 twice
      {{2, 2, 7, 7}, 2, 4, 4, {0, 0, 1, 0, 0, 1, 1, 1}, {3, 3, 2, 1, 1, 2}},             // the full table
  };
  for (const Geometry& g : cases) {
    const std::int64_t T = static_cast<std::int64_t>(g.table.size() / 2);
    std::int64_t oh = conv2d_out_size(int(g.x[2]), int(g.KH), g.p.stride_h, g.p.pad_top, g.p.pad_bottom);
    std::int64_t ow = conv2d_out_size(int(g.x[3]), int(g.KW), g.p.stride_w, g.p.pad_left, g.p.pad_right);
    Shape ys{g.x[0], g.K, oh, ow}, ws{T, g.KH, g.KW};
    Tensor table({T, 2}, DType::i32);
    std::copy(g.table.begin(), g.table.end(), table.data<std::int32_t>());
    Tensor x = random(g.x), w = random(ws), bias = random({g.K}), R = random(ys), y(ys, DType::f64);
    auto loss = [&] {
      b->conv2d_map_forward(x, w, bias, table, y, g.p);
      return dot(y, R);
    };
    Tensor dx(g.x, DType::f64), dw(ws, DType::f64), dbias({g.K}, DType::f64);
    b->conv2d_map_backward_data(R, w, table, dx, g.p);
    b->conv2d_map_backward_weights(x, R, table, dw, dbias, g.p);
    expect_gradient("conv2d_map dx", x, dx, loss);
    expect_gradient("conv2d_map dw", w, dw, loss);
    expect_gradient("conv2d_map dbias", bias, dbias, loss);
  }
}

TEST_F(GradientCheck, LinearDataWeightsAndBias) {
  Tensor x = random({3, 7}), w = random({4, 7}), bias = random({4}), R = random({3, 4}), y({3, 4}, DType::f64);
  auto loss = [&] {
    b->linear_forward(x, w, bias, y);
    return dot(y, R);
  };
  Tensor dx({3, 7}, DType::f64), dw({4, 7}, DType::f64), dbias({4}, DType::f64);
  b->linear_backward_data(R, w, dx);
  b->linear_backward_weights(x, R, dw, dbias);
  expect_gradient("linear dx", x, dx, loss);
  expect_gradient("linear dw", w, dw, loss);
  expect_gradient("linear dbias", bias, dbias, loss);
}

TEST_F(GradientCheck, BiasAdd) {
  for (Shape s : {Shape{3, 5}, Shape{2, 3, 4, 5}}) {
    Tensor y0 = random(s), bias = random({s[1]}), R = random(s);
    auto loss = [&] {
      Tensor y = y0.clone();
      b->bias_add(y, bias);
      return dot(y, R);
    };
    Tensor dbias({s[1]}, DType::f64);
    b->bias_backward(R, dbias);
    expect_gradient("bias_add dbias", bias, dbias, loss);
  }
}

TEST_F(GradientCheck, Pool2dMaxAndAvgForEachConvention) {
  for (PoolKind kind : {PoolKind::max, PoolKind::avg})
    for (PoolPadding padding : {PoolPadding::caffe_ceil, PoolPadding::tf_same, PoolPadding::valid})
      for (auto [kernel, stride, pad] : {std::tuple{3, 2, 1}, std::tuple{2, 2, 0}, std::tuple{3, 3, 2}}) {
        if (padding == PoolPadding::tf_same) pad = 0;
        Shape xs{2, 2, 7, 6};
        Pool2dParams p = make_pool2d_params(kind, kernel, stride, pad, padding, 7, 6);
        Shape ys{2, 2, p.out_h, p.out_w};
        // Distinct values 0.01 apart in random order: no ties within h of each other.
        Tensor x(xs, DType::f64);
        std::vector<std::int64_t> order(static_cast<std::size_t>(x.numel()));
        std::iota(order.begin(), order.end(), 0);
        std::shuffle(order.begin(), order.end(), rng);
        for (std::int64_t i = 0; i < x.numel(); ++i) x.data<double>()[i] = 0.01 * double(order[i]) - 0.5;
        Tensor R = random(ys), y(ys, DType::f64), workspace;
        auto loss = [&] {
          Tensor scratch;
          b->pool2d_forward(x, y, scratch, p);
          return dot(y, R);
        };
        b->pool2d_forward(x, y, workspace, p);
        Tensor dx(xs, DType::f64);
        b->pool2d_backward(x, y, R, workspace, dx, p);
        std::string what = std::string(kind == PoolKind::max ? "max" : "avg") + " " + pool_padding_name(padding) +
                           " kernel " + std::to_string(kernel) + " stride " + std::to_string(stride) + " pad " +
                           std::to_string(pad);
        expect_gradient(what.c_str(), x, dx, loss);
      }
}

TEST_F(GradientCheck, Activations) {
  for (Activation a : {Activation::relu, Activation::tanh, Activation::sigmoid}) {
    Tensor x = random({3, 8}, 0.1, 2.0);
    for (std::int64_t i = 0; i < x.numel(); i += 2) x.data<double>()[i] *= -1;  // both signs, none near 0
    Tensor R = random({3, 8}), y({3, 8}, DType::f64);
    auto loss = [&] {
      b->activation_forward(a, x, y);
      return dot(y, R);
    };
    loss();
    Tensor dx({3, 8}, DType::f64);
    b->activation_backward(a, y, R, dx);
    expect_gradient(activation_name(a), x, dx, loss);
  }
}

TEST_F(GradientCheck, GeluExactAndTanh) {
  for (GeluApprox approx : {GeluApprox::exact, GeluApprox::tanh}) {
    Tensor x = random({4, 9}, -4, 4), R = random({4, 9}), y({4, 9}, DType::f64);
    auto loss = [&] {
      b->gelu_forward(x, y, approx);
      return dot(y, R);
    };
    Tensor dx({4, 9}, DType::f64);
    b->gelu_backward(x, R, dx, approx);
    expect_gradient((std::string("gelu ") + gelu_approx_name(approx)).c_str(), x, dx, loss);
  }
}

// The backward of the training forward: the batch mean and variance move with x. Inputs with
// a mean away from 0; [N,C] and [N,C,H,W]; with scale and shift, and without (gamma = 1).
TEST_F(GradientCheck, BatchNormTrainingDataScaleAndShift) {
  for (Shape s : {Shape{5, 3}, Shape{2, 3, 3, 2}})
    for (bool affine : {true, false}) {
      const double eps = 1e-3;
      const Shape c{s[1]};
      Tensor x = random(s, -1, 3), R = random(s), y(s, DType::f64), mean(c, DType::f64), var(c, DType::f64);
      Tensor gamma = affine ? random(c, 0.5, 2) : Tensor(), beta = affine ? random(c) : Tensor();
      auto loss = [&] {
        b->batch_norm_forward_training(x, gamma, beta, eps, y, mean, var);
        return dot(y, R);
      };
      loss();
      Tensor dx(s, DType::f64), dgamma(c, DType::f64), dbeta(c, DType::f64);
      b->batch_norm_backward(x, R, gamma, mean, var, eps, dx, dgamma, dbeta);
      const std::string what = "batch_norm " + shape_string(s) + (affine ? " affine" : " plain");
      expect_gradient((what + " dx").c_str(), x, dx, loss);
      if (!affine) continue;
      expect_gradient((what + " dgamma").c_str(), gamma, dgamma, loss);
      expect_gradient((what + " dbeta").c_str(), beta, dbeta, loss);
    }
}

TEST_F(GradientCheck, LrnWithAndWithoutWorkspace) {
  for (LrnParams p : {LrnParams{3, 0.9, 0.75, 1.0}, LrnParams{5, 2.0, 0.6, 1.5}, LrnParams{1, 0.5, 0.9, 2.0}}) {
    Shape s{2, 6, 3, 2};
    Tensor x = random(s, -2, 2), R = random(s), y(s, DType::f64), workspace;
    auto loss = [&] {
      Tensor scratch;
      b->lrn_forward(x, y, scratch, p);
      return dot(y, R);
    };
    b->lrn_forward(x, y, workspace, p);
    Tensor dx(s, DType::f64), dx_recomputed(s, DType::f64);
    b->lrn_backward(x, y, R, workspace, dx, p);
    b->lrn_backward(x, y, R, Tensor(), dx_recomputed, p);
    EXPECT_TRUE(all_near(dx_recomputed, dx, 1e-14)) << "size " << p.size;
    expect_gradient(("lrn size " + std::to_string(p.size)).c_str(), x, dx, loss);
  }
}

TEST_F(GradientCheck, SoftmaxCrossEntropy) {
  Tensor logits = random({4, 5}, -3, 3), labels = random_labels(4, 5, rng), prob({4, 5}, DType::f64);
  auto loss = [&] { return b->softmax_xent_forward(logits, labels, prob); };
  loss();
  Tensor dlogits({4, 5}, DType::f64);
  b->softmax_xent_backward(prob, labels, 1.0 / 4, dlogits);  // the batch mean's scale
  expect_gradient("softmax_xent dlogits", logits, dlogits, loss);
}

TEST_F(GradientCheck, LogSoftmax) {
  Tensor x = random({3, 6}, -3, 3), R = random({3, 6}), y({3, 6}, DType::f64);
  auto loss = [&] {
    b->log_softmax_forward(x, y);
    return dot(y, R);
  };
  loss();
  Tensor dx({3, 6}, DType::f64);
  b->log_softmax_backward(y, R, dx);
  expect_gradient("log_softmax dx", x, dx, loss);
}

TEST_F(GradientCheck, Nll) {
  Tensor logp = random({5, 4}, -4, 0), labels = random_labels(5, 4, rng);
  auto loss = [&] { return b->nll_forward(logp, labels); };
  Tensor dlogp({5, 4}, DType::f64);
  b->nll_backward(labels, 1.0 / 5, dlogp);
  expect_gradient("nll dlogp", logp, dlogp, loss);
}

// The check itself fails on a wrong gradient.
// concat_backward against concat_forward: L = <concat(xs), R> has dL/dxs[k] = R's slice k.
TEST_F(GradientCheck, Concat) {
  for (Shape whole : {Shape{3, 6}, Shape{2, 6, 3, 2}}) {
    const std::vector<std::int64_t> channels{2, 1, 3};
    std::vector<Tensor> xs, dxs;
    for (std::int64_t c : channels) {
      Shape s = whole;
      s[1] = c;
      xs.push_back(random(s));
      dxs.emplace_back(s, DType::f64);
    }
    Tensor R = random(whole), y(whole, DType::f64);
    auto loss = [&] {
      b->concat_forward({&xs[0], &xs[1], &xs[2]}, y);
      return dot(y, R);
    };
    b->concat_backward(R, {&dxs[0], &dxs[1], &dxs[2]});
    for (std::size_t k = 0; k < xs.size(); ++k) expect_gradient(("concat dxs[" + std::to_string(k) + "]").c_str(), xs[k], dxs[k], loss);
  }
}

// batched_gemm: c = alpha op(a) op(b) with each item's gradients as batched_gemm again (the
// rules every strategy uses): da = alpha dc op(b)^T (or alpha op(b) dc^T transposed), db
// likewise; beta's term is checked through c0.
TEST_F(GradientCheck, BatchedGemmEveryTransposition) {
  const std::int64_t B = 2, M = 3, N = 4, K = 5;
  for (int t = 0; t < 4; ++t) {
    const bool ta = t & 1, tb = t & 2;
    const double alpha = 0.7, beta = 0.3;
    Tensor a = random(ta ? Shape{B, K, M} : Shape{B, M, K}), bb = random(tb ? Shape{B, N, K} : Shape{B, K, N});
    Tensor c0 = random({B, M, N}), R = random({B, M, N}), c({B, M, N}, DType::f64);
    auto loss = [&] {
      b->copy(c0, c);
      b->batched_gemm(ta, tb, alpha, a, bb, beta, c);
      return dot(c, R);
    };
    Tensor da(a.shape(), DType::f64), db(bb.shape(), DType::f64), dc0 = R.clone();
    if (ta) b->batched_gemm(tb, true, alpha, bb, R, 0.0, da);
    else b->batched_gemm(false, !tb, alpha, R, bb, 0.0, da);
    if (tb) b->batched_gemm(true, ta, alpha, R, a, 0.0, db);
    else b->batched_gemm(!ta, false, alpha, a, R, 0.0, db);
    b->scale(dc0, beta);
    const std::string what = std::string("batched_gemm") + (ta ? " A^T" : "") + (tb ? " B^T" : "");
    expect_gradient((what + " da").c_str(), a, da, loss);
    expect_gradient((what + " db").c_str(), bb, db, loss);
    expect_gradient((what + " dc0").c_str(), c0, dc0, loss);
  }
}

TEST_F(GradientCheck, SoftmaxLastAxisWithScale) {
  for (Shape s : {Shape{6}, Shape{2, 3, 5}, Shape{4, 1}})
    for (double scale : {1.0, 0.35}) {
      Tensor x = random(s, -3, 3), R = random(s), y(s, DType::f64), dx(s, DType::f64);
      auto loss = [&] {
        b->softmax_last_forward(x, scale, y);
        return dot(y, R);
      };
      loss();
      b->softmax_last_backward(y, R, scale, dx);
      expect_gradient(("softmax_last " + shape_string(s) + " scale " + std::to_string(scale)).c_str(), x, dx, loss);
    }
}

// The backward through the row statistics: inputs with a mean away from 0, with and without
// gamma and beta, and rows of rank 1 and 3.
TEST_F(GradientCheck, LayerNormDataScaleAndShift) {
  for (Shape s : {Shape{7}, Shape{2, 3, 5}})
    for (bool affine : {true, false}) {
      const double eps = 1e-3;
      const std::int64_t d = s.back();
      const Shape rows{shape_numel(s) / d};
      Tensor x = random(s, -1, 3), R = random(s), y(s, DType::f64), mean(rows, DType::f64), rstd(rows, DType::f64);
      Tensor gamma = affine ? random({d}, 0.5, 2) : Tensor(), beta = affine ? random({d}) : Tensor();
      auto loss = [&] {
        b->layer_norm_forward(x, gamma, beta, eps, y, mean, rstd);
        return dot(y, R);
      };
      loss();
      Tensor dx(s, DType::f64), dgamma({d}, DType::f64), dbeta({d}, DType::f64), none;
      b->layer_norm_backward(x, R, gamma, mean, rstd, dx, affine ? dgamma : none, affine ? dbeta : none);
      const std::string what = "layer_norm " + shape_string(s) + (affine ? " affine" : " plain");
      expect_gradient((what + " dx").c_str(), x, dx, loss);
      if (!affine) continue;
      expect_gradient((what + " dgamma").c_str(), gamma, dgamma, loss);
      expect_gradient((what + " dbeta").c_str(), beta, dbeta, loss);
    }
}

// permute's backward is permute by the inverse permutation.
TEST_F(GradientCheck, PermuteByTheInverse) {
  const std::vector<std::pair<Shape, std::vector<int>>> cases{
      {{2, 3, 4}, {0, 2, 1}}, {{2, 3, 2, 4}, {0, 2, 1, 3}}, {{2, 3, 4, 2}, {3, 0, 2, 1}}};
  for (const auto& [s, perm] : cases) {
    Shape out, inverse_shape = s;
    std::vector<int> inverse(perm.size());
    for (std::size_t i = 0; i < perm.size(); ++i) {
      out.push_back(s[static_cast<std::size_t>(perm[i])]);
      inverse[static_cast<std::size_t>(perm[i])] = static_cast<int>(i);
    }
    Tensor x = random(s), R = random(out), y(out, DType::f64), dx(s, DType::f64);
    auto loss = [&] {
      b->permute(x, perm, y);
      return dot(y, R);
    };
    b->permute(R, inverse, dx);
    expect_gradient(("permute " + shape_string(s)).c_str(), x, dx, loss);
  }
}

// Fused attention's backward (it recomputes p from q, k and lse) against central differences
// of its forward, on reference and on a CPU backend's blocked loop (eigen: the loop all three
// CPU backends share), with T = 7 in blocks of 3 (3 + 3 + 1).
TEST_F(GradientCheck, FusedAttentionQueriesKeysValues) {
  for (const char* name : {"reference", "eigen"}) {
    auto backend = make_backend(name);
    const Shape s{2, 7, 3};
    const double scale = 0.6;
    Tensor q = random(s, -2, 2), k = random(s, -2, 2), v = random(s), R = random(s);
    Tensor o(s, DType::f64), lse({2, 7}, DType::f64);
    auto loss = [&] {
      backend->fused_attention_forward(q, k, v, scale, 3, o, lse);
      return dot(o, R);
    };
    loss();
    Tensor dq(s, DType::f64), dk(s, DType::f64), dv(s, DType::f64);
    backend->fused_attention_backward(q, k, v, o, lse, R, scale, 3, dq, dk, dv);
    const std::string what = std::string("fused_attention on ") + name;
    expect_gradient((what + " dq").c_str(), q, dq, loss);
    expect_gradient((what + " dk").c_str(), k, dk, loss);
    expect_gradient((what + " dv").c_str(), v, dv, loss);
  }
}

TEST_F(GradientCheck, CatchesAWrongGradient) {
  Tensor x = random({6});
  auto loss = [&] { return dot(x, x); };  // dL/dx = 2x
  Tensor almost = x.clone();
  for (std::int64_t i = 0; i < almost.numel(); ++i) almost.data<double>()[i] *= 2.0;
  EXPECT_TRUE(all_near(almost, numeric_gradient(x, loss), kTolerance));
  almost.data<double>()[3] += 1e-4;
  EXPECT_FALSE(all_near(almost, numeric_gradient(x, loss), kTolerance));
}

}  // namespace
}  // namespace ablate::kernels::test
