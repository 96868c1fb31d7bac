// The per-layer dispatcher (see planned_backend.h): routes, identity and settings over the
// backends it holds.
#include "kernels/planned_backend.h"

#include <algorithm>
#include <stdexcept>

namespace ablate::kernels {

PlannedBackend::PlannedBackend(std::unique_ptr<Backend> fallback, std::string label) {
  add(std::move(fallback), std::move(label));
}

Backend& PlannedBackend::add(std::unique_ptr<Backend> backend, std::string label) {
  if (!backend) throw std::invalid_argument("planned backend: no backend given for '" + label + "'");
  if (backend->device() != Device::cpu)
    throw std::invalid_argument("planned backend: '" + label + "' runs on a device (" + backend->name() +
                                "); a plan mixes host backends only, whose tensors pass without a copy");
  backends_.push_back({std::move(backend), std::move(label)});
  return *backends_.back().backend;
}

const PlannedBackend::Owned& PlannedBackend::owned_of(const Backend& backend) const {
  for (const Owned& o : backends_)
    if (o.backend.get() == &backend) return o;
  throw std::invalid_argument("planned backend: '" + backend.name() + "' was not added to this plan");
}

std::string_view PlannedBackend::weights_layer(std::string_view row) {
  if (row.size() <= kWeightsSuffix.size() || row.substr(row.size() - kWeightsSuffix.size()) != kWeightsSuffix) return {};
  return row.substr(0, row.size() - kWeightsSuffix.size());
}

void PlannedBackend::route(const std::string& layer, Backend& backend, bool blocked) {
  owned_of(backend);

  for (const auto& [name, b] : routes_)
    if (name == layer)
      throw std::invalid_argument("planned backend: layer '" + layer + "' is routed twice (to " + owned_of(*b).label +
                                  " and " + owned_of(backend).label + ")");
  routes_.emplace_back(layer, &backend);
  if (blocked && weights_layer(layer).empty()) blocked_.push_back(layer);  // a weights row takes its layer's layout
}

void PlannedBackend::route_all(Backend* backend, std::vector<std::pair<std::string, Backend*>> except, bool blocked) {
  if (backend) owned_of(*backend);
  for (const auto& [layer, b] : except) owned_of(*b);
  all_ = backend;
  all_blocked_ = backend && blocked;
  all_except_ = backend ? std::move(except) : std::vector<std::pair<std::string, Backend*>>{};
}

Backend& PlannedBackend::backend_of(std::string_view layer) const {
  if (all_) {
    for (const auto& [name, b] : all_except_)
      if (name == layer) return *b;
    return *all_;
  }
  for (const auto& [name, b] : routes_)
    if (name == layer) return *b;
  return *backends_.front().backend;
}

Backend& PlannedBackend::weights_backend_of(std::string_view layer) const {
  if (blocked(layer)) return backend_of(layer);
  for (const auto& [name, b] : all_ ? all_except_ : routes_)
    if (!layer.empty() && weights_layer(name) == layer) return *b;
  return backend_of(layer);
}

bool PlannedBackend::blocked(std::string_view layer) const {
  return all_ ? all_blocked_ : std::find(blocked_.begin(), blocked_.end(), layer) != blocked_.end();
}

int PlannedBackend::channel_block_for(DType dtype, std::string_view layer) const {
  return blocked(layer) ? backend_of(layer).channel_block(dtype) : 0;
}

bool PlannedBackend::fuses_conv_max_pool(const Pool2dParams& pp) const {
  return std::all_of(backends_.begin(), backends_.end(), [&](const Owned& o) { return o.backend->fuses_conv_max_pool(pp); });
}

std::string PlannedBackend::library_version() const {
  std::vector<std::string> seen;
  std::string out = "planned:";
  for (const Owned& o : backends_) {
    const std::string v = o.backend->library_version();
    bool known = false;
    for (const std::string& s : seen) known = known || s == v;
    if (known) continue;
    seen.push_back(v);
    out += (seen.size() == 1 ? " " : "; ") + v;
  }
  return out;
}

void PlannedBackend::set_threads(int threads) {
  for (Owned& o : backends_) o.backend->set_threads(threads);
}

// The most threads any held backend runs with: the setting the run asked for, which a
// single-threaded backend (reference) among them does not change.
int PlannedBackend::threads() const {
  int most = 1;
  for (const Owned& o : backends_) most = std::max(most, o.backend->threads());
  return most;
}

void PlannedBackend::release_threads() {
  for (Owned& o : backends_) o.backend->release_threads();
}

double PlannedBackend::setup_seconds() const {
  double total = 0;
  for (const Owned& o : backends_) total += o.backend->setup_seconds();
  return total;
}

bool PlannedBackend::deterministic() const {
  for (const Owned& o : backends_)
    if (!o.backend->deterministic()) return false;
  return true;
}

bool PlannedBackend::make_deterministic() {
  bool all = true;
  for (Owned& o : backends_) all = o.backend->make_deterministic() && all;
  return all;
}

std::vector<std::pair<std::string, std::string>> PlannedBackend::choices() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [layer, b] : routes_) out.emplace_back("plan." + layer, owned_of(*b).label);
  out.emplace_back("plan.fallback", backends_.front().label);
  for (const Owned& o : backends_)
    for (auto& [key, value] : o.backend->choices()) out.emplace_back(o.label + "." + key, value);
  return out;
}

}  // namespace ablate::kernels
