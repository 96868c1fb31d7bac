// SampleOrder: which samples make each batch. Epoch e visits the set in a permutation drawn
// from stream e of the seed (or in file order without shuffling), so any epoch's order can
// be rebuilt from the seed alone. Two ways to end an epoch:
//   wrap-around (Caffe's data layer): a batch that runs past the end continues with the
//     next epoch's order, so every batch is full and no sample is skipped;
//   drop_last (tf.data's batch(drop_remainder=True), torch DataLoader(drop_last=True)):
//     an epoch is count / batch whole batches and the remainder is skipped.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ablate::datasets {

class SampleOrder {
 public:
  // Throws naming the bad value: count <= 0, batch <= 0, or batch > count with drop_last.
  SampleOrder(std::int64_t count, std::int64_t batch, bool shuffle, std::uint64_t seed, bool drop_last,
              const std::string& set_name);

  // Writes the next batch's sample indices to idx[0..batch) and returns the epoch of the first.
  std::int64_t next(std::int64_t* idx);
  // Samples passed so far, as epoch * count + offset of the next sample.
  std::int64_t position() const;
  // Wrap-around: ceil(count / batch), the batches that cover one epoch; drop_last: count / batch.
  std::int64_t batches_per_epoch() const;

 private:
  void start_epoch(std::int64_t epoch);

  std::int64_t count_, batch_;
  bool shuffle_, drop_last_;
  std::uint64_t seed_;
  std::int64_t epoch_ = 0, offset_ = 0;
  std::vector<std::int64_t> order_;
};

}  // namespace ablate::datasets
