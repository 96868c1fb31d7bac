// BackendOptions: the typed switches a backend is made with (make_backend, registry.h), in
// place of environment variables: the thread count, the CPU backends' convolution strategy,
// the onednn backend's convolution layout, and bit-identical repeated runs. Which backend
// takes which option is one table (registry.cpp), so that a command line or preset can refuse
// an option the chosen backend does not have, naming both. A backend reports what it runs
// with in choices() (the result record's backend.* fields) and library_version().
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernels/cpu/conv_mode.h"
#include "kernels/onednn/conv_layout.h"

namespace ablate::kernels {

struct BackendOptions {
  // Intra-op threads: OpenMP, the BLAS and the library's own pool alike (at least 1).
  int threads = 1;
  // eigen, openblas, onednn: how a convolution runs as im2col + GEMM and who owns the
  // threads (kernels/cpu/conv_mode.h; parse with cpu::parse_conv_mode). Unset: the measured
  // fastest, omp_per_image.
  std::optional<cpu::ConvMode> conv_mode;
  // onednn: the layout its convolution primitives run in (kernels/onednn/conv_layout.h; parse
  // with onednn::parse_conv_layout). Unset: autotune, or plain when deterministic.
  std::optional<onednn::ConvLayout> onednn_conv_layout;
  // Every backend: bit-identical repeated runs (`--deterministic`). onednn then runs plain
  // instead of timing layouts, cuda picks deterministic cuDNN algorithms; a backend that
  // cannot promise it refuses to be made.
  bool deterministic = false;
};

// The options by name, as BackendOptions holds them: "threads", "conv_mode",
// "onednn_conv_layout", "deterministic".
enum class BackendOption { threads, conv_mode, onednn_conv_layout, deterministic };
const char* backend_option_name(BackendOption option);
// The options that `options` sets (threads always; the others when set or true).
std::vector<BackendOption> options_set(const BackendOptions& options);
// "onednn_conv_layout 'nhwc'": the option and its value in `options`, for messages.
std::string describe_option(const BackendOptions& options, BackendOption option);

// Plain C++ enum parsers for a command line, re-exported here: each throws
// std::invalid_argument naming the value and the known ones.
using cpu::parse_conv_mode;
using onednn::parse_conv_layout;

}  // namespace ablate::kernels
