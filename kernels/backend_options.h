// BackendOptions: the typed switches a backend is made with (make_backend, registry.h), in
// place of environment variables: the thread count, the CPU backends' convolution lowering and
// threading model (and conv_mode, the older switch for both), the onednn backend's convolution
// layout, where a max-pooling gradient goes, and bit-identical repeated runs. Which backend
// takes which option is one table (registry.cpp), so that a command line or preset can refuse
// an option the chosen backend does not have, naming both. A backend reports what it runs
// with in choices() (the result record's backend.* fields) and library_version().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernels/cpu/conv_lowering.h"
#include "kernels/cpu/conv_mode.h"
#include "kernels/onednn/conv_layout.h"
#include "kernels/op_params.h"

namespace ablate::kernels {

struct BackendOptions {
  // Intra-op threads: OpenMP, the BLAS and the library's own pool alike (at least 1).
  int threads = 1;
  // eigen, openblas, onednn: how a convolution runs as im2col + GEMM and who owns the
  // threads (kernels/cpu/conv_mode.h; parse with cpu::parse_conv_mode). Unset: the measured
  // fastest, omp_per_image.
  std::optional<cpu::ConvMode> conv_mode;
  // eigen, openblas, onednn: how a convolution is lowered onto the library and who owns the
  // threads (kernels/cpu/conv_lowering.h). Which backend takes which lowering is the registry's
  // table; unset: the backend's default (omp_per_image; onednn: direct). conv_mode names a
  // pair of them and cannot be combined with either.
  std::optional<cpu::ConvLowering> conv_lowering;
  std::optional<cpu::Threading> threading;
  // Every backend: where a max-pooling window's gradient goes (op_params.h). Unset: first.
  std::optional<PoolGradient> pool_gradient;
  // onednn: the layout its convolution primitives run in (kernels/onednn/conv_layout.h; parse
  // with onednn::parse_conv_layout). Unset: autotune, or plain when deterministic.
  std::optional<onednn::ConvLayout> onednn_conv_layout;
  // Every backend: bit-identical repeated runs (`--deterministic`). onednn then runs plain
  // instead of timing layouts, cuda picks deterministic cuDNN algorithms; a backend that
  // cannot promise it refuses to be made.
  bool deterministic = false;
};

// The options by name, as BackendOptions holds them: "threads", "conv_mode", "conv_lowering",
// "threading", "onednn_conv_layout", "pool_gradient", "deterministic".
enum class BackendOption { threads, conv_mode, conv_lowering, threading, onednn_conv_layout, pool_gradient, deterministic };
const char* backend_option_name(BackendOption option);
// The options that `options` sets (threads always; the others when set or true).
std::vector<BackendOption> options_set(const BackendOptions& options);
// "onednn_conv_layout 'nhwc'": the option and its value in `options`, for messages.
std::string describe_option(const BackendOptions& options, BackendOption option);

// Plain C++ enum parsers for a command line, re-exported here: each throws
// std::invalid_argument naming the value and the known ones.
using cpu::parse_conv_lowering;
using cpu::parse_conv_mode;
using cpu::parse_threading;
using onednn::parse_conv_layout;

}  // namespace ablate::kernels
