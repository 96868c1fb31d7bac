// Names of the onednn backend's convolution layouts (see conv_layout.h).
#include "kernels/onednn/conv_layout.h"

#include <stdexcept>

namespace ablate::kernels::onednn {

const char* conv_layout_name(ConvLayout layout) {
  switch (layout) {
    case ConvLayout::plain: return "plain";
    case ConvLayout::nhwc: return "nhwc";
    case ConvLayout::blocked: return "blocked";
    case ConvLayout::autotune: return "autotune";
  }
  return "?";
}

ConvLayout parse_conv_layout(const std::string& name) {
  for (ConvLayout l : {ConvLayout::plain, ConvLayout::nhwc, ConvLayout::blocked, ConvLayout::autotune})
    if (name == conv_layout_name(l)) return l;
  throw std::invalid_argument("onednn convolution layout '" + name +
                              "' is not known; expected plain, nhwc, blocked or autotune");
}

}  // namespace ablate::kernels::onednn
