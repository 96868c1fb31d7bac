// Parameter updates of the frameworks' optimizers, one elementwise pass over w, exactly as
// documented in op_params.h, in the parameter's precision:
//   Caffe SGD (sgd_solver.cpp):  g += wd w;  h = momentum h + lr g;  w -= h
//   Torch optim.sgd:             g += wd w;  v = first ? g : momentum v + (1 - dampening) g;
//                                step = nesterov ? g + momentum v : v;  w -= lr step
//                                (momentum 0: step = g, v untouched)
//   TF AdamOptimizer:            lr_t = lr sqrt(1 - b2^t) / (1 - b1^t);  m = b1 m + (1 - b1) g;
//                                v = b2 v + (1 - b2) g^2;  w -= lr_t m / (sqrt(v) + eps)
#include <cmath>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {

void CpuBackend::caffe_sgd_update_impl(Tensor& w, Tensor& g, Tensor& history, const CaffeSgdParams& p) {
  dispatch_float(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *pw = w.data<T>(), *pg = g.data<T>(), *ph = history.data<T>();
    const T lr = static_cast<T>(p.lr), mom = static_cast<T>(p.momentum), wd = static_cast<T>(p.weight_decay);
    parallel_each(loop_threads_, w.numel(), [=](std::int64_t i) {
      pg[i] += wd * pw[i];
      ph[i] = mom * ph[i] + lr * pg[i];
      pw[i] -= ph[i];
    });
  });
}

void CpuBackend::torch_sgd_update_impl(Tensor& w, Tensor& g, Tensor& velocity, const TorchSgdParams& p) {
  dispatch_float(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *pw = w.data<T>(), *pg = g.data<T>(), *pv = velocity.data<T>();
    const T lr = static_cast<T>(p.lr), mom = static_cast<T>(p.momentum), wd = static_cast<T>(p.weight_decay),
            keep = static_cast<T>(1.0 - p.dampening);
    const bool first = p.first_step, nesterov = p.nesterov, use_buffer = p.momentum != 0;
    parallel_each(loop_threads_, w.numel(), [=](std::int64_t i) {
      pg[i] += wd * pw[i];
      T step = pg[i];  // momentum 0: Torch7 uses the gradient itself, no buffer
      if (use_buffer) {
        pv[i] = first ? pg[i] : mom * pv[i] + keep * pg[i];
        step = nesterov ? pg[i] + mom * pv[i] : pv[i];
      }
      pw[i] -= lr * step;
    });
  });
}

void CpuBackend::adam_update_impl(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamParams& p) {
  dispatch_float(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *pw = w.data<T>(), *pm = m.data<T>(), *pv = v.data<T>();
    const T* pg = g.data<T>();
    const double t = static_cast<double>(p.t);
    const T lr_t = static_cast<T>(p.lr * std::sqrt(1.0 - std::pow(p.beta2, t)) / (1.0 - std::pow(p.beta1, t)));
    const T b1 = static_cast<T>(p.beta1), b2 = static_cast<T>(p.beta2), eps = static_cast<T>(p.epsilon);
    parallel_each(loop_threads_, w.numel(), [=](std::int64_t i) {
      pm[i] = b1 * pm[i] + (T(1) - b1) * pg[i];
      pv[i] = b2 * pv[i] + (T(1) - b2) * pg[i] * pg[i];
      pw[i] -= lr_t * pm[i] / (std::sqrt(pv[i]) + eps);
    });
  });
}

}  // namespace ablate::kernels::cpu
