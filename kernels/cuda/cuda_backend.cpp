// The CUDA backend: factory, identity, host staging, cuBLAS GEMM and fully connected layers,
// and the ops on our own kernels (bias, elementwise, reductions, losses, dropout, optimizer
// updates). Convolution, pooling, LRN, activations and softmax are in cuda_dnn.cpp.
// Row-major [M,N] is column-major [N,M], so C = op(A) op(B) runs as C^T = op(B)^T op(A)^T.
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/cuda_backend_impl.h"
#include "kernels/cuda/cuda_kernels.h"

namespace ablate::kernels {

std::unique_ptr<Backend> make_cuda_backend() {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error
    throw std::runtime_error(std::string("backend 'cuda': no CUDA device found (cudaGetDeviceCount: ") +
                             cudaGetErrorString(e) + ")");
  }
  if (count == 0) throw std::runtime_error("backend 'cuda': no CUDA device found (cudaGetDeviceCount reports 0 devices)");
  const char* det = std::getenv("ABLATE_CUDA_DETERMINISTIC");
  return std::make_unique<cuda::CudaBackend>(0, det && std::string(det) == "1");
}

}  // namespace ablate::kernels

namespace ablate::kernels::cuda {

// --- shared helpers ---------------------------------------------------------------------

void fail(const char* op, const std::string& message) {
  throw std::invalid_argument(std::string("backend 'cuda' ") + op + ": " + message);
}
void require_float(const char* op, const char* arg, const Tensor& t) {
  if (t.empty()) fail(op, std::string(arg) + " is empty, expected an allocated f32 or f64 tensor");
  if (t.dtype() != DType::f32 && t.dtype() != DType::f64)
    fail(op, std::string(arg) + " is " + t.describe() + ", expected f32 or f64");
}
void require_same_numel(const char* op, const char* arg, const Tensor& t, std::int64_t numel) {
  if (t.numel() != numel)
    fail(op, std::string(arg) + " is " + t.describe() + ", expected " + std::to_string(numel) + " elements");
}
namespace {
void require_like(const char* op, const char* arg, const Tensor& t, const Tensor& like) {
  require_float(op, arg, t);
  if (t.dtype() != like.dtype()) fail(op, std::string(arg) + " is " + t.describe() + ", expected dtype " + dtype_name(like.dtype()));
}
void require_shape(const char* op, const char* arg, const Tensor& t, const Shape& shape) {
  if (t.shape() != shape) fail(op, std::string(arg) + " is " + t.describe() + ", expected shape " + shape_string(shape));
}
Tensor to_host(const Tensor& t) {
  if (t.device() == Device::cpu) return t;
  Tensor h(t.shape(), t.dtype());
  ABLATE_CUDA_CHECK(cudaMemcpy(h.raw_data(), t.raw_data(), t.bytes(), cudaMemcpyDeviceToHost));
  return h;
}
}  // namespace

void check_labels(const char* op, const Tensor& labels, std::int64_t N, std::int64_t K) {
  if (labels.dtype() != DType::i32) fail(op, "labels are " + labels.describe() + ", expected i32");
  require_shape(op, "labels", labels, {N});
  Tensor h = to_host(labels);
  const std::int32_t* l = h.data<std::int32_t>();
  for (std::int64_t n = 0; n < N; ++n)
    if (l[n] < 0 || l[n] >= K)
      fail(op, "label " + std::to_string(l[n]) + " of row " + std::to_string(n) + ", expected a class in [0, " +
                   std::to_string(K) + ")");
}

DeviceArg::DeviceArg(const Tensor& t, bool written) : written_(written) {
  if (t.empty()) return;
  if (t.device() == Device::cuda) {
    ptr_ = const_cast<void*>(t.raw_data());
    return;
  }
  host_ = t;
  staged_ = Tensor(t.shape(), t.dtype(), &cuda_allocator());
  ABLATE_CUDA_CHECK(cudaMemcpy(staged_.raw_data(), t.raw_data(), t.bytes(), cudaMemcpyHostToDevice));
  ptr_ = staged_.raw_data();
}

void DeviceArg::finish() {
  if (written_ && !staged_.empty())
    ABLATE_CUDA_CHECK(cudaMemcpy(host_.raw_data(), staged_.raw_data(), staged_.bytes(), cudaMemcpyDeviceToHost));
}

// --- identity --------------------------------------------------------------------------

CudaBackend::CudaBackend(int device, bool deterministic) : device_(device), deterministic_(deterministic) {
  ABLATE_CUDA_CHECK(cudaSetDevice(device_));
  ABLATE_CUDA_CHECK(cublasCreate(&blas_));
  ABLATE_CUDA_CHECK(cudnnCreate(&dnn_));
}

CudaBackend::~CudaBackend() {
  if (dnn_) cudnnDestroy(dnn_);
  if (blas_) cublasDestroy(blas_);
}

std::string CudaBackend::library_version() const {
  int blas = 0, runtime = 0;
  cublasGetVersion(blas_, &blas);
  cudaRuntimeGetVersion(&runtime);
  std::size_t dnn = cudnnGetVersion();
  cudaDeviceProp prop{};
  cudaGetDeviceProperties(&prop, device_);
  return "cuBLAS " + std::to_string(blas / 10000) + "." + std::to_string(blas / 100 % 100) + "." +
         std::to_string(blas % 100) + ", cuDNN " + std::to_string(dnn / 10000) + "." + std::to_string(dnn / 100 % 100) +
         "." + std::to_string(dnn % 100) + ", CUDA runtime " + std::to_string(runtime / 1000) + "." +
         std::to_string(runtime % 1000 / 10) + ", " + prop.name + (deterministic_ ? ", deterministic" : "");
}

void CudaBackend::synchronize() { ABLATE_CUDA_CHECK(cudaDeviceSynchronize()); }

Tensor CudaBackend::device_tensor(const Shape& shape, DType dtype) {
  Tensor t(shape, dtype, &cuda_allocator());
  if (t.bytes()) ABLATE_CUDA_CHECK(cudaMemset(t.raw_data(), 0, t.bytes()));
  return t;
}

// --- GEMM and fully connected -------------------------------------------------------------

void CudaBackend::gemm(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta,
                       Tensor& c) {
  const char* op = "gemm";
  require_float(op, "a", a);
  require_like(op, "b", b, a);
  require_like(op, "c", c, a);
  if (a.ndim() != 2 || b.ndim() != 2 || c.ndim() != 2)
    fail(op, "a " + a.describe() + ", b " + b.describe() + ", c " + c.describe() + ": expected 2-D tensors");
  std::int64_t M = trans_a ? a.dim(1) : a.dim(0), K = trans_a ? a.dim(0) : a.dim(1);
  std::int64_t KB = trans_b ? b.dim(1) : b.dim(0), N = trans_b ? b.dim(0) : b.dim(1);
  if (K != KB || c.dim(0) != M || c.dim(1) != N)
    fail(op, "op(a) " + std::to_string(M) + "x" + std::to_string(K) + ", op(b) " + std::to_string(KB) + "x" +
                 std::to_string(N) + ", c " + c.describe() + ": inner sizes or the output shape do not match");
  if (M == 0 || N == 0) return;
  DeviceArg da(a, false), db(b, false), dc(c, true);
  cublasOperation_t ta = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N, tb = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  int lda = int(std::max<std::int64_t>(1, a.dim(1))), ldb = int(std::max<std::int64_t>(1, b.dim(1)));
  if (a.dtype() == DType::f32) {
    float al = float(alpha), be = float(beta);
    ABLATE_CUDA_CHECK(cublasSgemm(blas_, tb, ta, int(N), int(M), int(K), &al, db.as<float>(), ldb, da.as<float>(), lda,
                                  &be, dc.as<float>(), int(N)));
  } else {
    ABLATE_CUDA_CHECK(cublasDgemm(blas_, tb, ta, int(N), int(M), int(K), &alpha, db.as<double>(), ldb,
                                  da.as<double>(), lda, &beta, dc.as<double>(), int(N)));
  }
  dc.finish();
}

void CudaBackend::linear_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y) {
  gemm(false, true, 1.0, x, w, 0.0, y);  // y [N,O] = x [N,I] w^T
  if (!bias.empty()) bias_add(y, bias);
}

