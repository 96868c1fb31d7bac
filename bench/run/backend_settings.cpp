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
  try {
    return kernels::make_backend(s.name, s.options);
  } catch (const std::invalid_argument& e) {
    if (!s.options.deterministic) throw;
    throw std::invalid_argument(std::string("--") + e.what());  // "--deterministic: backend ..."
  }
}

}  // namespace ablate::bench::run
