// The CUDA backend: factory, identity, host staging, cuBLAS GEMM and fully connected layers,
// and the ops on our own kernels (bias, elementwise, reductions, losses, dropout, optimizer
// updates). Convolution, pooling, LRN, activations and softmax are in cuda_dnn.cpp.
// Row-major [M,N] is column-major [N,M], so C = op(A) op(B) runs as C^T = op(B)^T op(A)^T.
#include <cmath>
#include <stdexcept>

#include "kernels/cuda/cuda_backend.h"
#include "kernels/cuda/cuda_backend_impl.h"
#include "kernels/cuda/cuda_kernels.h"
#include "kernels/cuda/cuda_optimizer_bodies.h"

namespace ablate::kernels {

std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error
    throw std::runtime_error(std::string("backend 'cuda': no CUDA device found (cudaGetDeviceCount: ") +
                             cudaGetErrorString(e) + ")");
  }
  if (count == 0) throw std::runtime_error("backend 'cuda': no CUDA device found (cudaGetDeviceCount reports 0 devices)");
  return std::make_unique<cuda::CudaBackend>(0, options.deterministic);
}

}  // namespace ablate::kernels

namespace ablate::kernels::cuda {

// --- shared helpers ---------------------------------------------------------------------

Tensor to_host(const Tensor& t) {
  if (t.device() == Device::cpu) return t;
  Tensor h(t.shape(), t.dtype());
  ABLATE_CUDA_CHECK(cudaMemcpy(h.raw_data(), t.raw_data(), t.bytes(), cudaMemcpyDeviceToHost));
  return h;
}

void check_device_labels(const OpCheck& check, const Tensor& labels, std::int64_t classes) {
  if (labels.device() == Device::cpu) return;  // the contract has checked host labels
  Tensor h = to_host(labels);
  check.label_values(h.data<std::int32_t>(), h.numel(), classes);
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

void CudaBackend::gemm_impl(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta,
                            Tensor& c) {
  std::int64_t M = trans_a ? a.dim(1) : a.dim(0), K = trans_a ? a.dim(0) : a.dim(1);
  std::int64_t N = trans_b ? b.dim(0) : b.dim(1);
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

void CudaBackend::linear_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y) {
  gemm_impl(false, true, 1.0, x, w, 0.0, y);  // y [N,O] = x [N,I] w^T
  if (!bias.empty()) bias_add_impl(y, bias);
}

void CudaBackend::linear_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx) {
  gemm_impl(false, false, 1.0, dy, w, 0.0, dx);  // dx [N,I] = dy [N,O] w [O,I]
}

void CudaBackend::linear_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias) {
  gemm_impl(true, false, 1.0, dy, x, 0.0, dw);  // dw [O,I] = dy^T x
  if (!dbias.empty()) bias_backward_impl(dy, dbias);
}

// --- bias ------------------------------------------------------------------------------

void CudaBackend::bias_add_impl(Tensor& y, const Tensor& bias) {
  std::int64_t N = y.dim(0), C = y.dim(1), inner = (N * C != 0) ? y.numel() / (N * C) : 0;
  if (y.numel() == 0) return;
  DeviceArg dy(y, true), db(bias, false);
  with_float(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_bias_add<T>(dy.as<T>(), db.as<T>(), N, C, inner);
  });
  dy.finish();
}

void CudaBackend::bias_backward_impl(const Tensor& dy, Tensor& dbias) {
  std::int64_t N = dy.dim(0), C = dy.dim(1), inner = (N * C != 0) ? dy.numel() / (N * C) : 1;
  DeviceArg d(dy, false), db(dbias, true);
  with_float(dy.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_bias_backward<T>(d.as<T>(), db.as<T>(), N, C, inner);
  });
  db.finish();
}

// --- dropout and losses ----------------------------------------------------------------------

void CudaBackend::dropout_mask_impl(Tensor& mask, double keep_prob, std::uint64_t seed, std::uint64_t first_index) {
  DeviceArg m(mask, true);
  with_float(mask.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (mask.numel()) launch_dropout_mask<T>(m.as<T>(), mask.numel(), keep_prob, seed, first_index);
  });
  m.finish();
}

namespace {
double mean_of_rows(const Tensor& row_loss) {
  Tensor h = to_host(row_loss);
  double s = 0;
  for (std::int64_t i = 0; i < h.numel(); ++i) s += h.data<double>()[i];
  return h.numel() ? s / double(h.numel()) : 0.0;
}
}  // namespace

double CudaBackend::softmax_xent_forward_impl(const Tensor& logits, const Tensor& labels, Tensor& prob) {
  const std::int64_t N = logits.dim(0), K = logits.dim(1);
  check_device_labels(OpCheck(*this, Op::softmax_xent_forward), labels, K);
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
  softmax_forward_impl(logits, prob);  // after the loss: prob may alias logits
  return loss;
}

void CudaBackend::softmax_xent_backward_impl(const Tensor& prob, const Tensor& labels, double scale, Tensor& dlogits) {
  const std::int64_t N = prob.dim(0), K = prob.dim(1);
  check_device_labels(OpCheck(*this, Op::softmax_xent_backward), labels, K);
  if (N == 0) return;
  DeviceArg p(prob, false), l(labels, false), d(dlogits, true);
  with_float(prob.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_xent_backward<T>(p.as<T>(), l.as<std::int32_t>(), N, K, scale, d.as<T>());
  });
  d.finish();
}

