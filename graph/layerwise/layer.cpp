// Layer base: set-up order, parameter and state blobs and the error prefix shared by every layer.
#include "graph/layerwise/layer.h"

#include <stdexcept>

namespace ablate::graph::layerwise {

Layer::Layer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype)
    : backend_(backend), dtype_(dtype), spec_(spec) {}

std::string Layer::where() const { return spec_.where(); }

void Layer::fail(const std::string& what) const { spec_.fail(what); }

void Layer::setup(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  const int bottoms = static_cast<int>(bottom.size());
  const bool bottoms_fit = bottom_count() >= 0 ? bottoms == bottom_count() : bottoms >= min_bottom_count();
  if (!bottoms_fit || static_cast<int>(top.size()) != top_count())
    fail("set up with " + std::to_string(bottom.size()) + " bottom and " + std::to_string(top.size()) +
         " top blobs; expected " +
         (bottom_count() >= 0 ? std::to_string(bottom_count()) : "at least " + std::to_string(min_bottom_count())) +
         " and " + std::to_string(top_count()));
  layer_setup(bottom);
  reshape(bottom, top);
}

void Layer::backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                     const std::vector<Blob*>& bottom) {
  if (propagate_down.size() != bottom.size())
    fail("backward with " + std::to_string(propagate_down.size()) + " propagate_down flags for " +
         std::to_string(bottom.size()) + " bottom blobs; expected one per bottom");
  run_backward(top, propagate_down, bottom);
}

void Layer::backward(const std::vector<Blob*>& top, bool propagate_down, const std::vector<Blob*>& bottom) {
  std::vector<bool> flags(bottom.size(), false);
  if (!flags.empty()) flags[0] = propagate_down;
  backward(top, flags, bottom);
}

void Layer::add_blob(const std::string& suffix, const kernels::Shape& shape) {
  auto blob = std::make_shared<Blob>(spec_.name + "." + suffix, dtype_, backend_.allocator());
  blob->reshape(shape);
  blobs_.push_back(std::move(blob));
  blob_suffixes_.push_back(suffix);
}

void Layer::add_state(const std::string& suffix, const kernels::Shape& shape) {
  auto blob = std::make_shared<Blob>(spec_.name + "." + suffix, dtype_, backend_.allocator(), /*with_diff=*/false);
  blob->reshape(shape);
  state_blobs_.push_back(std::move(blob));
  state_suffixes_.push_back(suffix);
}

void Layer::require_dims(const Blob& bottom, int dims, const char* layout) const {
  if (static_cast<int>(bottom.shape().size()) != dims)
    fail("expects a " + std::to_string(dims) + "-D input " + layout + ", got " + kernels::shape_string(bottom.shape()));
}

}  // namespace ablate::graph::layerwise
