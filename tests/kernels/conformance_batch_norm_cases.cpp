// Conformance cases of batch normalisation: [N,C] and [N,C,H,W] inputs of odd sizes with a
// mean away from 0, with scale and shift, without either (Caffe's BatchNorm alone) and with the
// scale alone; the training forward (y and the batch statistics), the inference forward with
// given statistics, and the backward with every output, without dx (a first layer) and with dx
// in dy's storage. Sums run over M = N*H*W values per channel: that is the reduction length.
#include <sstream>

#include "conformance.h"

namespace ablate::kernels::test {
namespace {

enum class Affine { both, none, scale_only };

const char* affine_name(Affine a) {
  return a == Affine::both ? "gamma, beta" : a == Affine::none ? "no affine" : "gamma only";
}

struct BatchCase {
  Shape x;
  Affine affine;
  double epsilon;
  std::int64_t channels() const { return x[1]; }
  double values_per_channel() const { return double(shape_numel(x) / x[1]); }
};

// gamma and beta as the case wants them (an empty tensor for an absent one).
std::pair<Tensor, Tensor> affine_of(OpRun& r, const BatchCase& b) {
  Tensor gamma = b.affine == Affine::none ? Tensor() : r.input({b.channels()}, 0.5, 2.0);
  Tensor beta = b.affine == Affine::both ? r.input({b.channels()}) : Tensor();
  return {gamma, beta};
}

}  // namespace

std::vector<Case> batch_norm_cases() {
  std::vector<Case> cases;
  Rng rng(0xB47C);
  std::uint64_t seed = 9000;
  for (Affine affine : {Affine::both, Affine::none, Affine::scale_only})
    for (int i = 0; i < 4; ++i) {
      const Shape x = i % 2 == 0 ? Shape{random_int(rng, 3, 9), random_int(rng, 1, 7)}
                                 : Shape{random_int(rng, 1, 4), random_int(rng, 1, 6), random_int(rng, 1, 6),
                                         random_int(rng, 2, 7)};
      const BatchCase b{x, affine, i == 3 ? 1e-3 : 1e-5};
      std::ostringstream name;
      name << "x " << shape_string(x) << ", " << affine_name(affine) << ", eps " << b.epsilon;
      const double m = b.values_per_channel();
      cases.push_back({"batch_norm_forward_training", name.str(), seed++, [b, m](OpRun& r) {
                         Tensor x = r.input(b.x, -1.0, 3.0), y = r.output(b.x);
                         Tensor mean = r.output({b.channels()}), var = r.output({b.channels()});
                         auto [gamma, beta] = affine_of(r, b);
                         r.backend().batch_norm_forward_training(x, gamma, beta, b.epsilon, y, mean, var);
                         r.keep("y", y, m);
                         r.keep("mean", mean, m);
                         r.keep("var", var, m);
                       }});
      cases.push_back({"batch_norm_forward_training", name.str() + ", y in x", seed++, [b, m](OpRun& r) {
                         Tensor x = r.input(b.x, -1.0, 3.0);
                         Tensor mean = r.output({b.channels()}), var = r.output({b.channels()});
                         auto [gamma, beta] = affine_of(r, b);
                         r.backend().batch_norm_forward_training(x, gamma, beta, b.epsilon, x, mean, var);
                         r.keep("y (in x)", x, m);
                       }});
      cases.push_back({"batch_norm_forward_inference", name.str(), seed++, [b](OpRun& r) {
                         Tensor x = r.input(b.x, -1.0, 3.0), y = r.output(b.x);
                         Tensor mean = r.input({b.channels()}), var = r.input({b.channels()}, 0.1, 2.0);
                         auto [gamma, beta] = affine_of(r, b);
                         r.backend().batch_norm_forward_inference(x, gamma, beta, mean, var, b.epsilon, y);
                         r.keep("y", y);
                       }});
      cases.push_back({"batch_norm_backward", name.str(), seed++, [b, m](OpRun& r) {
                         Tensor x = r.input(b.x, -1.0, 3.0), y = r.output(b.x), dy = r.input(b.x);
                         Tensor mean = r.output({b.channels()}), var = r.output({b.channels()});
                         auto [gamma, beta] = affine_of(r, b);
                         r.backend().batch_norm_forward_training(x, gamma, beta, b.epsilon, y, mean, var);
                         Tensor dx = r.output(b.x), dgamma = r.output({b.channels()}), dbeta = r.output({b.channels()});
                         r.backend().batch_norm_backward(x, dy, gamma, mean, var, b.epsilon, dx, dgamma, dbeta);
                         r.keep("dx", dx, m);
                         r.keep("dgamma", dgamma, m);
                         r.keep("dbeta", dbeta, m);
                       }});
      cases.push_back({"batch_norm_backward", name.str() + ", no dx, dx in dy", seed++, [b, m](OpRun& r) {
                         Tensor x = r.input(b.x, -1.0, 3.0), y = r.output(b.x), dy = r.input(b.x);
                         Tensor mean = r.output({b.channels()}), var = r.output({b.channels()});
                         auto [gamma, beta] = affine_of(r, b);
                         r.backend().batch_norm_forward_training(x, gamma, beta, b.epsilon, y, mean, var);
                         Tensor dgamma = r.output({b.channels()}), none;
                         r.backend().batch_norm_backward(x, dy, gamma, mean, var, b.epsilon, none, dgamma, none);
                         r.keep("dgamma (no dx, no dbeta)", dgamma, m);
                         r.backend().batch_norm_backward(x, dy, gamma, mean, var, b.epsilon, dy, none, none);
                         r.keep("dx (in dy)", dy, m);
                       }});
    }
  return cases;
}

}  // namespace ablate::kernels::test
