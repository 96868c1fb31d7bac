// Parameter updates of the frameworks' optimizers, one elementwise pass over w, exactly as
// documented in op_params.h, in the parameter's precision:
//   Caffe SGD (sgd_solver.cpp):  g += wd w;  h = momentum h + lr g;  w -= h
//   Torch optim.sgd:             g += wd w;  v = first ? g : momentum v + (1 - dampening) g;
//                                step = nesterov ? g + momentum v : v;  w -= lr step
//                                (momentum 0: step = g, v untouched)
//   TF AdamOptimizer:            lr_t = lr sqrt(1 - b2^t) / (1 - b1^t);  m = b1 m + (1 - b1) g;
//                                v = b2 v + (1 - b2) g^2;  w -= lr_t m / (sqrt(v) + eps)
// Each loop takes its pointers as __restrict locals and its constants as locals: through the
// lambda's captures GCC reloaded the constants every element and ran the scalar loop (Adam over
// TF MNIST's fc1 weights: 10.0 ms, a sixth of a training step; bench/micro/update_bench.cpp).
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
    parallel_for(loop_threads_, w.numel(), kElementwiseGrain, [=](std::int64_t begin, std::int64_t end) {
      T* __restrict wr = pw;
      T* __restrict gr = pg;
      T* __restrict hr = ph;
      const T rate = lr, momentum = mom, decay = wd;
      for (std::int64_t i = begin; i < end; ++i) {
        gr[i] += decay * wr[i];
        hr[i] = momentum * hr[i] + rate * gr[i];
        wr[i] -= hr[i];
      }
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
    parallel_for(loop_threads_, w.numel(), kElementwiseGrain, [=](std::int64_t begin, std::int64_t end) {
      T* __restrict wr = pw;
      T* __restrict gr = pg;
      T* __restrict vr = pv;
      const T rate = lr, momentum = mom, decay = wd, kept = keep;
      if (!use_buffer) {  // momentum 0 (the Torch presets): Torch7 uses the gradient itself, no buffer
        for (std::int64_t i = begin; i < end; ++i) {
          gr[i] += decay * wr[i];
          wr[i] -= rate * gr[i];
        }
        return;
      }
      for (std::int64_t i = begin; i < end; ++i) {
        gr[i] += decay * wr[i];
        vr[i] = first ? gr[i] : momentum * vr[i] + kept * gr[i];
        wr[i] -= rate * (nesterov ? gr[i] + momentum * vr[i] : vr[i]);
      }
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
    parallel_for(loop_threads_, w.numel(), kElementwiseGrain, [=](std::int64_t begin, std::int64_t end) {
      T* __restrict wr = pw;
      T* __restrict mr = pm;
      T* __restrict vr = pv;
      const T* __restrict gr = pg;
      const T rate = lr_t, beta1 = b1, beta2 = b2, epsilon = eps;
      for (std::int64_t i = begin; i < end; ++i) {
        mr[i] = beta1 * mr[i] + (T(1) - beta1) * gr[i];
        vr[i] = beta2 * vr[i] + (T(1) - beta2) * gr[i] * gr[i];
        wr[i] -= rate * mr[i] / (std::sqrt(vr[i]) + epsilon);
      }
    });
  });
}

}  // namespace ablate::kernels::cpu
