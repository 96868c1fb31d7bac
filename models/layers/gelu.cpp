// gelu: the Gaussian Error Linear Unit, PyTorch's nn.GELU(approximate='none' | 'tanh'):
//   approximate=none (default)  y = x Phi(x) = 0.5 x (1 + erf(x / sqrt 2))
//   approximate=tanh            y = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
// any shape. An element-wise activation (Backend activation gelu or gelu_tanh, run as the
// Backend's GELU ops) whose backward reads its input x: it writes an output of its own (not
// in place), and every strategy hands the backward x.
#include "models/layers/layer_kit.h"

namespace ablate::models::layers {
namespace {

LayerType describe() {
  LayerType t;
  t.name = "gelu";
  t.keys = {{"approximate", choice({"none", "tanh"})}};
  t.shape = same_shape;
  t.activation = [](const LayerSpec& layer) {
    return layer.get_string("approximate", "none") == "tanh" ? kernels::Activation::gelu_tanh
                                                              : kernels::Activation::gelu;
  };
  t.backward_reads_input = true;
  return t;
}

ABLATE_LAYER_TYPE(describe);

}  // namespace
}  // namespace ablate::models::layers
