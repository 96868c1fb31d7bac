// ProfilingBackend: one trace span per op of the wrapped backend (see profiling_backend.h).
#include "kernels/profiling_backend.h"

#include <type_traits>

namespace ablate::kernels {

namespace {

double d(std::int64_t v) { return static_cast<double>(v); }

// 2 N K C KH KW OH OW for w [K,C,KH,KW] and the output-side tensor o [N,K,OH,OW].
double conv_flops(const Tensor& w, const Tensor& o) {
  return 2 * d(o.numel()) * d(w.numel() / w.dim(0));
}
// 2 N T KH KW OH OW for w [T,KH,KW] and o [N,K,OH,OW].
double conv_map_flops(const Tensor& w, const Tensor& o) {
  return 2 * d(o.dim(0)) * d(w.numel()) * d(o.dim(2)) * d(o.dim(3));
}
// 2 N I O for w [O,I] and the batch's N.
double linear_flops(const Tensor& w, std::int64_t n) { return 2 * d(n) * d(w.numel()); }

}  // namespace

ProfilingBackend::ProfilingBackend(Backend& inner, TraceRecorder& recorder) : inner_(inner), recorder_(recorder) {}

template <class Op>
auto ProfilingBackend::timed(const char* name, double flops, Op&& op) {
  TraceRecorder::Span span(recorder_, name, "op", flops);
  if constexpr (std::is_void_v<decltype(op())>) {
    op();
    if (inner_.device() != Device::cpu) inner_.synchronize();
  } else {
    auto result = op();
    if (inner_.device() != Device::cpu) inner_.synchronize();
    return result;
  }
}

void ProfilingBackend::gemm(bool ta, bool tb, double alpha, const Tensor& a, const Tensor& b, double beta, Tensor& c) {
  const double k = d(ta ? a.dim(0) : a.dim(1));
  timed("gemm", 2 * d(c.numel()) * k, [&] { inner_.gemm(ta, tb, alpha, a, b, beta, c); });
}
void ProfilingBackend::conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                                      const Conv2dParams& p) {
  timed("conv2d_forward", conv_flops(w, y), [&] { inner_.conv2d_forward(x, w, bias, y, p); });
}
void ProfilingBackend::conv2d_backward_data(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) {
  timed("conv2d_backward_data", conv_flops(w, dy), [&] { inner_.conv2d_backward_data(dy, w, dx, p); });
}
void ProfilingBackend::conv2d_backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                                               const Conv2dParams& p) {
  timed("conv2d_backward_weights", conv_flops(dw, dy), [&] { inner_.conv2d_backward_weights(x, dy, dw, dbias, p); });
}
void ProfilingBackend::conv2d_map_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& table,
                                          Tensor& y, const Conv2dParams& p) {
  timed("conv2d_map_forward", conv_map_flops(w, y), [&] { inner_.conv2d_map_forward(x, w, bias, table, y, p); });
}
void ProfilingBackend::conv2d_map_backward_data(const Tensor& dy, const Tensor& w, const Tensor& table, Tensor& dx,
                                                const Conv2dParams& p) {
  timed("conv2d_map_backward_data", conv_map_flops(w, dy),
        [&] { inner_.conv2d_map_backward_data(dy, w, table, dx, p); });
}
void ProfilingBackend::conv2d_map_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& table, Tensor& dw,
                                                   Tensor& dbias, const Conv2dParams& p) {
  timed("conv2d_map_backward_weights", conv_map_flops(dw, dy),
        [&] { inner_.conv2d_map_backward_weights(x, dy, table, dw, dbias, p); });
}
void ProfilingBackend::bias_add(Tensor& y, const Tensor& bias) {
  timed("bias_add", 0, [&] { inner_.bias_add(y, bias); });
}
void ProfilingBackend::bias_backward(const Tensor& dy, Tensor& dbias) {
  timed("bias_backward", 0, [&] { inner_.bias_backward(dy, dbias); });
}
void ProfilingBackend::linear_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y) {
  timed("linear_forward", linear_flops(w, x.dim(0)), [&] { inner_.linear_forward(x, w, bias, y); });
}
void ProfilingBackend::linear_backward_data(const Tensor& dy, const Tensor& w, Tensor& dx) {
  timed("linear_backward_data", linear_flops(w, dy.dim(0)), [&] { inner_.linear_backward_data(dy, w, dx); });
}
void ProfilingBackend::linear_backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias) {
  timed("linear_backward_weights", linear_flops(dw, dy.dim(0)),
        [&] { inner_.linear_backward_weights(x, dy, dw, dbias); });
}
void ProfilingBackend::pool2d_forward(const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) {
  timed("pool2d_forward", 0, [&] { inner_.pool2d_forward(x, y, workspace, p); });
}
void ProfilingBackend::pool2d_backward(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                                       Tensor& dx, const Pool2dParams& p) {
  timed("pool2d_backward", 0, [&] { inner_.pool2d_backward(x, y, dy, workspace, dx, p); });
}
void ProfilingBackend::activation_forward(Activation a, const Tensor& x, Tensor& y) {
  timed("activation_forward", 0, [&] { inner_.activation_forward(a, x, y); });
}
void ProfilingBackend::activation_backward(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) {
  timed("activation_backward", 0, [&] { inner_.activation_backward(a, y, dy, dx); });
}
void ProfilingBackend::lrn_forward(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) {
  timed("lrn_forward", 0, [&] { inner_.lrn_forward(x, y, workspace, p); });
}
void ProfilingBackend::lrn_backward(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                                    Tensor& dx, const LrnParams& p) {
  timed("lrn_backward", 0, [&] { inner_.lrn_backward(x, y, dy, workspace, dx, p); });
}
void ProfilingBackend::dropout_mask(Tensor& mask, double keep_prob, std::uint64_t seed, std::uint64_t first_index) {
  timed("dropout_mask", 0, [&] { inner_.dropout_mask(mask, keep_prob, seed, first_index); });
}
double ProfilingBackend::softmax_xent_forward(const Tensor& logits, const Tensor& labels, Tensor& prob) {
  return timed("softmax_xent_forward", 0, [&] { return inner_.softmax_xent_forward(logits, labels, prob); });
}
void ProfilingBackend::softmax_xent_backward(const Tensor& prob, const Tensor& labels, double scale, Tensor& dlogits) {
  timed("softmax_xent_backward", 0, [&] { inner_.softmax_xent_backward(prob, labels, scale, dlogits); });
}
void ProfilingBackend::softmax_forward(const Tensor& x, Tensor& y) {
  timed("softmax_forward", 0, [&] { inner_.softmax_forward(x, y); });
}
void ProfilingBackend::log_softmax_forward(const Tensor& x, Tensor& y) {
  timed("log_softmax_forward", 0, [&] { inner_.log_softmax_forward(x, y); });
}
void ProfilingBackend::log_softmax_backward(const Tensor& y, const Tensor& dy, Tensor& dx) {
  timed("log_softmax_backward", 0, [&] { inner_.log_softmax_backward(y, dy, dx); });
}
double ProfilingBackend::nll_forward(const Tensor& logp, const Tensor& labels) {
  return timed("nll_forward", 0, [&] { return inner_.nll_forward(logp, labels); });
}
void ProfilingBackend::nll_backward(const Tensor& labels, double scale, Tensor& dlogp) {
  timed("nll_backward", 0, [&] { inner_.nll_backward(labels, scale, dlogp); });
}
void ProfilingBackend::fill(Tensor& x, double value) {
  timed("fill", 0, [&] { inner_.fill(x, value); });
}
void ProfilingBackend::copy(const Tensor& src, Tensor& dst) {
  timed("copy", 0, [&] { inner_.copy(src, dst); });
}
void ProfilingBackend::scale(Tensor& x, double alpha) {
  timed("scale", 0, [&] { inner_.scale(x, alpha); });
}
void ProfilingBackend::axpy(double alpha, const Tensor& x, Tensor& y) {
  timed("axpy", 0, [&] { inner_.axpy(alpha, x, y); });
}
void ProfilingBackend::axpby(double alpha, const Tensor& x, double beta, Tensor& y) {
  timed("axpby", 0, [&] { inner_.axpby(alpha, x, beta, y); });
}
void ProfilingBackend::add(const Tensor& a, const Tensor& b, Tensor& out) {
  timed("add", 0, [&] { inner_.add(a, b, out); });
}
void ProfilingBackend::mul(const Tensor& a, const Tensor& b, Tensor& out) {
  timed("mul", 0, [&] { inner_.mul(a, b, out); });
}
double ProfilingBackend::sum(const Tensor& x) {
  return timed("sum", 0, [&] { return inner_.sum(x); });
}
double ProfilingBackend::sum_squares(const Tensor& x) {
  return timed("sum_squares", 0, [&] { return inner_.sum_squares(x); });
}
void ProfilingBackend::argmax_rows(const Tensor& x, Tensor& out) {
  timed("argmax_rows", 0, [&] { inner_.argmax_rows(x, out); });
}
void ProfilingBackend::caffe_sgd_update(Tensor& w, Tensor& g, Tensor& history, const CaffeSgdParams& p) {
  timed("caffe_sgd_update", 0, [&] { inner_.caffe_sgd_update(w, g, history, p); });
}
void ProfilingBackend::torch_sgd_update(Tensor& w, Tensor& g, Tensor& velocity, const TorchSgdParams& p) {
  timed("torch_sgd_update", 0, [&] { inner_.torch_sgd_update(w, g, velocity, p); });
}
void ProfilingBackend::adam_update(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamParams& p) {
  timed("adam_update", 0, [&] { inner_.adam_update(w, g, m, v, p); });
}

}  // namespace ablate::kernels
