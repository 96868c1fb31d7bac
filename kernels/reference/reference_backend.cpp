// The reference backend's identity and factory. The ops live in one file per family
// (reference_conv.cpp, reference_pool.cpp, ...); see reference_backend_impl.h.
#include "kernels/reference/reference_backend.h"

#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/reference/reference_backend_impl.h"

namespace ablate::kernels {

namespace reference {

void ReferenceBackend::set_threads(int threads) {
  if (threads < 1)
    throw std::invalid_argument("reference set_threads: " + std::to_string(threads) + ", expected at least 1");
  requested_threads_ = threads;  // recorded, ignored: the loops run on the calling thread
}

}  // namespace reference

// The reference takes no option of its own: its loops are single-threaded and deterministic.
std::unique_ptr<Backend> make_reference_backend(const BackendOptions&) {
  return std::make_unique<reference::ReferenceBackend>();
}

}  // namespace ablate::kernels
