// Conformance cases of the attention ops: batched_gemm in all four transpositions
// (attention's Q K^T, P V and their gradients) with beta 0 and 1; softmax along the last axis at
// rank 1 to 4 with scales 1 and 1/sqrt(d), inputs spread wide enough that the max-subtraction
// matters; layer norm with and without gamma/beta, the backward with every subset of outputs;
// permute at rank 2 to 5, including the image-to-token and head-split orders. Odd sizes, a last
// axis of 1, and one large case per op that splits over threads on the CPU backends.
#include <cmath>

#include "conformance.h"

namespace ablate::kernels::test {
namespace {

std::string perm_label(const Shape& x, const std::vector<int>& perm) {
  std::string s = shape_string(x) + " perm (";
  for (std::size_t i = 0; i < perm.size(); ++i) s += (i ? "," : "") + std::to_string(perm[i]);
  return s + ")";
}

void add_batched_gemm(std::vector<Case>& cases, std::uint64_t& seed, std::int64_t b, std::int64_t m, std::int64_t n,
                      std::int64_t k, bool ta, bool tb, double alpha, double beta) {
  const std::string label = "B" + std::to_string(b) + " M" + std::to_string(m) + " N" + std::to_string(n) + " K" +
                            std::to_string(k) + (ta ? " A^T" : "") + (tb ? " B^T" : "") + " alpha " +
                            std::to_string(alpha) + " beta " + std::to_string(beta);
  cases.push_back({"batched_gemm", label, seed++, [=](OpRun& r) {
                     Tensor a = r.input(ta ? Shape{b, k, m} : Shape{b, m, k});
                     Tensor bb = r.input(tb ? Shape{b, n, k} : Shape{b, k, n});
                     Tensor c = r.input({b, m, n});
                     r.backend().batched_gemm(ta, tb, alpha, a, bb, beta, c);
                     r.keep("c", c, static_cast<double>(k + 1));
                   }});
}

void add_softmax(std::vector<Case>& cases, std::uint64_t& seed, const Shape& shape, double scale) {
  const std::string label = shape_string(shape) + " scale " + std::to_string(scale);
  const double k = static_cast<double>(shape.back());
  cases.push_back({"softmax_last_forward", label, seed++, [=](OpRun& r) {
                     Tensor x = r.input(shape, -12.0, 12.0);
                     Tensor y = r.output(shape);
                     r.backend().softmax_last_forward(x, scale, y);
                     r.keep("y", y, k);
                   }});
  cases.push_back({"softmax_last_backward", label, seed++, [=](OpRun& r) {
                     Tensor x = r.input(shape, -3.0, 3.0);
                     Tensor y = r.output(shape), dy = r.input(shape), dx = r.output(shape);
                     r.backend().softmax_last_forward(x, scale, y);
                     r.backend().softmax_last_backward(y, dy, scale, dx);
                     r.keep("dx", dx, k);
                   }});
}

void add_layer_norm(std::vector<Case>& cases, std::uint64_t& seed, const Shape& shape, bool affine, int outputs) {
  const std::int64_t d = shape.back();
  const Shape rows{shape_numel(shape) / d};
  const std::string label = shape_string(shape) + (affine ? " affine" : " no affine");
  cases.push_back({"layer_norm_forward", label, seed++, [=](OpRun& r) {
                     Tensor x = r.input(shape, -2.0, 3.0);
                     Tensor gamma = affine ? r.input({d}) : Tensor(), beta = affine ? r.input({d}) : Tensor();
                     Tensor y = r.output(shape), mean = r.output(rows), rstd = r.output(rows);
                     r.backend().layer_norm_forward(x, gamma, beta, 1e-5, y, mean, rstd);
                     r.keep("y", y, static_cast<double>(d));
                     r.keep("mean", mean, static_cast<double>(d));
                     r.keep("rstd", rstd, static_cast<double>(d));
                   }});
  // outputs: bit 0 dx, bit 1 dgamma, bit 2 dbeta (an empty tensor where a bit is clear).
  cases.push_back({"layer_norm_backward", label + " outputs " + std::to_string(outputs), seed++, [=](OpRun& r) {
                     Tensor x = r.input(shape, -2.0, 3.0), dy = r.input(shape);
                     Tensor gamma = affine ? r.input({d}) : Tensor(), beta = affine ? r.input({d}) : Tensor();
                     Tensor y = r.output(shape), mean = r.output(rows), rstd = r.output(rows);
                     r.backend().layer_norm_forward(x, gamma, beta, 1e-5, y, mean, rstd);
                     Tensor dx = outputs & 1 ? r.output(shape) : Tensor();
                     Tensor dgamma = outputs & 2 ? r.output({d}) : Tensor();
                     Tensor dbeta = outputs & 4 ? r.output({d}) : Tensor();
                     r.backend().layer_norm_backward(x, dy, gamma, mean, rstd, dx, dgamma, dbeta);
                     const double sums = static_cast<double>(rows[0] + d);
                     if (outputs & 1) r.keep("dx", dx, static_cast<double>(d) * 4);
                     if (outputs & 2) r.keep("dgamma", dgamma, sums);
                     if (outputs & 4) r.keep("dbeta", dbeta, sums);
                   }});
}

void add_permute(std::vector<Case>& cases, std::uint64_t& seed, const Shape& x_shape, const std::vector<int>& perm) {
  Shape y_shape;
  for (int p : perm) y_shape.push_back(x_shape[static_cast<std::size_t>(p)]);
  cases.push_back({"permute", perm_label(x_shape, perm), seed++, [=](OpRun& r) {
                     Tensor x = r.input(x_shape), y = r.output(y_shape);
                     r.backend().permute(x, perm, y);
                     r.keep("y", y, 1, true);
                   }});
}

}  // namespace

std::vector<Case> batched_gemm_cases() {
  std::vector<Case> cases;
  Rng rng(0xBA7C);
  std::uint64_t seed = 9500;
  for (int i = 0; i < 8; ++i) {
    const bool ta = i & 1, tb = i & 2;
    add_batched_gemm(cases, seed, random_int(rng, 1, 6), random_int(rng, 1, 9), random_int(rng, 1, 9),
                     random_int(rng, 1, 9), ta, tb, i < 4 ? 1.0 : 0.125, i < 4 ? 0.0 : 1.0);
  }
  add_batched_gemm(cases, seed, 32, 16, 16, 16, false, true, 0.25, 0.0);  // 2 samples x 4 heads x ... Q K^T
  add_batched_gemm(cases, seed, 8, 65, 33, 17, false, false, 1.0, 0.0);
  return cases;
}

std::vector<Case> attention_cases() {
  std::vector<Case> cases;
  Rng rng(0xA77E);
  std::uint64_t seed = 9600;
  add_softmax(cases, seed, {7}, 1.0);
  add_softmax(cases, seed, {5, 1}, 1.0);  // a last axis of 1: y = 1, dx = 0
  for (int i = 0; i < 4; ++i) {
    const std::int64_t t = random_int(rng, 1, 9);
    add_softmax(cases, seed, {random_int(rng, 1, 3), random_int(rng, 1, 4), random_int(rng, 1, 9), t},
                1.0 / std::sqrt(static_cast<double>(random_int(rng, 1, 64))));
    add_softmax(cases, seed, {random_int(rng, 1, 6), t}, 1.0);
  }
  add_softmax(cases, seed, {64, 4, 16, 16}, 0.25);  // 4096 rows: split over threads

  add_layer_norm(cases, seed, {9}, true, 7);
  add_layer_norm(cases, seed, {3, 1}, true, 7);  // D = 1: x_hat = 0
  for (int i = 0; i < 8; ++i)
    add_layer_norm(cases, seed, {random_int(rng, 1, 4), random_int(rng, 1, 7), random_int(rng, 2, 17)}, i % 2 == 0,
                   1 + i % 7);
  add_layer_norm(cases, seed, {128, 16, 64}, true, 7);  // 2048 rows: split over threads

  add_permute(cases, seed, {3, 5}, {1, 0});
  add_permute(cases, seed, {2, 7, 9}, {0, 2, 1});          // images [N, C, HW] to tokens [N, HW, C]
  add_permute(cases, seed, {3, 5, 4, 2}, {0, 2, 1, 3});    // heads apart [N, T, H, dh] -> [N, H, T, dh]
  add_permute(cases, seed, {2, 3, 4, 5}, {3, 1, 0, 2});
  add_permute(cases, seed, {2, 3, 1, 4, 3}, {4, 2, 0, 3, 1});
  add_permute(cases, seed, {1, 1, 6}, {2, 0, 1});
  add_permute(cases, seed, {64, 16, 4, 16}, {0, 2, 1, 3});  // 4096 rows: split over threads
  return cases;
}

}  // namespace ablate::kernels::test
