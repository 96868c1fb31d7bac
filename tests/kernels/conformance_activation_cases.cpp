// Conformance cases of every activation of kernels/activation_list.h: relu, tanh and sigmoid
// through activation_forward/backward, GELU (exact and tanh) through gelu_forward/backward,
// forward and backward, out of place and in place (y aliasing x, dx aliasing dy, as Caffe's
// in-place layers call them), and of dropout masks, which must match the reference bit for bit.
#include <functional>
#include <sstream>
#include <string>

#include "conformance.h"
#include "kernels/activation_list.h"
#include "kernels/op_params.h"

namespace ablate::kernels::test {
namespace {

Shape random_activation_shape(Rng& rng) {
  switch (random_int(rng, 0, 2)) {
    case 0: return {random_int(rng, 1, 40)};
    case 1: return {random_int(rng, 1, 5), random_int(rng, 1, 17)};
    default: return {random_int(rng, 1, 3), random_int(rng, 1, 4), random_int(rng, 1, 9), random_int(rng, 1, 9)};
  }
}

// A plausible forward output for backward's input: relu's has exact zeros.
Tensor activation_output(OpRun& r, Activation a, const Shape& shape) {
  Tensor y = random_tensor(shape, r.dtype(), r.rng(), a == Activation::sigmoid ? 0.0 : -1.0, 1.0);
  if (a == Activation::relu)
    for (std::int64_t i = 0; i < y.numel(); ++i)
      if (y.at(i) < 0) y.set(i, 0.0);
  return r.place(y);
}

// One pointwise op family: forward(b, x, y); saved(r, shape) draws what its backward reads
// (y for the activations, x for GELU); backward(b, saved, dy, dx).
struct Pointwise {
  const char *forward_op, *backward_op;
  double lo, hi;  // the forward's input range
  std::function<void(Backend&, const Tensor&, Tensor&)> forward;
  std::function<Tensor(OpRun&, const Shape&)> saved;
  std::function<void(Backend&, const Tensor&, const Tensor&, Tensor&)> backward;
};

// The four cases of one shape: forward out of place and in place (y in x), backward out of
// place and in place (dx in dy).
void add_pointwise_cases(std::vector<Case>& cases, const Pointwise& p, const std::string& name, const Shape& shape,
                         std::uint64_t& seed) {
  cases.push_back({p.forward_op, name, seed++, [p, shape](OpRun& r) {
                     Tensor x = r.input(shape, p.lo, p.hi), y = r.output(shape);
                     p.forward(r.backend(), x, y);
                     r.keep("y", y);
                   }});
  cases.push_back({p.forward_op, name + " in place", seed++, [p, shape](OpRun& r) {
                     Tensor x = r.input(shape, p.lo, p.hi);
                     p.forward(r.backend(), x, x);
                     r.keep("y (in x)", x);
                   }});
  cases.push_back({p.backward_op, name, seed++, [p, shape](OpRun& r) {
                     Tensor saved = p.saved(r, shape), dy = r.input(shape), dx = r.output(shape);
                     p.backward(r.backend(), saved, dy, dx);
                     r.keep("dx", dx);
                   }});
  cases.push_back({p.backward_op, name + " in place", seed++, [p, shape](OpRun& r) {
                     Tensor saved = p.saved(r, shape), dy = r.input(shape);
                     p.backward(r.backend(), saved, dy, dy);
                     r.keep("dx (in dy)", dy);
                   }});
}

}  // namespace

std::vector<Case> activation_cases() {
  std::vector<Case> cases;
  Rng rng(0xAC7);
  std::uint64_t seed = 4000;
  for (Activation a : kActivations) {
    if (is_gelu(a)) continue;  // below, as gelu_forward/backward
    const Pointwise p{"activation_forward", "activation_backward", -4.0, 4.0,
                      [a](Backend& b, const Tensor& x, Tensor& y) { b.activation_forward(a, x, y); },
                      [a](OpRun& r, const Shape& shape) { return activation_output(r, a, shape); },
                      [a](Backend& b, const Tensor& y, const Tensor& dy, Tensor& dx) {
                        b.activation_backward(a, y, dy, dx);
                      }};
    for (int i = 0; i < 6; ++i) {
      Shape shape = random_activation_shape(rng);
      add_pointwise_cases(cases, p, std::string(activation_name(a)) + " " + shape_string(shape), shape, seed);
    }
  }
  for (Activation a : kActivations) {
    if (!is_gelu(a)) continue;
    const GeluApprox approx = gelu_approx_of(a);
    const Pointwise p{"gelu_forward", "gelu_backward", -5.0, 5.0,
                      [approx](Backend& b, const Tensor& x, Tensor& y) { b.gelu_forward(x, y, approx); },
                      [](OpRun& r, const Shape& shape) { return r.input(shape, -5.0, 5.0); },
                      [approx](Backend& b, const Tensor& x, const Tensor& dy, Tensor& dx) {
                        b.gelu_backward(x, dy, dx, approx);
                      }};
    for (int i = 0; i < 6; ++i) {
      Shape shape = random_activation_shape(rng);
      add_pointwise_cases(cases, p, std::string(activation_name(a)) + " " + shape_string(shape), shape, seed);
    }
  }
  return cases;
}

std::vector<Case> dropout_cases() {
  std::vector<Case> cases;
  std::uint64_t seed = 4500;
  for (double keep : {0.5, 0.8, 1.0})
    for (Shape shape : {Shape{7}, Shape{3, 50}, Shape{2, 3, 5, 7}}) {
      std::ostringstream name;
      name << "keep " << keep << ", mask " << shape_string(shape);
      cases.push_back({"dropout_mask", name.str(), seed, [keep, shape, seed](OpRun& r) {
                         Tensor mask = r.output(shape);
                         r.backend().dropout_mask(mask, keep, seed * 7919);
                         r.keep("mask", mask, 1, true);
                       }});
      ++seed;
    }
  return cases;
}

}  // namespace ablate::kernels::test
