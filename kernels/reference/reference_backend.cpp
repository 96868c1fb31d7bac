// PLACEHOLDER until the reference backend lands: replaced by the real backend.
#include "kernels/reference/reference_backend.h"

#include <stdexcept>

namespace ablate::kernels {
std::unique_ptr<Backend> make_reference_backend() { throw std::logic_error("reference backend not built yet"); }
}  // namespace ablate::kernels