void CudaBackend::linear_backward_data(const Tensor& dy, const Tensor& w, Tensor& dx) {
  gemm(false, false, 1.0, dy, w, 0.0, dx);  // dx [N,I] = dy [N,O] w [O,I]
}

void CudaBackend::linear_backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias) {
  gemm(true, false, 1.0, dy, x, 0.0, dw);  // dw [O,I] = dy^T x
  if (!dbias.empty()) bias_backward(dy, dbias);
}

// --- bias ------------------------------------------------------------------------------

void CudaBackend::bias_add(Tensor& y, const Tensor& bias) {
  const char* op = "bias_add";
  require_float(op, "y", y);
  require_like(op, "bias", bias, y);
  if (y.ndim() < 2) fail(op, "y is " + y.describe() + ", expected [N, C, ...]");
  std::int64_t N = y.dim(0), C = y.dim(1), inner = (N * C != 0) ? y.numel() / (N * C) : 0;
  require_same_numel(op, "bias", bias, C);
  if (y.numel() == 0) return;
  DeviceArg dy(y, true), db(bias, false);
  with_float(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_bias_add<T>(dy.as<T>(), db.as<T>(), N, C, inner);
  });
  dy.finish();
}

void CudaBackend::bias_backward(const Tensor& dy, Tensor& dbias) {
  const char* op = "bias_backward";
  require_float(op, "dy", dy);
  require_like(op, "dbias", dbias, dy);
  if (dy.ndim() < 2) fail(op, "dy is " + dy.describe() + ", expected [N, C, ...]");
  std::int64_t N = dy.dim(0), C = dy.dim(1), inner = (N * C != 0) ? dy.numel() / (N * C) : 1;
  require_same_numel(op, "dbias", dbias, C);
  DeviceArg d(dy, false), db(dbias, true);
  with_float(dy.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_bias_backward<T>(d.as<T>(), db.as<T>(), N, C, inner);
  });
  db.finish();
}

