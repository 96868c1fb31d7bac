// Softmax, log-softmax and the losses over logits [N,K] with i32 labels [N]:
//  - softmax cross-entropy (Caffe's SoftmaxWithLoss, TF's softmax_cross_entropy_with_logits):
//    prob = softmax(logits), loss = mean_n -log prob[n, label_n],
//    dlogits = (prob - onehot(label)) * scale;
//  - log-softmax + NLL (Torch's nn.LogSoftMax + nn.ClassNLLCriterion, Theano's tutorial):
//    y = x - log sum_k exp(x_k), dx = dy - exp(y) * sum_k dy_k;
//    nll = mean_n -logp[n, label_n], dlogp = -scale at the label, 0 elsewhere.
// Rows are normalised with the maximum subtracted (log-sum-exp), sums are in double, and the
// cross-entropy loss is (max - x[label]) + log sum exp(x - max), exact even when prob underflows.
#include <algorithm>
#include <cmath>
#include <utility>

#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {
namespace {

// A row's log-softmax normaliser split as max_k x_k and log sum_k exp(x_k - max), so that
// log p_k = (x_k - max) - log_sum keeps full precision when the logits are large.
struct RowNormaliser {
  double max, log_sum;
};
template <class T> RowNormaliser row_normaliser(const T* row, std::int64_t K) {
  double m = row[0];
  for (std::int64_t k = 1; k < K; ++k) m = std::max(m, double(row[k]));
  double s = 0;
  for (std::int64_t k = 0; k < K; ++k) s += std::exp(row[k] - m);
  return {m, std::log(s)};
}

// {N, K} of rows x [N,K].
std::pair<std::int64_t, std::int64_t> rows_of(const Tensor& x) { return {x.dim(0), x.dim(1)}; }

// out = log p = (x - max) - log_sum per row, or p itself (softmax); out may alias x.
template <class T> void normalise_rows(const T* x, std::int64_t N, std::int64_t K, bool log_space, T* out) {
  for (std::int64_t n = 0; n < N; ++n) {
    RowNormaliser z = row_normaliser(x + n * K, K);
    for (std::int64_t k = 0; k < K; ++k) {
      double logp = (x[n * K + k] - z.max) - z.log_sum;
      out[n * K + k] = static_cast<T>(log_space ? logp : std::exp(logp));
    }
  }
}

// softmax_forward (log_space false) and log_softmax_forward (true): x [N,K] -> y [N,K].
void normalise_rows_op(const Tensor& x, Tensor& y, bool log_space) {
  auto [N, K] = rows_of(x);
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    normalise_rows(x.data<T>(), N, K, log_space, y.data<T>());
  });
}

}  // namespace

void ReferenceBackend::softmax_forward_impl(const Tensor& x, Tensor& y) {
  normalise_rows_op(x, y, false);
}

void ReferenceBackend::log_softmax_forward_impl(const Tensor& x, Tensor& y) {
  normalise_rows_op(x, y, true);
}

void ReferenceBackend::log_softmax_backward_impl(const Tensor& y, const Tensor& dy, Tensor& dx) {
  auto [N, K] = rows_of(y);
  with_float_type(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *out = y.data<T>(), *d_out = dy.data<T>();
    T* d_in = dx.data<T>();
    for (std::int64_t n = 0; n < N; ++n) {
      double total = 0;  // summed before dx is written, so dx may alias dy
      for (std::int64_t k = 0; k < K; ++k) total += d_out[n * K + k];
      for (std::int64_t k = 0; k < K; ++k)
        d_in[n * K + k] = static_cast<T>(d_out[n * K + k] - std::exp(double(out[n * K + k])) * total);
    }
  });
}

double ReferenceBackend::softmax_xent_forward_impl(const Tensor& logits, const Tensor& labels, Tensor& prob) {
  auto [N, K] = rows_of(logits);
  const std::int32_t* label = labels.data<std::int32_t>();
  return with_float_type(logits.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* x = logits.data<T>();
    double loss = 0;
    for (std::int64_t n = 0; n < N; ++n) {
      RowNormaliser z = row_normaliser(x + n * K, K);
      loss += (z.max - x[n * K + label[n]]) + z.log_sum;  // -log p[label]
    }
    normalise_rows(x, N, K, false, prob.data<T>());  // after the loss: prob may alias logits
    return N ? loss / N : 0.0;
  });
}

void ReferenceBackend::softmax_xent_backward_impl(const Tensor& prob, const Tensor& labels, double scale,
                                                  Tensor& dlogits) {
  auto [N, K] = rows_of(prob);
  const std::int32_t* label = labels.data<std::int32_t>();
  with_float_type(prob.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = prob.data<T>();
    T* d = dlogits.data<T>();
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t k = 0; k < K; ++k)
        d[n * K + k] = static_cast<T>((double(p[n * K + k]) - (k == label[n] ? 1.0 : 0.0)) * scale);
  });
}

double ReferenceBackend::nll_forward_impl(const Tensor& logp, const Tensor& labels) {
  auto [N, K] = rows_of(logp);
  const std::int32_t* label = labels.data<std::int32_t>();
  return with_float_type(logp.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* lp = logp.data<T>();
    double loss = 0;
    for (std::int64_t n = 0; n < N; ++n) loss -= lp[n * K + label[n]];
    return N ? loss / N : 0.0;
  });
}

void ReferenceBackend::nll_backward_impl(const Tensor& labels, double scale, Tensor& dlogp) {
  auto [N, K] = rows_of(dlogp);
  const std::int32_t* label = labels.data<std::int32_t>();
  with_float_type(dlogp.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* d = dlogp.data<T>();
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t k = 0; k < K; ++k) d[n * K + k] = k == label[n] ? static_cast<T>(-scale) : T(0);
  });
}

}  // namespace ablate::kernels::reference
