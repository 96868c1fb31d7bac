// Which memory layout the onednn backend's convolutions run in (a named, switchable
// optimisation). Tensors crossing the interface are NCHW / OIHW; any other layout costs a
// reorder in and out per call (into buffers kept in the primitive cache).
//  plain     NCHW / OIHW directly (oneDNN runs im2col + its own GEMM: "gemm:jit").
//  nhwc      activations NHWC, weights as the primitive prefers (brgconv / jit kernels).
//  blocked   format_tag::any for all: the library's choice (nChw16c / OIhw16i16o on AVX-512).
//  autotune  each convolution primitive (forward, backward data, backward weights of one
//            shape) is built in all three layouts on its first call, each is timed on that
//            call's tensors, and the fastest is kept (as cuDNN's cudnnFind / PyTorch's
//            cudnn.benchmark do; conv_autotune.h). Fastest here, but the choice can differ
//            between processes.
// Measured on LeNet at batch 64 (1 thread): conv1 forward is a tie, conv1 backward weights is
// 3x faster blocked, conv2 is 20% faster NHWC than plain and blocked; other zoo shapes differ.
// The setting is BackendOptions::onednn_conv_layout (kernels/backend_options.h), default
// autotune. Plain C++ (no oneDNN header), for the command line's parsing.
#pragma once

#include <string>

namespace ablate::kernels::onednn {

enum class ConvLayout { plain, nhwc, blocked, autotune };

const char* conv_layout_name(ConvLayout layout);
// "nhwc" -> ConvLayout::nhwc; an unknown name throws std::invalid_argument listing the known ones.
ConvLayout parse_conv_layout(const std::string& name);
// autotune: used when no layout is asked for.
constexpr ConvLayout default_conv_layout() { return ConvLayout::autotune; }

}  // namespace ablate::kernels::onednn