// --- dropout and losses ----------------------------------------------------------------------

void CudaBackend::dropout_mask(Tensor& mask, double keep_prob, std::uint64_t seed, std::uint64_t first_index) {
  const char* op = "dropout_mask";
  require_float(op, "mask", mask);
  if (!(keep_prob > 0 && keep_prob <= 1))
    fail(op, "keep probability " + std::to_string(keep_prob) + ", expected in (0, 1]");
  DeviceArg m(mask, true);
  with_float(mask.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (mask.numel()) launch_dropout_mask<T>(m.as<T>(), mask.numel(), keep_prob, seed, first_index);
  });
  m.finish();
}

namespace {
std::pair<std::int64_t, std::int64_t> check_rows(const char* op, const char* arg, const Tensor& x) {
  require_float(op, arg, x);
  if (x.ndim() != 2 || x.dim(1) < 1) fail(op, std::string(arg) + " is " + x.describe() + ", expected [N, K] with K >= 1");
  return {x.dim(0), x.dim(1)};
}
double mean_of_rows(const Tensor& row_loss) {
  Tensor h = to_host(row_loss);
  double s = 0;
  for (std::int64_t i = 0; i < h.numel(); ++i) s += h.data<double>()[i];
  return h.numel() ? s / double(h.numel()) : 0.0;
}
}  // namespace

double CudaBackend::softmax_xent_forward(const Tensor& logits, const Tensor& labels, Tensor& prob) {
  const char* op = "softmax_xent_forward";
  auto [N, K] = check_rows(op, "logits", logits);
  require_like(op, "prob", prob, logits);
  require_shape(op, "prob", prob, logits.shape());
  check_labels(op, labels, N, K);
  if (N == 0) return 0.0;
  Tensor rows = device_tensor({N}, DType::f64);
  {
    DeviceArg x(logits, false), l(labels, false);
    with_float(logits.dtype(), [&](auto tag) {
      using T = decltype(tag);
      launch_xent_rows<T>(x.as<T>(), l.as<std::int32_t>(), N, K, static_cast<double*>(rows.raw_data()));
    });
  }
  double loss = mean_of_rows(rows);
  softmax_forward(logits, prob);  // after the loss: prob may alias logits
  return loss;
}

void CudaBackend::softmax_xent_backward(const Tensor& prob, const Tensor& labels, double scale, Tensor& dlogits) {
  const char* op = "softmax_xent_backward";
  auto [N, K] = check_rows(op, "prob", prob);
  require_like(op, "dlogits", dlogits, prob);
  require_shape(op, "dlogits", dlogits, prob.shape());
  check_labels(op, labels, N, K);
  if (N == 0) return;
  DeviceArg p(prob, false), l(labels, false), d(dlogits, true);
  with_float(prob.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_xent_backward<T>(p.as<T>(), l.as<std::int32_t>(), N, K, scale, d.as<T>());
  });
  d.finish();
}

