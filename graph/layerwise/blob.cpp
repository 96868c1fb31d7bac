// Blob storage with Caffe's grow-only reshape (see blob.h).
#include "graph/layerwise/blob.h"

#include <stdexcept>

namespace ablate::graph::layerwise {

Blob::Blob(std::string name, kernels::DType dtype, kernels::Allocator& allocator, bool with_diff)
    : name_(std::move(name)), dtype_(dtype), allocator_(allocator), with_diff_(with_diff) {}

void Blob::reshape(const kernels::Shape& shape) {
  const std::int64_t count = kernels::shape_numel(shape);
  if (count <= 0)
    throw std::invalid_argument("blob '" + name_ + "' reshaped to " + kernels::shape_string(shape) +
                                "; expected a shape with at least one element");
  if (count > capacity_) {
    data_storage_ = kernels::Tensor({count}, dtype_, &allocator_);
    if (with_diff_) diff_storage_ = kernels::Tensor({count}, dtype_, &allocator_);
    capacity_ = count;
  }
  if (shape == data_.shape() && !data_.empty()) return;
  data_ = data_storage_.slice0(0, count).reshaped(shape);
  if (with_diff_) diff_ = diff_storage_.slice0(0, count).reshaped(shape);
}

kernels::Tensor& Blob::diff() {
  if (!with_diff_) throw std::logic_error("blob '" + name_ + "' carries no diff");
  return diff_;
}

const kernels::Tensor& Blob::diff() const {
  if (!with_diff_) throw std::logic_error("blob '" + name_ + "' carries no diff");
  return diff_;
}

}  // namespace ablate::graph::layerwise
