// Backend registry: the one table of every backend's factory and the options it takes.
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

using Factory = std::function<std::unique_ptr<Backend>(const BackendOptions&)>;

struct Entry {
  std::string name;
  Factory factory;
  std::vector<BackendOption> options;       // the options it takes
  std::vector<cpu::ConvLowering> lowerings;  // the conv_lowering values it takes, its default first
};

const std::vector<Entry>& table() {
  using O = BackendOption;
  static const std::vector<Entry> entries = {
      {"reference", make_reference_backend, {O::threads, O::pool_gradient, O::deterministic}, {}},
      {"eigen", make_eigen_backend,
       {O::threads, O::conv_mode, O::conv_lowering, O::threading, O::pool_gradient, O::deterministic},
       eigen_conv_lowerings()},
      {"openblas", make_openblas_backend,
       {O::threads, O::conv_mode, O::conv_lowering, O::threading, O::pool_gradient, O::deterministic},
       openblas_conv_lowerings()},
      {"onednn", make_onednn_backend,
       {O::threads, O::conv_mode, O::conv_lowering, O::threading, O::onednn_conv_layout, O::pool_gradient,
        O::deterministic},
       onednn_conv_lowerings()},
#ifdef ABLATE_HAVE_CUDA
      {"cuda", make_cuda_backend, {O::threads, O::pool_gradient, O::deterministic}, {}},
#endif
  };
  return entries;
}

std::string joined(const std::vector<std::string>& names) {
  std::string list;
  for (const auto& name : names) list += (list.empty() ? "" : ", ") + name;
  return list;
}

const Entry& entry_of(const std::string& name) {
  for (const Entry& e : table())
    if (e.name == name) return e;
  throw std::invalid_argument("backend '" + name + "' is not known; the known backends are: " + joined(backend_names()));
}

bool takes(const Entry& e, BackendOption option) {
  for (BackendOption o : e.options)
    if (o == option) return true;
  return false;
}

}  // namespace

std::vector<std::string> backend_names() {
  std::vector<std::string> names;
  for (const Entry& e : table()) names.push_back(e.name);
  return names;
}

std::vector<std::string> cpu_speed_backend_names() {
  std::vector<std::string> out;
  for (const std::string& b : backend_names())
    if (b != "reference" && b != "cuda") out.push_back(b);
  return out;
}

std::vector<BackendOption> backend_options_of(const std::string& backend) { return entry_of(backend).options; }

std::vector<std::string> backends_taking(BackendOption option) {
  std::vector<std::string> names;
  for (const Entry& e : table())
    if (takes(e, option)) names.push_back(e.name);
  return names;
}

std::vector<cpu::ConvLowering> conv_lowerings_of(const std::string& backend) { return entry_of(backend).lowerings; }

std::string option_problem(const std::string& backend, const BackendOptions& options, BackendOption option) {
  const Entry& e = entry_of(backend);
  if (!takes(e, option)) {
    const std::vector<std::string> owners = backends_taking(option);
    return describe_option(options, option) + " is an option of the " + joined(owners) +
           (owners.size() == 1 ? " backend" : " backends") + ", not of '" + backend + "'";
  }
  if (option == BackendOption::conv_lowering && options.conv_lowering) {
    const cpu::ConvLowering asked = *options.conv_lowering;
    std::vector<std::string> names, owners;
    for (cpu::ConvLowering l : e.lowerings) names.push_back(cpu::conv_lowering_name(l));
    for (const Entry& other : table())
      for (cpu::ConvLowering l : other.lowerings)
        if (l == asked) owners.push_back(other.name);
    for (cpu::ConvLowering l : e.lowerings)
      if (l == asked) return "";
    return describe_option(options, option) + " is not a lowering of the '" + backend + "' backend (it takes " +
           joined(names) + "; " + cpu::conv_lowering_name(asked) + " runs on " +
           (owners.empty() ? std::string("no backend of this build") : joined(owners)) + ")";
  }
  if ((option == BackendOption::threading || option == BackendOption::conv_mode) && !e.lowerings.empty()) {
    try {
      cpu::resolve_conv_setup(e.lowerings.front(), options.conv_mode, options.conv_lowering, options.threading);
    } catch (const std::invalid_argument& error) {
      return error.what();
    }
  }
  return "";
}

void check_backend_options(const std::string& backend, const BackendOptions& options) {
  entry_of(backend);
  if (options.threads < 1)
    throw std::invalid_argument("--threads " + std::to_string(options.threads) + ": expected a count of at least 1");
  for (BackendOption option : options_set(options)) {
    const std::string problem = option_problem(backend, options, option);
    if (!problem.empty()) throw std::invalid_argument(problem);
  }
}

std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options) {
  check_backend_options(name, options);
  std::unique_ptr<Backend> backend = entry_of(name).factory(options);
  backend->set_threads(options.threads);
  backend->set_pool_gradient(options.pool_gradient.value_or(PoolGradient::first));
  if (options.deterministic && !backend->make_deterministic())
    throw std::invalid_argument("deterministic: backend '" + name + "' cannot promise bit-identical runs (" +
                                backend->library_version() + ")");
  return backend;
}

std::unique_ptr<Backend> make_backend(const std::string& name, int threads) {
  BackendOptions options;
  options.threads = threads;
  return make_backend(name, options);
}

}  // namespace ablate::kernels
