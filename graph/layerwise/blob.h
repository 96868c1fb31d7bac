// Blob: Caffe's unit of data, a tensor of values (data) and a tensor of gradients (diff) of
// one shape. As Caffe's Blob::Reshape, storage only grows: a reshape to fewer elements than
// the capacity is a view of the existing storage, so a net that alternates between batch
// sizes allocates once for the largest. A blob may share another blob's data (Caffe's
// Blob::ShareData, the tops of a Split layer): it then has a diff of its own and no data
// storage; its data is the source's, whatever shape the source has.
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
  // A blob sharing data must be reshaped to its source's shape (only its diff is its own).
  void reshape(const kernels::Shape& shape);
  const kernels::Shape& shape() const { return shape_; }
  std::int64_t count() const { return kernels::shape_numel(shape_); }
  std::int64_t capacity() const { return capacity_; }
  bool has_diff() const { return with_diff_; }
  // Caffe's ShareData: from now on data() is `source`'s data (no copy; writes go to the
  // source); this blob's own data storage is released. `source` must outlive this blob.
  void share_data(Blob& source);
  bool shares_data() const { return data_source_ != nullptr; }

  // The channel-blocked layout of its data and diff (kernels/tensor.h, nChw{B}c; 0: NCHW), kept
  // through reshapes: the layer-wise strategy's blocked layout (net.h). A blob sharing data
  // takes the source's data as it is and blocks its own diff.
  void set_channel_block(int block);
  int channel_block() const { return block_; }

  kernels::Tensor& data() { return data_source_ ? data_source_->data() : data_; }
  const kernels::Tensor& data() const { return data_source_ ? data_source_->data() : data_; }
  // Throws for a blob made without a diff.
  kernels::Tensor& diff();
  const kernels::Tensor& diff() const;

 private:
  std::string name_;
  kernels::DType dtype_;
  kernels::Allocator& allocator_;
  bool with_diff_;
  Blob* data_source_ = nullptr;  // share_data's source
  std::int64_t capacity_ = 0;
  int block_ = 0;
  kernels::Shape shape_;
  kernels::Tensor data_storage_, diff_storage_;  // flat [capacity] (no data storage when sharing)
  kernels::Tensor data_, diff_;                  // views of the first count() elements
};

}  // namespace ablate::graph::layerwise
