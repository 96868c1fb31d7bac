// Conformance cases of gemm (every transpose combination, alpha and beta including beta 0
// over a non-zero c, odd sizes, vectors) and of the fully connected layer (forward with and
// without bias, backward data, backward weights with and without dbias).
#include <sstream>

#include "conformance.h"

namespace ablate::kernels::test {

std::vector<Case> gemm_linear_cases() {
  std::vector<Case> cases;
  Rng rng(0x6E3);
  std::uint64_t seed = 8000;
  for (int i = 0; i < 36; ++i) {
    bool ta = i & 1, tb = i & 2;
    // The last four (one per transpose pair) are big enough for the libraries' blocked paths.
    bool big = i >= 32;
    std::int64_t M = big ? 67 : random_int(rng, 1, 23), N = big ? 130 : random_int(rng, 1, 23);
    std::int64_t K = big ? 257 : random_int(rng, 1, 37);
    double alpha = i % 5 == 0 ? 1.0 : random_real(rng, -2, 2);
    double beta = i % 3 == 0 ? 0.0 : (i % 3 == 1 ? 1.0 : random_real(rng, -2, 2));
    std::ostringstream name;
    name << "c [" << M << ", " << N << "] = " << alpha << " op(a) op(b) + " << beta << " c, K " << K
         << (ta ? ", a^T" : "") << (tb ? ", b^T" : "");
    cases.push_back({"gemm", name.str(), seed++, [=](OpRun& r) {
                       Tensor a = r.input(ta ? Shape{K, M} : Shape{M, K});
                       Tensor b = r.input(tb ? Shape{N, K} : Shape{K, N});
                       Tensor c = r.input({M, N});
                       r.backend().gemm(ta, tb, alpha, a, b, beta, c);
                       r.keep("c", c, double(K));
                     }});
  }
  for (int i = 0; i < 14; ++i) {
    // Case 12 is LeNet's ip1 (800 -> 500) on a batch of 8: large enough for blocked kernels.
    // Case 13 is a transformer's projection over many rows (3 chunks of the onednn backend's
    // split reduction, the last one short: onednn_linear.cpp).
    bool lenet = i == 12, tall = i == 13;
    std::int64_t N = lenet ? 8 : tall ? 2 * 1024 + 77 : random_int(rng, 1, 9);
    std::int64_t I = lenet ? 800 : tall ? 40 : random_int(rng, 1, 40);
    std::int64_t O = lenet ? 500 : tall ? 24 : random_int(rng, 1, 15);
    bool bias = i % 2 == 0;
    std::ostringstream name;
    name << "x [" << N << ", " << I << "], w [" << O << ", " << I << "]" << (bias ? ", bias" : ", no bias");
    cases.push_back({"linear_forward", name.str(), seed++, [=](OpRun& r) {
                       Tensor x = r.input({N, I}), w = r.input({O, I}), b = bias ? r.input({O}) : Tensor();
                       Tensor y = r.output({N, O});
                       r.backend().linear_forward(x, w, b, y);
                       r.keep("y", y, double(I));
                     }});
    cases.push_back({"linear_backward_data", name.str(), seed++, [=](OpRun& r) {
                       Tensor dy = r.input({N, O}), w = r.input({O, I}), dx = r.output({N, I});
                       r.backend().linear_backward_data(dy, w, dx);
                       r.keep("dx", dx, double(O));
                     }});
    cases.push_back({"linear_backward_weights", name.str(), seed++, [=](OpRun& r) {
                       Tensor x = r.input({N, I}), dy = r.input({N, O}), dw = r.output({O, I});
                       Tensor db = bias ? r.output({O}) : Tensor();
                       r.backend().linear_backward_weights(x, dy, dw, db);
                       r.keep("dw", dw, double(N));
                       if (bias) r.keep("dbias", db, double(N));
                     }});
  }
  return cases;
}

}  // namespace ablate::kernels::test
