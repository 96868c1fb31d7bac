// The backend of a run (backend_settings.h).
#include "bench/run/backend_settings.h"

#include <algorithm>
#include <stdexcept>

#include "kernels/registry.h"

namespace ablate::bench::run {

void check_backend_name(const std::string& name, const std::string& where) {
  const auto names = kernels::backend_names();
  if (std::find(names.begin(), names.end(), name) != names.end()) return;
  try {
    kernels::make_backend(name);  // its error lists the known backends
  } catch (const std::exception& e) {
    throw std::invalid_argument(where + ": " + e.what());
  }
}

std::unique_ptr<kernels::Backend> make_backend(const BackendSettings& s) {
  auto backend = kernels::make_backend(s.name, s.threads);
  if (s.deterministic && !backend->make_deterministic())
    throw std::invalid_argument("--deterministic: backend '" + s.name + "' cannot promise bit-identical runs (" +
                                backend->library_version() + ")");
  return backend;
}

}  // namespace ablate::bench::run
