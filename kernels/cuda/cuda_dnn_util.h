// Shared pieces of the cuDNN-backed ops (cuda_conv.cpp, cuda_dnn.cpp): data types, the
// alpha/beta scalars cuDNN wants, an NCHW tensor descriptor.
#pragma once

#include <string>

#include "kernels/cuda/cuda_backend_impl.h"

namespace ablate::kernels::cuda {

inline cudnnDataType_t dnn_type(DType d) { return d == DType::f64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT; }

// alpha = 1, beta = 0 in the scalar type cuDNN wants for the data type.
struct Scalars {
  float f1 = 1, f0 = 0;
  double d1 = 1, d0 = 0;
  const void* one(DType d) const { return d == DType::f64 ? static_cast<const void*>(&d1) : &f1; }
  const void* zero(DType d) const { return d == DType::f64 ? static_cast<const void*>(&d0) : &f0; }
};
inline const Scalars kScalars;

struct TensorDesc {
  cudnnTensorDescriptor_t d = nullptr;
  TensorDesc(DType dtype, std::int64_t n, std::int64_t c, std::int64_t h, std::int64_t w) {
    ABLATE_CUDA_CHECK(cudnnCreateTensorDescriptor(&d));
    ABLATE_CUDA_CHECK(cudnnSetTensor4dDescriptor(d, CUDNN_TENSOR_NCHW, dnn_type(dtype), int(n), int(c), int(h), int(w)));
  }
  TensorDesc(DType dtype, const Shape& s) : TensorDesc(dtype, s[0], s[1], s[2], s[3]) {}
  ~TensorDesc() { cudnnDestroyTensorDescriptor(d); }
  TensorDesc(const TensorDesc&) = delete;
  TensorDesc& operator=(const TensorDesc&) = delete;
};

// `in` itself, or a device copy of it (kept alive in `keep`) when it is also the output:
// cuDNN's softmax does not promise in-place operation.
inline const void* distinct(const void* in, const void* out, const Tensor& like, Tensor& keep) {
  if (in != out) return in;
  keep = Tensor(like.shape(), like.dtype(), &cuda_allocator());
  ABLATE_CUDA_CHECK(cudaMemcpy(keep.raw_data(), in, like.bytes(), cudaMemcpyDeviceToDevice));
  return keep.raw_data();
}

}  // namespace ablate::kernels::cuda
