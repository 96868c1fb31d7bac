// PLACEHOLDER until the onednn backend lands: replaced by the real backend.
#include "kernels/onednn/onednn_backend.h"

#include <stdexcept>

namespace ablate::kernels {
std::unique_ptr<Backend> make_onednn_backend() { throw std::logic_error("onednn backend not built yet"); }
}  // namespace ablate::kernels
