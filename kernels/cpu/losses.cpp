// Classification losses over logits [N,K] and i32 labels [N], each the batch mean:
// softmax cross-entropy (Caffe's SoftmaxWithLossLayer, TF's
// softmax_cross_entropy_with_logits) and negative log-likelihood over log-probabilities
// (Torch's ClassNLLCriterion after LogSoftMax, Theano's -mean(log p[y])).
#include <algorithm>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/softmax_rows.h"

namespace ablate::kernels::cpu {
// prob = softmax(logits); loss = mean_n (log sum_k exp(logits[n,k]) - logits[n, label_n]),
// which is -log prob[n, label_n] without rounding prob first.
double CpuBackend::softmax_xent_forward_impl(const Tensor& logits, const Tensor& labels, Tensor& prob) {
  const std::int64_t n = logits.dim(0), k = logits.dim(1);
  if (n == 0) return 0.0;
  return dispatch_float(logits.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = logits.data<T>();
    T* p = prob.data<T>();
    const std::int32_t* l = labels.data<std::int32_t>();
    const double total = parallel_sum(loop_threads_, n, row_grain(k), [&](std::int64_t b, std::int64_t e) {
      double s = 0;
      for (std::int64_t r = b; r < e; ++r) {
        const double target = x[r * k + l[r]];  // read before prob (which may alias logits) is written
        s += softmax_row(x + r * k, p + r * k, k) - target;
      }
      return s;
    });
    return total / static_cast<double>(n);
  });
}

void CpuBackend::softmax_xent_backward_impl(const Tensor& prob, const Tensor& labels, double scale, Tensor& dlogits) {
  const std::int64_t n = prob.dim(0), k = prob.dim(1);
  dispatch_float(prob.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = prob.data<T>();
    T* d = dlogits.data<T>();
    const std::int32_t* l = labels.data<std::int32_t>();
    const T s = static_cast<T>(scale);
    parallel_for(loop_threads_, n, row_grain(k), [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t r = b; r < e; ++r)
        for (std::int64_t j = 0; j < k; ++j) d[r * k + j] = (p[r * k + j] - (j == l[r] ? T(1) : T(0))) * s;
    });
  });
}

double CpuBackend::nll_forward_impl(const Tensor& logp, const Tensor& labels) {
  const std::int64_t n = logp.dim(0), k = logp.dim(1);
  if (n == 0) return 0.0;
  return dispatch_float(logp.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* lp = logp.data<T>();
    const std::int32_t* l = labels.data<std::int32_t>();
    double total = 0;
    for (std::int64_t r = 0; r < n; ++r) total -= static_cast<double>(lp[r * k + l[r]]);
    return total / static_cast<double>(n);
  });
}

void CpuBackend::nll_backward_impl(const Tensor& labels, double scale, Tensor& dlogp) {
  const std::int64_t n = dlogp.dim(0), k = dlogp.dim(1);
  dispatch_float(dlogp.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* d = dlogp.data<T>();
    const std::int32_t* l = labels.data<std::int32_t>();
    std::fill(d, d + n * k, T(0));
    for (std::int64_t r = 0; r < n; ++r) d[r * k + l[r]] = static_cast<T>(-scale);
  });
}

}  // namespace ablate::kernels::cpu
