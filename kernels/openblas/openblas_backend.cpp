// PLACEHOLDER until the openblas backend lands: replaced by the real backend.
#include "kernels/openblas/openblas_backend.h"

#include <stdexcept>

namespace ablate::kernels {
std::unique_ptr<Backend> make_openblas_backend() { throw std::logic_error("openblas backend not built yet"); }
}  // namespace ablate::kernels
