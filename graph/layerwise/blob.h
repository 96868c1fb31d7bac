// Blob: Caffe's unit of data, a tensor of values (data) and a tensor of gradients (diff) of
// one shape. As Caffe's Blob::Reshape, storage only grows: a reshape to fewer elements than
// the capacity is a view of the existing storage, so a net that alternates between batch
// sizes allocates once for the largest.
#pragma once

#include <cstdint>
#include <string>

#include "kernels/tensor.h"

namespace ablate::graph::layerwise {

class Blob {
 public:
  // `with_diff` false for blobs that never carry a gradient (labels, masks, buffers).
  Blob(std::string name, kernels::DType dtype, kernels::Allocator& allocator, bool with_diff = true);

  const std::string& name() const { return name_; }
  kernels::DType dtype() const { return dtype_; }
  // Sets the shape; allocates (zero-filled) only when its element count exceeds the capacity.
  void reshape(const kernels::Shape& shape);
  const kernels::Shape& shape() const { return data_.shape(); }
  std::int64_t count() const { return data_.numel(); }
  std::int64_t capacity() const { return capacity_; }
  bool has_diff() const { return with_diff_; }

  kernels::Tensor& data() { return data_; }
  const kernels::Tensor& data() const { return data_; }
  // Throws for a blob made without a diff.
  kernels::Tensor& diff();
  const kernels::Tensor& diff() const;

 private:
  std::string name_;
  kernels::DType dtype_;
  kernels::Allocator& allocator_;
  bool with_diff_;
  std::int64_t capacity_ = 0;
  kernels::Tensor data_storage_, diff_storage_;  // flat [capacity]
  kernels::Tensor data_, diff_;                  // views of the first count() elements
};

}  // namespace ablate::graph::layerwise
