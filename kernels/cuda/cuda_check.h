// Error checks of the CUDA runtime, cuBLAS and cuDNN calls: a failure throws
// std::runtime_error naming the call, the source line and the library's message.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cudnn.h>

#include <stdexcept>
#include <string>

namespace ablate::kernels::cuda {

inline void check_status(cudaError_t e, const char* call, const char* file, int line) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string("backend 'cuda': ") + call + " failed at " + file + ":" +
                             std::to_string(line) + ": " + cudaGetErrorString(e));
}
inline void check_status(cublasStatus_t e, const char* call, const char* file, int line) {
  if (e != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("backend 'cuda': ") + call + " failed at " + file + ":" +
                             std::to_string(line) + ": cuBLAS status " + std::to_string(int(e)));
}
inline void check_status(cudnnStatus_t e, const char* call, const char* file, int line) {
  if (e != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(std::string("backend 'cuda': ") + call + " failed at " + file + ":" +
                             std::to_string(line) + ": " + cudnnGetErrorString(e));
}

}  // namespace ablate::kernels::cuda

#define ABLATE_CUDA_CHECK(call) ::ablate::kernels::cuda::check_status((call), #call, __FILE__, __LINE__)
// After a kernel launch: reports a bad launch configuration at once.
#define ABLATE_CUDA_LAUNCHED() ABLATE_CUDA_CHECK(cudaGetLastError())
