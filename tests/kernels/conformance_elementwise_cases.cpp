// Conformance cases of the elementwise ops and reductions (fill, copy, scale, axpy, axpby,
// add, mul with the output aliasing an input, sum, sum_squares, argmax_rows) and of the
// per-channel bias (bias_add on [N,C] and [N,C,H,W], bias_backward).
#include <sstream>

#include "conformance.h"

namespace ablate::kernels::test {
namespace {

Shape random_shape(Rng& rng) {
  switch (random_int(rng, 0, 2)) {
    case 0: return {random_int(rng, 1, 300)};
    case 1: return {random_int(rng, 1, 7), random_int(rng, 1, 13)};
    default: return {random_int(rng, 1, 3), random_int(rng, 1, 5), random_int(rng, 1, 7), random_int(rng, 1, 7)};
  }
}

}  // namespace

std::vector<Case> elementwise_cases() {
  std::vector<Case> cases;
  Rng rng(0xE1E);
  std::uint64_t seed = 7000;
  for (int i = 0; i < 8; ++i) {
    Shape s = random_shape(rng);
    std::string name = shape_string(s);
    double n = double(shape_numel(s));
    double alpha = random_real(rng, -2, 2), beta = random_real(rng, -2, 2);
    auto add_case = [&](const char* op, std::string label, std::function<void(OpRun&)> body) {
      cases.push_back({op, label, seed++, std::move(body)});
    };
    add_case("fill", name, [s, alpha](OpRun& r) {
      Tensor x = r.output(s);
      r.backend().fill(x, alpha);
      r.keep("x", x);
    });
    add_case("copy", name, [s](OpRun& r) {
      Tensor src = r.input(s), dst = r.output(s);
      r.backend().copy(src, dst);
      r.keep("dst", dst, 1, true);
    });
    add_case("scale", name, [s, alpha](OpRun& r) {
      Tensor x = r.input(s);
      r.backend().scale(x, alpha);
      r.keep("x", x);
    });
    add_case("axpy", name, [s, alpha](OpRun& r) {
      Tensor x = r.input(s), y = r.input(s);
      r.backend().axpy(alpha, x, y);
      r.keep("y", y);
    });
    add_case("axpby", name, [s, alpha, beta](OpRun& r) {
      Tensor x = r.input(s), y = r.input(s);
      r.backend().axpby(alpha, x, beta, y);
      r.keep("y", y);
    });
    add_case("axpby", name + " beta 0", [s, alpha](OpRun& r) {
      Tensor x = r.input(s), y = r.input(s);
      r.backend().axpby(alpha, x, 0.0, y);
      r.keep("y", y);
    });
    add_case("add", name, [s](OpRun& r) {
      Tensor a = r.input(s), b = r.input(s), out = r.output(s);
      r.backend().add(a, b, out);
      r.keep("out", out);
    });
    add_case("add", name + " out aliasing a", [s](OpRun& r) {
      Tensor a = r.input(s), b = r.input(s);
      r.backend().add(a, b, a);
      r.keep("out (in a)", a);
    });
    add_case("mul", name, [s](OpRun& r) {
      Tensor a = r.input(s), b = r.input(s), out = r.output(s);
      r.backend().mul(a, b, out);
      r.keep("out", out);
    });
    add_case("mul", name + " out aliasing b", [s](OpRun& r) {
      Tensor a = r.input(s), b = r.input(s);
      r.backend().mul(a, b, b);
      r.keep("out (in b)", b);
    });
    add_case("sum", name, [s, n](OpRun& r) { r.keep_scalar("sum", r.backend().sum(r.input(s)), n); });
    add_case("sum_squares", name, [s, n](OpRun& r) {
      r.keep_scalar("sum_squares", r.backend().sum_squares(r.input(s)), n);
    });
  }
  for (int i = 0; i < 4; ++i) {
    Shape rows{random_int(rng, 1, 9), random_int(rng, 1, 12)};
    cases.push_back({"argmax_rows", shape_string(rows), seed++, [rows](OpRun& r) {
                       Tensor x = r.input(rows), out = r.place(Tensor({rows[0]}, DType::i32));
                       r.backend().argmax_rows(x, out);
                       r.keep("out", out, 1, true);
                     }});
  }
  for (int i = 0; i < 6; ++i) {
    Shape s = i % 2 ? Shape{random_int(rng, 1, 4), random_int(rng, 1, 6), random_int(rng, 1, 7), random_int(rng, 1, 7)}
                    : Shape{random_int(rng, 1, 9), random_int(rng, 1, 12)};
    double terms = double(shape_numel(s) / s[1]);
    cases.push_back({"bias_add", shape_string(s), seed++, [s](OpRun& r) {
                       Tensor y = r.input(s), bias = r.input({s[1]});
                       r.backend().bias_add(y, bias);
                       r.keep("y", y);
                     }});
    cases.push_back({"bias_backward", shape_string(s), seed++, [s, terms](OpRun& r) {
                       Tensor dy = r.input(s), dbias = r.output({s[1]});
                       r.backend().bias_backward(dy, dbias);
                       r.keep("dbias", dbias, terms);
                     }});
  }
  return cases;
}

}  // namespace ablate::kernels::test