double CudaBackend::nll_forward(const Tensor& logp, const Tensor& labels) {
  const char* op = "nll_forward";
  auto [N, K] = check_rows(op, "logp", logp);
  check_labels(op, labels, N, K);
  if (N == 0) return 0.0;
  Tensor rows = device_tensor({N}, DType::f64);
  DeviceArg x(logp, false), l(labels, false);
  with_float(logp.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_nll_rows<T>(x.as<T>(), l.as<std::int32_t>(), N, K, static_cast<double*>(rows.raw_data()));
  });
  return mean_of_rows(rows);
}

void CudaBackend::nll_backward(const Tensor& labels, double scale, Tensor& dlogp) {
  const char* op = "nll_backward";
  auto [N, K] = check_rows(op, "dlogp", dlogp);
  check_labels(op, labels, N, K);
  if (N == 0) return;
  DeviceArg l(labels, false), d(dlogp, true);
  with_float(dlogp.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_nll_backward<T>(l.as<std::int32_t>(), N, K, scale, d.as<T>());
  });
  d.finish();
}

// --- elementwise and reductions ---------------------------------------------------------------

void CudaBackend::fill(Tensor& x, double value) {
  const char* op = "fill";
  if (x.empty()) fail(op, "x is empty, expected an allocated tensor");
  if (x.device() == Device::cpu) {  // any dtype on the host
    for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, value);
    return;
  }
  require_float(op, "x", x);
  if (x.numel() == 0) return;
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_fill<T>(static_cast<T*>(x.raw_data()), x.numel(), value);
  });
}

void CudaBackend::copy(const Tensor& src, Tensor& dst) {
  const char* op = "copy";
  if (src.empty()) fail(op, "src is empty, expected an allocated tensor");
  if (dst.empty()) fail(op, "dst is empty, expected an allocated tensor");
  require_same_numel(op, "dst", dst, src.numel());
  if (src.dtype() != dst.dtype()) {  // converts on the host (the edges of a step only)
    Tensor h(dst.shape(), dst.dtype());
    h.copy_from(to_host(src));
    if (dst.device() == Device::cpu) dst.copy_from(h);
    else ABLATE_CUDA_CHECK(cudaMemcpy(dst.raw_data(), h.raw_data(), h.bytes(), cudaMemcpyHostToDevice));
    return;
  }
  if (src.bytes() == 0 || src.raw_data() == dst.raw_data()) return;
  cudaMemcpyKind kind = src.device() == Device::cpu
                            ? (dst.device() == Device::cpu ? cudaMemcpyHostToHost : cudaMemcpyHostToDevice)
                            : (dst.device() == Device::cpu ? cudaMemcpyDeviceToHost : cudaMemcpyDeviceToDevice);
  ABLATE_CUDA_CHECK(cudaMemcpy(dst.raw_data(), src.raw_data(), src.bytes(), kind));
}

void CudaBackend::elementwise(const char* op, int kind, double alpha, const Tensor& x, double beta, const Tensor* y,
                              Tensor& out) {
  require_float(op, "x", x);
  require_like(op, "out", out, x);
  require_same_numel(op, "out", out, x.numel());
  if (y) {
    require_like(op, "y", *y, x);
    require_same_numel(op, "y", *y, x.numel());
  }
  if (x.numel() == 0) return;
  DeviceArg dx(x, false), dout(out, true);
  DeviceArg dy(y ? *y : Tensor(), false);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_elementwise<T>(static_cast<Elementwise>(kind), x.numel(), alpha, dx.as<T>(), beta, dy.as<T>(), dout.as<T>());
  });
  dout.finish();
}

void CudaBackend::scale(Tensor& x, double alpha) { elementwise("scale", int(Elementwise::axpby), alpha, x, 0.0, nullptr, x); }
void CudaBackend::axpy(double alpha, const Tensor& x, Tensor& y) {
  elementwise("axpy", int(Elementwise::axpby), alpha, x, 1.0, nullptr, y);
}
void CudaBackend::axpby(double alpha, const Tensor& x, double beta, Tensor& y) {
  elementwise("axpby", int(Elementwise::axpby), alpha, x, beta, nullptr, y);
}
void CudaBackend::add(const Tensor& a, const Tensor& b, Tensor& out) {
  elementwise("add", int(Elementwise::add), 1.0, a, 0.0, &b, out);
}
void CudaBackend::mul(const Tensor& a, const Tensor& b, Tensor& out) {
  elementwise("mul", int(Elementwise::mul), 1.0, a, 0.0, &b, out);
}

