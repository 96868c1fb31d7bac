// Names of the convolution strategies and the default (see conv_mode.h).
#include "kernels/cpu/conv_mode.h"

#include <stdexcept>

namespace ablate::kernels::cpu {
namespace {
constexpr ConvMode kAllModes[] = {ConvMode::per_image, ConvMode::batched, ConvMode::omp_per_image,
                                  ConvMode::omp_batched};
// The measurements behind this choice are in conv_mode.h.
constexpr ConvMode kFastestMode = ConvMode::omp_per_image;
}  // namespace

const char* conv_mode_name(ConvMode mode) {
  switch (mode) {
    case ConvMode::per_image: return "per_image";
    case ConvMode::batched: return "batched";
    case ConvMode::omp_per_image: return "omp_per_image";
    case ConvMode::omp_batched: return "omp_batched";
  }
  return "?";
}

ConvMode parse_conv_mode(const std::string& name) {
  std::string known;
  for (ConvMode m : kAllModes) {
    if (name == conv_mode_name(m)) return m;
    known += (known.empty() ? "" : ", ") + std::string(conv_mode_name(m));
  }
  throw std::invalid_argument("convolution mode '" + name + "' is not known; expected one of " + known);
}

ConvMode default_conv_mode() { return kFastestMode; }

}  // namespace ablate::kernels::cpu
