// Epoch permutations and batch boundaries (see sample_order.h).
#include "datasets/sample_order.h"

#include <numeric>
#include <stdexcept>
#include <string>

#include "datasets/seeded_random.h"

namespace ablate::datasets {

SampleOrder::SampleOrder(std::int64_t count, std::int64_t batch, bool shuffle, std::uint64_t seed, bool drop_last,
                         const std::string& set_name)
    : count_(count), batch_(batch), shuffle_(shuffle), drop_last_(drop_last), seed_(seed) {
  if (batch <= 0)
    throw std::invalid_argument("batch size " + std::to_string(batch) + " for " + set_name +
                                " is not valid; expected > 0");
  if (count <= 0)
    throw std::invalid_argument("image set " + set_name + " holds " + std::to_string(count) +
                                " images; cannot make batches of an empty set");
  if (drop_last && batch > count)
    throw std::invalid_argument("batch size " + std::to_string(batch) + " is larger than the " +
                                std::to_string(count) + " images of " + set_name +
                                " with drop_last: no whole batch fits; expected a batch <= " + std::to_string(count) +
                                " or wrap-around");
  order_.resize(static_cast<std::size_t>(count));
  start_epoch(0);
}

void SampleOrder::start_epoch(std::int64_t epoch) {
  epoch_ = epoch;
  offset_ = 0;
  std::iota(order_.begin(), order_.end(), std::int64_t{0});
  if (shuffle_) {
    std::mt19937_64 rng = seeded_generator(seed_, static_cast<std::uint64_t>(epoch));
    seeded_shuffle(order_, rng);
  }
}

std::int64_t SampleOrder::next(std::int64_t* idx) {
  if (offset_ == count_ || (drop_last_ && offset_ + batch_ > count_)) start_epoch(epoch_ + 1);
  const std::int64_t first_epoch = epoch_;
  for (std::int64_t i = 0; i < batch_; ++i) {
    if (offset_ == count_) start_epoch(epoch_ + 1);  // wrap-around only: drop_last never gets here
    idx[i] = order_[static_cast<std::size_t>(offset_++)];
  }
  return first_epoch;
}

std::int64_t SampleOrder::position() const {
  if (drop_last_ && offset_ + batch_ > count_) return (epoch_ + 1) * count_;
  return epoch_ * count_ + offset_;
}

std::int64_t SampleOrder::batches_per_epoch() const {
  return drop_last_ ? count_ / batch_ : (count_ + batch_ - 1) / batch_;
}

}  // namespace ablate::datasets
