// Conformance cases of the activations (relu, tanh, sigmoid), forward and backward, out of
// place and in place (y aliasing x, dx aliasing dy, as Caffe's in-place layers call them),
// and of dropout masks, which must match the reference bit for bit.
#include <sstream>

#include "conformance.h"
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

}  // namespace

std::vector<Case> activation_cases() {
  std::vector<Case> cases;
  Rng rng(0xAC7);
  std::uint64_t seed = 4000;
  for (Activation a : {Activation::relu, Activation::tanh, Activation::sigmoid})
    for (int i = 0; i < 6; ++i) {
      Shape shape = random_activation_shape(rng);
      std::string name = std::string(activation_name(a)) + " " + shape_string(shape);
      cases.push_back({"activation_forward", name, seed++, [a, shape](OpRun& r) {
                         Tensor x = r.input(shape, -4.0, 4.0), y = r.output(shape);
                         r.backend().activation_forward(a, x, y);
                         r.keep("y", y);
                       }});
      cases.push_back({"activation_forward", name + " in place", seed++, [a, shape](OpRun& r) {
                         Tensor x = r.input(shape, -4.0, 4.0);
                         r.backend().activation_forward(a, x, x);
                         r.keep("y (in x)", x);
                       }});
      cases.push_back({"activation_backward", name, seed++, [a, shape](OpRun& r) {
                         Tensor y = activation_output(r, a, shape), dy = r.input(shape), dx = r.output(shape);
                         r.backend().activation_backward(a, y, dy, dx);
                         r.keep("dx", dx);
                       }});
      cases.push_back({"activation_backward", name + " in place", seed++, [a, shape](OpRun& r) {
                         Tensor y = activation_output(r, a, shape), dy = r.input(shape);
                         r.backend().activation_backward(a, y, dy, dy);
                         r.keep("dx (in dy)", dy);
                       }});
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
