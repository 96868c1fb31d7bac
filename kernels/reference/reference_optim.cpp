// The optimizer updates of one parameter w with gradient g, elementwise, exactly as written
// in kernels/op_params.h (each element computed in double, rounded once):
//  Caffe SGD (sgd_solver.cpp):  g += wd w;  h = momentum h + lr g;  w -= h
//  Torch optim.sgd:             g += wd w;  v = first ? g : momentum v + (1 - dampening) g;
//                               step = nesterov ? g + momentum v : v;  w -= lr step
//                               (momentum 0: step = g, v untouched)
//  TF AdamOptimizer:            lr_t = lr sqrt(1 - b2^t) / (1 - b1^t);  m = b1 m + (1 - b1) g;
//                               v = b2 v + (1 - b2) g^2;  w -= lr_t m / (sqrt(v) + eps)
// g ends holding the regularised gradient (g + wd w) for the two SGDs.
#include <cmath>

#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {

void ReferenceBackend::caffe_sgd_update_impl(Tensor& w, Tensor& g, Tensor& history, const CaffeSgdParams& p) {
  with_float_type(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *pw = w.data<T>(), *pg = g.data<T>(), *ph = history.data<T>();
    for (std::int64_t i = 0; i < w.numel(); ++i) {
      double grad = pg[i] + p.weight_decay * pw[i];
      double h = p.momentum * ph[i] + p.lr * grad;
      pg[i] = static_cast<T>(grad);
      ph[i] = static_cast<T>(h);
      pw[i] = static_cast<T>(pw[i] - h);
    }
  });
}

void ReferenceBackend::torch_sgd_update_impl(Tensor& w, Tensor& g, Tensor& velocity, const TorchSgdParams& p) {
  with_float_type(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *pw = w.data<T>(), *pg = g.data<T>(), *pv = velocity.data<T>();
    for (std::int64_t i = 0; i < w.numel(); ++i) {
      double grad = pg[i] + p.weight_decay * pw[i];
      double step = grad;  // momentum 0: Torch7 uses the gradient itself, no buffer
      if (p.momentum != 0) {
        double v = p.first_step ? grad : p.momentum * pv[i] + (1 - p.dampening) * grad;
        pv[i] = static_cast<T>(v);
        step = p.nesterov ? grad + p.momentum * v : v;
      }
      pg[i] = static_cast<T>(grad);
      pw[i] = static_cast<T>(pw[i] - p.lr * step);
    }
  });
}

void ReferenceBackend::adam_update_impl(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamParams& p) {
  double t = static_cast<double>(p.t);
  double lr_t = p.lr * std::sqrt(1 - std::pow(p.beta2, t)) / (1 - std::pow(p.beta1, t));
  with_float_type(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *pw = w.data<T>(), *pm = m.data<T>(), *pv = v.data<T>();
    const T* pg = g.data<T>();
    for (std::int64_t i = 0; i < w.numel(); ++i) {
      double grad = pg[i];
      double mi = p.beta1 * pm[i] + (1 - p.beta1) * grad;
      double vi = p.beta2 * pv[i] + (1 - p.beta2) * grad * grad;
      pm[i] = static_cast<T>(mi);
      pv[i] = static_cast<T>(vi);
      pw[i] = static_cast<T>(pw[i] - lr_t * mi / (std::sqrt(vi) + p.epsilon));
    }
  });
}

}  // namespace ablate::kernels::reference
