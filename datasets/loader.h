// BatchLoader: walks an ImageSet in batches, in order or shuffled once per epoch with a
// seeded generator, applies a Transform, and prepares the next batch on a background thread
// while the current one trains (Caffe's prefetching data layer). A batch that would run past
// the end wraps to the start of the next epoch, as Caffe's data layer does (or, with
// drop_last, an epoch ends at its last whole batch). The sample order depends on the seed
// alone (see sample_order.h); prefetch on or off gives the same batches. Batch j (0, 1, 2, ...
// since the loader was made) is transformed with draw j, so random augmentations repeat too.
//
// Lifetime contract: the loader owns a ring of 3 batches allocated once (Caffe's
// PREFETCH_COUNT); a returned Batch shares storage with one of them. A Batch stays intact
// until next() has been called twice more: the current and the previous batch are always
// safe, while the background thread fills only the one after the current. clone() a batch to
// keep it longer. The ImageSet must outlive the loader (it is read, not copied). next() and
// position() are for one consumer thread; an error in the background thread is re-thrown
// by next().
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "datasets/image_set.h"
#include "datasets/transforms.h"
#include "kernels/tensor.h"

namespace ablate::datasets {

struct Batch {
  kernels::Tensor x;       // [batch, C, H, W], f32 or f64
  kernels::Tensor labels;  // i32 [batch]
  std::int64_t epoch = 0;  // epoch of the batch's first sample
};

struct LoaderOptions {
  std::int64_t batch = 64;       // must be > 0
  bool shuffle = true;
  std::uint64_t seed = 1;
  bool prefetch = true;
  kernels::DType dtype = kernels::DType::f32;
  bool drop_last = false;        // false: wrap around (Caffe); true: epochs of whole batches
  std::int64_t first_batch = 0;  // start at batch j of the sequence (a resumed run): the same
                                 // samples and draws as a loader that returned j batches already
  // Data-parallel sharding: `batch` is the global batch, drawn alike on every shard (same
  // seed), and this loader returns its contiguous slice [shard * batch / shards, +batch / shards),
  // its samples transformed with the random draws of their places in the global batch.
  // batch must divide by shards; 1 shard: the whole batch.
  int shard = 0, shards = 1;
};

class BatchLoader {
 public:
  BatchLoader(const ImageSet& set, Transform transform, LoaderOptions options);
  ~BatchLoader();
  BatchLoader(const BatchLoader&) = delete;
  BatchLoader& operator=(const BatchLoader&) = delete;

  Batch next();
  std::int64_t batches_per_epoch() const;
  // Position in the sample order, for checkpoints: epoch and offset of the next sample.
  std::int64_t position() const;

 private:
  struct Impl;  // ring of batches, sample order, background thread (loader.cpp)
  std::unique_ptr<Impl> impl_;
};

}  // namespace ablate::datasets