double CudaBackend::nll_forward_impl(const Tensor& logp, const Tensor& labels) {
  const std::int64_t N = logp.dim(0), K = logp.dim(1);
  check_device_labels(OpCheck(*this, Op::nll_forward), labels, K);
  if (N == 0) return 0.0;
  Tensor rows = device_tensor({N}, DType::f64);
  DeviceArg x(logp, false), l(labels, false);
  with_float(logp.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_nll_rows<T>(x.as<T>(), l.as<std::int32_t>(), N, K, static_cast<double*>(rows.raw_data()));
  });
  return mean_of_rows(rows);
}

void CudaBackend::nll_backward_impl(const Tensor& labels, double scale, Tensor& dlogp) {
  const std::int64_t N = dlogp.dim(0), K = dlogp.dim(1);
  check_device_labels(OpCheck(*this, Op::nll_backward), labels, K);
  if (N == 0) return;
  DeviceArg l(labels, false), d(dlogp, true);
  with_float(dlogp.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_nll_backward<T>(l.as<std::int32_t>(), N, K, scale, d.as<T>());
  });
  d.finish();
}

// --- elementwise and reductions ---------------------------------------------------------------

void CudaBackend::fill_impl(Tensor& x, double value) {
  if (x.device() == Device::cpu) {  // any dtype on the host
    for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, value);
    return;
  }
  if (x.dtype() != DType::f32 && x.dtype() != DType::f64)  // our fill kernel is for f32 and f64
    OpCheck(*this, Op::fill).fail("x " + x.describe() + " is on the device, where only f32 and f64 can be filled");
  if (x.numel() == 0) return;
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_fill<T>(static_cast<T*>(x.raw_data()), x.numel(), value);
  });
}

void CudaBackend::copy_impl(const Tensor& src, Tensor& dst) {
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

void CudaBackend::elementwise(int kind, double alpha, const Tensor& x, double beta, const Tensor* y, Tensor& out) {
  if (x.numel() == 0) return;
  DeviceArg dx(x, false), dout(out, true);
  DeviceArg dy(y ? *y : Tensor(), false);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_elementwise<T>(static_cast<Elementwise>(kind), x.numel(), alpha, dx.as<T>(), beta, dy.as<T>(), dout.as<T>());
  });
  dout.finish();
}

void CudaBackend::scale_impl(Tensor& x, double alpha) {
  elementwise(int(Elementwise::axpby), alpha, x, 0.0, nullptr, x);
}
void CudaBackend::axpy_impl(double alpha, const Tensor& x, Tensor& y) {
  elementwise(int(Elementwise::axpby), alpha, x, 1.0, nullptr, y);
}
void CudaBackend::axpby_impl(double alpha, const Tensor& x, double beta, Tensor& y) {
  elementwise(int(Elementwise::axpby), alpha, x, beta, nullptr, y);
}
void CudaBackend::add_impl(const Tensor& a, const Tensor& b, Tensor& out) {
  elementwise(int(Elementwise::add), 1.0, a, 0.0, &b, out);
}
void CudaBackend::mul_impl(const Tensor& a, const Tensor& b, Tensor& out) {
  elementwise(int(Elementwise::mul), 1.0, a, 0.0, &b, out);
}

double CudaBackend::reduce(const Tensor& x, bool squares) {
  if (x.numel() == 0) return 0.0;
  const std::int64_t blocks = partial_sums_grid(x.numel()).blocks_x;
  Tensor partials = device_tensor({blocks}, DType::f64);
  DeviceArg dx(x, false);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_partial_sums<T>(dx.as<T>(), x.numel(), squares, static_cast<double*>(partials.raw_data()));
  });
  Tensor h = to_host(partials);
  double s = 0;
  for (std::int64_t i = 0; i < blocks; ++i) s += h.data<double>()[i];
  return s;
}

double CudaBackend::sum_impl(const Tensor& x) { return reduce(x, false); }
double CudaBackend::sum_squares_impl(const Tensor& x) { return reduce(x, true); }

void CudaBackend::argmax_rows_impl(const Tensor& x, Tensor& out) {
  const std::int64_t N = x.dim(0), K = x.dim(1);
  if (N == 0) return;
  DeviceArg dx(x, false), dout(out, true);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_argmax_rows<T>(dx.as<T>(), N, K, dout.as<std::int32_t>());
  });
  dout.finish();
}

// --- optimizer updates -------------------------------------------------------------------------

void CudaBackend::caffe_sgd_update_impl(Tensor& w, Tensor& g, Tensor& history, const CaffeSgdParams& p) {
  if (w.numel() == 0) return;
  DeviceArg dw(w, true), dg(g, true), dh(history, true);
  with_float(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_caffe_sgd<T>(dw.as<T>(), dg.as<T>(), dh.as<T>(), w.numel(), p.lr, p.momentum, p.weight_decay);
  });
  dw.finish(), dg.finish(), dh.finish();
}

void CudaBackend::torch_sgd_update_impl(Tensor& w, Tensor& g, Tensor& velocity, const TorchSgdParams& p) {
  if (w.numel() == 0) return;
  DeviceArg dw(w, true), dg(g, true), dv(velocity, true);
  with_float(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_torch_sgd<T>(dw.as<T>(), dg.as<T>(), dv.as<T>(), w.numel(), p.lr, p.momentum, p.dampening, p.weight_decay,
                        p.nesterov, p.first_step);
  });
  dw.finish(), dg.finish(), dv.finish();
}

void CudaBackend::adam_update_impl(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamParams& p) {
  const double lr_t = adam_step_size(p);
  if (w.numel() == 0) return;
  DeviceArg dw(w, true), dg(g, false), dm(m, true), dv(v, true);
  with_float(w.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_adam<T>(dw.as<T>(), dg.as<T>(), dm.as<T>(), dv.as<T>(), w.numel(), lr_t, p.beta1, p.beta2, p.epsilon);
  });
  dw.finish(), dm.finish(), dv.finish();
}

}  // namespace ablate::kernels::cuda
