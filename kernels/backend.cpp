// Default bodies of Backend ops that not every backend has yet: each throws naming the
// backend and the op, so a missing kernel is a clear error and never a silent wrong answer.
#include "kernels/backend.h"

#include <stdexcept>

namespace ablate::kernels {

namespace {
[[noreturn]] void not_implemented(const Backend& b, const char* op) {
  throw std::logic_error("backend '" + b.name() + "': " + op + " is not implemented");
}
}  // namespace

void Backend::conv2d_map_forward(const Tensor&, const Tensor&, const Tensor&, const Tensor&, Tensor&,
                                 const Conv2dParams&) {
  not_implemented(*this, "conv2d_map_forward");
}
void Backend::conv2d_map_backward_data(const Tensor&, const Tensor&, const Tensor&, Tensor&, const Conv2dParams&) {
  not_implemented(*this, "conv2d_map_backward_data");
}
void Backend::conv2d_map_backward_weights(const Tensor&, const Tensor&, const Tensor&, Tensor&, Tensor&,
                                          const Conv2dParams&) {
  not_implemented(*this, "conv2d_map_backward_weights");
}

}  // namespace ablate::kernels
