// Parameter updates of the frameworks' optimizers on the CPU backends: one elementwise pass
// over w, split over the threads, each range by the rule of kernels/cpu/update_rules.h (Caffe
// SGD, Torch SGD, TF's Adam, as documented in op_params.h), in the parameter's precision.
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/update_rules.h"

namespace ablate::kernels::cpu {

void CpuBackend::caffe_sgd_update_impl(Tensor& w, Tensor& g, Tensor& history, const CaffeSgdParams& p) {
  dispatch_float(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *pw = w.data<T>(), *pg = g.data<T>(), *ph = history.data<T>();
    const CaffeSgdRule<T> rule(p);
    parallel_for(loop_threads_, w.numel(), kElementwiseGrain, [=](std::int64_t begin, std::int64_t end) {
      rule.apply(pw + begin, pg + begin, ph + begin, end - begin);
    });
  });
}

void CpuBackend::torch_sgd_update_impl(Tensor& w, Tensor& g, Tensor& velocity, const TorchSgdParams& p) {
  dispatch_float(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *pw = w.data<T>(), *pg = g.data<T>(), *pv = velocity.data<T>();
    const TorchSgdRule<T> rule(p);
    parallel_for(loop_threads_, w.numel(), kElementwiseGrain, [=](std::int64_t begin, std::int64_t end) {
      rule.apply(pw + begin, pg + begin, pv + begin, end - begin);
    });
  });
}

void CpuBackend::adam_update_impl(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamParams& p) {
  dispatch_float(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T *pw = w.data<T>(), *pm = m.data<T>(), *pv = v.data<T>();
    const T* pg = g.data<T>();
    const AdamRule<T> rule(p);
    parallel_for(loop_threads_, w.numel(), kElementwiseGrain, [=](std::int64_t begin, std::int64_t end) {
      rule.apply(pw + begin, pg + begin, pm + begin, pv + begin, end - begin);
    });
  });
}

}  // namespace ablate::kernels::cpu
