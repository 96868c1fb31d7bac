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
#include "kernels/reference/reference_checks.h"

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

// Checks x as rows [N,K] with K >= 1 and returns {N, K}.
std::pair<std::int64_t, std::int64_t> check_rows(const char* op, const char* arg, const Tensor& x) {
  require_float(op, arg, x);
  require_ndim(op, arg, x, 2);
  if (x.dim(1) < 1) fail(op, std::string(arg) + " is " + x.describe() + ", expected at least one class");
  return {x.dim(0), x.dim(1)};
}

// Labels i32 [N], each in [0, K).
const std::int32_t* check_labels(const char* op, const Tensor& labels, std::int64_t N, std::int64_t K) {
  require_dtype(op, "labels", labels, DType::i32);
  require_shape(op, "labels", labels, {N});
  const std::int32_t* l = labels.data<std::int32_t>();
  for (std::int64_t n = 0; n < N; ++n)
    if (l[n] < 0 || l[n] >= K)
      fail(op, "label " + std::to_string(l[n]) + " of row " + std::to_string(n) + ", expected a class in [0, " +
                   std::to_string(K) + ")");
  return l;
}

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
void normalise_rows_op(const char* op, const Tensor& x, Tensor& y, bool log_space) {
  auto [N, K] = check_rows(op, "x", x);
  require_like_shape(op, "y", y, x, x.shape());
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    normalise_rows(x.data<T>(), N, K, log_space, y.data<T>());
  });
}

}  // namespace

void ReferenceBackend::softmax_forward(const Tensor& x, Tensor& y) {
  normalise_rows_op("softmax_forward", x, y, false);
}

void ReferenceBackend::log_softmax_forward(const Tensor& x, Tensor& y) {
  normalise_rows_op("log_softmax_forward", x, y, true);
}

void ReferenceBackend::log_softmax_backward(const Tensor& y, const Tensor& dy, Tensor& dx) {
  const char* op = "log_softmax_backward";
  auto [N, K] = check_rows(op, "y", y);
  require_like(op, "dy", dy, y);
  require_like(op, "dx", dx, y);
  require_shape(op, "dy", dy, y.shape());
  require_shape(op, "dx", dx, y.shape());
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

double ReferenceBackend::softmax_xent_forward(const Tensor& logits, const Tensor& labels, Tensor& prob) {
  const char* op = "softmax_xent_forward";
  auto [N, K] = check_rows(op, "logits", logits);
  require_like_shape(op, "prob", prob, logits, logits.shape());
  const std::int32_t* label = check_labels(op, labels, N, K);
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

void ReferenceBackend::softmax_xent_backward(const Tensor& prob, const Tensor& labels, double scale, Tensor& dlogits) {
  const char* op = "softmax_xent_backward";
  auto [N, K] = check_rows(op, "prob", prob);
  require_like_shape(op, "dlogits", dlogits, prob, prob.shape());
  const std::int32_t* label = check_labels(op, labels, N, K);
  with_float_type(prob.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = prob.data<T>();
    T* d = dlogits.data<T>();
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t k = 0; k < K; ++k)
        d[n * K + k] = static_cast<T>((double(p[n * K + k]) - (k == label[n] ? 1.0 : 0.0)) * scale);
  });
}

double ReferenceBackend::nll_forward(const Tensor& logp, const Tensor& labels) {
  const char* op = "nll_forward";
  auto [N, K] = check_rows(op, "logp", logp);
  const std::int32_t* label = check_labels(op, labels, N, K);
  return with_float_type(logp.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* lp = logp.data<T>();
    double loss = 0;
    for (std::int64_t n = 0; n < N; ++n) loss -= lp[n * K + label[n]];
    return N ? loss / N : 0.0;
  });
}

void ReferenceBackend::nll_backward(const Tensor& labels, double scale, Tensor& dlogp) {
  const char* op = "nll_backward";
  auto [N, K] = check_rows(op, "dlogp", dlogp);
  const std::int32_t* label = check_labels(op, labels, N, K);
  with_float_type(dlogp.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* d = dlogp.data<T>();
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t k = 0; k < K; ++k) d[n * K + k] = k == label[n] ? static_cast<T>(-scale) : T(0);
  });
}

}  // namespace ablate::kernels::reference
