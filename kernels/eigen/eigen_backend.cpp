// PLACEHOLDER until the eigen backend lands: replaced by the real backend.
#include "kernels/eigen/eigen_backend.h"

#include <stdexcept>

namespace ablate::kernels {
std::unique_ptr<Backend> make_eigen_backend() { throw std::logic_error("eigen backend not built yet"); }
}  // namespace ablate::kernels
