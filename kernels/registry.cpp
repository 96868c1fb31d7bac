// Backend registry: the one place that knows every backend's factory.
#include "kernels/registry.h"

#include <functional>
#include <stdexcept>
#include <utility>

#include "kernels/eigen/eigen_backend.h"
#include "kernels/onednn/onednn_backend.h"
#include "kernels/openblas/openblas_backend.h"
#include "kernels/reference/reference_backend.h"
#ifdef ABLATE_HAVE_CUDA
#include "kernels/cuda/cuda_backend.h"
#endif

namespace ablate::kernels {
namespace {

using Factory = std::function<std::unique_ptr<Backend>()>;

const std::vector<std::pair<std::string, Factory>>& factories() {
  static const std::vector<std::pair<std::string, Factory>> table = {
      {"reference", make_reference_backend},
      {"eigen", make_eigen_backend},
      {"openblas", make_openblas_backend},
      {"onednn", make_onednn_backend},
#ifdef ABLATE_HAVE_CUDA
      {"cuda", make_cuda_backend},
#endif
  };
  return table;
}

}  // namespace

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const auto& [name, factory] : factories()) names.push_back(name);
  return names;
}

std::unique_ptr<Backend> make_backend(const std::string& name, int threads) {
  if (threads < 1)
    throw std::invalid_argument("--threads " + std::to_string(threads) + ": expected a count of at least 1");
  for (const auto& [known, factory] : factories()) {
    if (known == name) {
      auto backend = factory();
      backend->set_threads(threads);
      return backend;
    }
  }
  std::string list;
  for (const auto& known : backend_names()) list += (list.empty() ? "" : ", ") + known;
  throw std::invalid_argument("backend '" + name + "' is not known; the known backends are: " + list);
}

}  // namespace ablate::kernels