double CudaBackend::reduce(const char* op, const Tensor& x, bool squares) {
  require_float(op, "x", x);
  if (x.numel() == 0) return 0.0;
  int blocks = int(std::min<std::int64_t>(256, (x.numel() + 255) / 256));
  Tensor partials = device_tensor({blocks}, DType::f64);
  DeviceArg dx(x, false);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_partial_sums<T>(dx.as<T>(), x.numel(), squares, static_cast<double*>(partials.raw_data()), blocks);
  });
  Tensor h = to_host(partials);
  double s = 0;
  for (int i = 0; i < blocks; ++i) s += h.data<double>()[i];
  return s;
}

double CudaBackend::sum(const Tensor& x) { return reduce("sum", x, false); }
double CudaBackend::sum_squares(const Tensor& x) { return reduce("sum_squares", x, true); }

void CudaBackend::argmax_rows(const Tensor& x, Tensor& out) {
  const char* op = "argmax_rows";
  auto [N, K] = check_rows(op, "x", x);
  if (out.dtype() != DType::i32) fail(op, "out is " + out.describe() + ", expected i32");
  require_shape(op, "out", out, {N});
  if (N == 0) return;
  DeviceArg dx(x, false), dout(out, true);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_argmax_rows<T>(dx.as<T>(), N, K, dout.as<std::int32_t>());
  });
  dout.finish();
}

// --- optimizer updates -------------------------------------------------------------------------

namespace {
void check_state(const char* op, const Tensor& w, std::initializer_list<std::pair<const char*, const Tensor*>> state) {
  require_float(op, "w", w);
  for (auto [name, t] : state) {
    require_like(op, name, *t, w);
    require_shape(op, name, *t, w.shape());
  }
}
}  // namespace

void CudaBackend::caffe_sgd_update(Tensor& w, Tensor& g, Tensor& history, const CaffeSgdParams& p) {
  check_state("caffe_sgd_update", w, {{"g", &g}, {"history", &history}});
  if (w.numel() == 0) return;
  DeviceArg dw(w, true), dg(g, true), dh(history, true);
  with_float(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_caffe_sgd<T>(dw.as<T>(), dg.as<T>(), dh.as<T>(), w.numel(), p.lr, p.momentum, p.weight_decay);
  });
  dw.finish(), dg.finish(), dh.finish();
}

void CudaBackend::torch_sgd_update(Tensor& w, Tensor& g, Tensor& velocity, const TorchSgdParams& p) {
  check_state("torch_sgd_update", w, {{"g", &g}, {"velocity", &velocity}});
  if (w.numel() == 0) return;
  DeviceArg dw(w, true), dg(g, true), dv(velocity, true);
  with_float(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_torch_sgd<T>(dw.as<T>(), dg.as<T>(), dv.as<T>(), w.numel(), p.lr, p.momentum, p.dampening, p.weight_decay,
                        p.nesterov, p.first_step);
  });
  dw.finish(), dg.finish(), dv.finish();
}

void CudaBackend::adam_update(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamParams& p) {
  const char* op = "adam_update";
  check_state(op, w, {{"g", &g}, {"m", &m}, {"v", &v}});
  if (p.t < 1) fail(op, "step t " + std::to_string(p.t) + ", expected at least 1 (the first update is t = 1)");
  double t = static_cast<double>(p.t);
  double lr_t = p.lr * std::sqrt(1 - std::pow(p.beta2, t)) / (1 - std::pow(p.beta1, t));
  if (w.numel() == 0) return;
  DeviceArg dw(w, true), dg(g, false), dm(m, true), dv(v, true);
  with_float(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_adam<T>(dw.as<T>(), dg.as<T>(), dm.as<T>(), dv.as<T>(), w.numel(), lr_t, p.beta1, p.beta2, p.epsilon);
  });
  dw.finish(), dm.finish(), dv.finish();
}

}  // namespace ablate::kernels::cuda
