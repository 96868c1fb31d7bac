// The CUDA backend's factory: tensors on an NVIDIA GPU, cuBLAS for GEMM and fully
// connected layers, cuDNN for convolution, LRN, activations and softmax, as Caffe's, TF 1.x's
// and Torch7's GPU paths did. Plain C++: registry.cpp includes it without the CUDA headers.
#pragma once

#include <memory>

#include "kernels/backend.h"
#include "kernels/backend_options.h"

namespace ablate::kernels {

// Throws std::runtime_error("backend 'cuda': no CUDA device found (...)") when the machine
// has no usable GPU. options.deterministic selects deterministic cuDNN algorithms.
std::unique_ptr<Backend> make_cuda_backend(const BackendOptions& options = {});

}  // namespace ablate::kernels
