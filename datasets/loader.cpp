// BatchLoader: Caffe's prefetching data layer (BasePrefetchingDataLayer) over a SampleOrder
// and a Transform. Batch j lives in slot j % 3 of a ring allocated once. With prefetch, a
// background thread fills batch j as soon as the consumer has taken batch j - 1, i.e. it
// runs at most one batch ahead, so it never touches the batch being trained on nor the one
// before it. Without prefetch, next() fills the same slot itself: identical batches.
// Sharded (data-parallel), every shard draws the same global batch of indices and fills only
// its own contiguous slice of it.
#include "datasets/loader.h"

#include <array>
#include <exception>
#include <stdexcept>

#include "datasets/sample_order.h"

namespace ablate::datasets {

namespace {
constexpr std::int64_t kRing = 3;
}  // namespace

struct BatchLoader::Impl {
  struct Slot {
    Batch batch;
    std::int64_t position_after = 0;  // SampleOrder::position() once this batch was taken
  };

  const ImageSet& set;
  Transform transform;
  LoaderOptions options;
  SampleOrder order;                // used by the filling side only
  std::vector<std::int64_t> idx;    // scratch of the filling side: the global batch's indices
  std::int64_t local = 0, offset = 0;  // this shard's slice of the global batch
  std::array<Slot, kRing> ring;
  std::int64_t position = 0;        // consumer side

  std::mutex mutex;
  std::condition_variable changed;
  std::int64_t produced = 0, consumed = 0;  // batches filled, batches returned by next()
  bool stop = false;
  std::exception_ptr error;
  std::thread worker;

  Impl(const ImageSet& s, Transform t, const LoaderOptions& o)
      : set(s), transform(std::move(t)), options(o),
        order(s.count(), o.batch, o.shuffle, o.seed, o.drop_last, s.name),
        idx(static_cast<std::size_t>(o.batch)), local(o.batch / o.shards), offset(o.shard * local) {
    for (std::int64_t j = 0; j < o.first_batch; ++j) order.next(idx.data());  // skip what was trained
    position = order.position();
    produced = consumed = o.first_batch;
  }

  // Fills slot j % 3 with batch j (called for j = 0, 1, 2, ... in order).
  void fill(std::int64_t j) {
    Slot& slot = ring[static_cast<std::size_t>(j % kRing)];
    slot.batch.epoch = order.next(idx.data());
    std::int32_t* labels = slot.batch.labels.data<std::int32_t>();
    const std::int64_t* mine = idx.data() + offset;
    for (std::int64_t i = 0; i < local; ++i) labels[i] = set.labels[static_cast<std::size_t>(mine[i])];
    // draw = batch number; the slice's samples keep their places in the global batch
    transform.apply(set, mine, local, static_cast<std::uint64_t>(j), slot.batch.x, offset);
    slot.position_after = order.position();
  }

  void run() {
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
      changed.wait(lock, [&] { return stop || produced <= consumed; });
      if (stop) return;
      const std::int64_t j = produced;
      lock.unlock();
      try {
        fill(j);
      } catch (...) {
        lock.lock();
        error = std::current_exception();
        changed.notify_all();
        return;
      }
      lock.lock();
      produced = j + 1;
      changed.notify_all();
    }
  }
};

BatchLoader::BatchLoader(const ImageSet& set, Transform transform, LoaderOptions options) {
  if (options.first_batch < 0)
    throw std::invalid_argument("batch loader for " + set.name + ": first batch " +
                                std::to_string(options.first_batch) + " is negative");
  if (options.dtype != kernels::DType::f32 && options.dtype != kernels::DType::f64)
    throw std::invalid_argument(std::string("batch loader for ") + set.name + ": precision " +
                                kernels::dtype_name(options.dtype) + " is not valid; expected f32 or f64");
  if (!transform.apply_at)
    throw std::invalid_argument("batch loader for " + set.name + ": transform '" + transform.name +
                                "' has no apply function");
  if (set.pixels.size() != static_cast<std::size_t>(set.count() * set.image_size()))
    throw std::invalid_argument("batch loader for " + set.name + ": " + std::to_string(set.pixels.size()) +
                                " pixel bytes do not match " + std::to_string(set.count()) + " images of " +
                                std::to_string(set.image_size()) + " bytes");
  if (options.shards < 1 || options.shard < 0 || options.shard >= options.shards || options.batch % options.shards != 0)
    throw std::invalid_argument("batch loader for " + set.name + ": shard " + std::to_string(options.shard) + " of " +
                                std::to_string(options.shards) + " with global batch " + std::to_string(options.batch) +
                                "; expected 0 <= shard < shards and a batch that divides by shards");
  int c = set.channels, h = set.height, w = set.width;
  if (transform.output_shape) transform.output_shape(c, h, w);

  impl_ = std::make_unique<Impl>(set, std::move(transform), options);
  for (auto& slot : impl_->ring) {
    slot.batch.x = kernels::Tensor({impl_->local, c, h, w}, options.dtype);
    slot.batch.labels = kernels::Tensor({impl_->local}, kernels::DType::i32);
  }
  if (options.prefetch) impl_->worker = std::thread([impl = impl_.get()] { impl->run(); });
}

BatchLoader::~BatchLoader() {
  if (!impl_ || !impl_->worker.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    impl_->stop = true;
  }
  impl_->changed.notify_all();
  impl_->worker.join();
}

Batch BatchLoader::next() {
  Impl& m = *impl_;
  const std::int64_t j = m.consumed;
  if (m.options.prefetch) {
    std::unique_lock<std::mutex> lock(m.mutex);
    m.changed.wait(lock, [&] { return m.produced > j || m.error; });
    if (m.produced <= j) std::rethrow_exception(m.error);
  } else {
    m.fill(j);
  }
  const Impl::Slot& slot = m.ring[static_cast<std::size_t>(j % kRing)];
  m.position = slot.position_after;
  Batch batch = slot.batch;
  {
    std::lock_guard<std::mutex> lock(m.mutex);
    m.consumed = j + 1;
  }
  m.changed.notify_all();
  return batch;
}

std::int64_t BatchLoader::batches_per_epoch() const { return impl_->order.batches_per_epoch(); }

std::int64_t BatchLoader::position() const { return impl_->position; }

}  // namespace ablate::datasets
