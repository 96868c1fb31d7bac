// Which memory layout the onednn backend's convolutions run in (a named, switchable
// optimisation). Tensors crossing the interface are NCHW / OIHW; any other layout costs a
// reorder in and out per call (into buffers kept in the primitive cache).
//  plain     NCHW / OIHW directly (oneDNN runs im2col + its own GEMM: "gemm:jit").
//  nhwc      activations NHWC, weights as the primitive prefers (brgconv / jit kernels).
//  blocked   format_tag::any for all: the library's choice (nChw16c / OIhw16i16o on AVX-512).
//  autotune  each convolution primitive (forward, backward data, backward weights of one
//            shape) is built in all three layouts on its first call, each is timed on that
//            call's tensors, and the fastest is kept (as cuDNN's cudnnFind / PyTorch's
//            cudnn.benchmark do). Fastest here, but the choice can differ between processes.
// Measured on LeNet at batch 64 (1 thread): conv1 forward is a tie, conv1 backward weights is
// 3x faster blocked, conv2 is 20% faster NHWC than plain and blocked; other zoo shapes differ.
// The default comes from the environment variable ABLATE_ONEDNN_CONV_LAYOUT (else autotune).
#pragma once

#include <chrono>
#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "kernels/onednn/primitive_cache.h"

namespace ablate::kernels::onednn {

enum class ConvLayout { plain, nhwc, blocked, autotune };

const char* conv_layout_name(ConvLayout layout);
ConvLayout parse_conv_layout(const std::string& name);  // throws listing the known names
// ABLATE_ONEDNN_CONV_LAYOUT if set (an unknown value throws), else autotune.
ConvLayout default_conv_layout();

// The fastest of `candidates` on `bindings`: each runs once to warm up (first touch of its
// buffers), then `timed_runs` rounds run each once; the lowest wall time of a single run
// wins and is returned with its label set to its name in `names`.
std::unique_ptr<CachedPrimitive> fastest(std::vector<std::unique_ptr<CachedPrimitive>> candidates,
                                         const std::vector<std::string>& names, dnnl::stream& stream,
                                         std::initializer_list<Binding> bindings, int timed_runs = 3);

}  // namespace ablate::kernels::onednn
