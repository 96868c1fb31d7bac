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
  if (data_source_ && shape != data_source_->shape())
    throw std::invalid_argument("blob '" + name_ + "' shares the data of blob '" + data_source_->name_ + "' " +
                                kernels::shape_string(data_source_->shape()) + " and cannot be reshaped to " +
                                kernels::shape_string(shape));
  if (count > capacity_) {
    if (!data_source_) data_storage_ = kernels::Tensor({count}, dtype_, &allocator_);
    if (with_diff_) diff_storage_ = kernels::Tensor({count}, dtype_, &allocator_);
    capacity_ = count;
  }
  if (shape == shape_ && capacity_ > 0) return;
  shape_ = shape;
  if (!data_source_) data_ = data_storage_.slice0(0, count).reshaped(shape).with_channel_block(block_);
  if (with_diff_) diff_ = diff_storage_.slice0(0, count).reshaped(shape).with_channel_block(block_);
}

void Blob::set_channel_block(int block) {
  block_ = block;
  if (shape_.empty()) return;
  if (!data_source_) data_ = data_.with_channel_block(block);  // throws naming the tensor unless 4-D, C % block == 0
  if (with_diff_) diff_ = diff_.with_channel_block(block);
}

void Blob::share_data(Blob& source) {
  if (&source == this || source.dtype_ != dtype_)
    throw std::invalid_argument("blob '" + name_ + "' cannot share the data of blob '" + source.name_ + "'");
  if (data_source_ == &source) return;
  data_source_ = &source;
  data_storage_ = kernels::Tensor();
  data_ = kernels::Tensor();
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
