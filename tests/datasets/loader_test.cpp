// BatchLoader: sample coverage per epoch, seeded order, wrap-around and drop_last, prefetch
// on and off giving the same batches, the ring-buffer lifetime contract, errors and their
// propagation from the background thread.
#include "datasets/loader.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <numeric>
#include <thread>

#include "tests/datasets/expect_error.h"

namespace ablate::datasets {
namespace {

// count 1x1x2 images; image i has pixels (i, 255 - i) and label i % 10, so a batch tells
// which samples it holds.
ImageSet id_set(int count) {
  ImageSet set;
  set.name = "ids";
  set.channels = 1, set.height = 1, set.width = 2, set.classes = 10;
  for (int i = 0; i < count; ++i) {
    set.pixels.push_back(static_cast<std::uint8_t>(i));
    set.pixels.push_back(static_cast<std::uint8_t>(255 - i));
    set.labels.push_back(i % 10);
  }
  return set;
}

LoaderOptions options(std::int64_t batch, bool shuffle, std::uint64_t seed = 1, bool prefetch = true) {
  LoaderOptions o;
  o.batch = batch;
  o.shuffle = shuffle;
  o.seed = seed;
  o.prefetch = prefetch;
  return o;
}

// The sample ids of a batch, checking that labels and the second pixel agree with them.
std::vector<int> ids_of(const Batch& b) {
  std::vector<int> ids;
  const std::int64_t n = b.x.dim(0);
  for (std::int64_t i = 0; i < n; ++i) {
    int id = static_cast<int>(b.x.at(2 * i));
    EXPECT_EQ(b.x.at(2 * i + 1), 255 - id);
    EXPECT_EQ(b.labels.at(i), id % 10);
    ids.push_back(id);
  }
  return ids;
}

// The ids of the next `batches` batches, one after another.
std::vector<int> stream(BatchLoader& loader, int batches) {
  std::vector<int> all;
  for (int k = 0; k < batches; ++k) {
    auto ids = ids_of(loader.next());
    all.insert(all.end(), ids.begin(), ids.end());
  }
  return all;
}

bool is_permutation_of_range(std::vector<int> ids, int count) {
  std::sort(ids.begin(), ids.end());
  std::vector<int> expected(count);
  std::iota(expected.begin(), expected.end(), 0);
  return ids == expected;
}

TEST(BatchLoader, ShuffledEpochVisitsEverySampleOnce) {
  ImageSet set = id_set(60);
  BatchLoader loader(set, scale_transform(1), options(12, true, 3));
  EXPECT_EQ(loader.batches_per_epoch(), 5);
  std::vector<int> epoch0 = stream(loader, 5), epoch1 = stream(loader, 5);
  EXPECT_TRUE(is_permutation_of_range(epoch0, 60));
  EXPECT_TRUE(is_permutation_of_range(epoch1, 60));
  std::vector<int> identity(60);
  std::iota(identity.begin(), identity.end(), 0);
  EXPECT_NE(epoch0, identity);
  EXPECT_NE(epoch0, epoch1);  // reshuffled each epoch
}

TEST(BatchLoader, SameSeedSameOrderOtherSeedOtherOrder) {
  ImageSet set = id_set(50);
  BatchLoader a(set, scale_transform(1), options(7, true, 11));
  BatchLoader b(set, scale_transform(1), options(7, true, 11));
  BatchLoader c(set, scale_transform(1), options(7, true, 12));
  std::vector<int> sa = stream(a, 20), sb = stream(b, 20), sc = stream(c, 20);
  EXPECT_EQ(sa, sb);
  EXPECT_NE(sa, sc);
}

TEST(BatchLoader, SequentialWrapAround) {
  ImageSet set = id_set(10);
  BatchLoader loader(set, scale_transform(1), options(4, false));
  EXPECT_EQ(loader.batches_per_epoch(), 3);
  EXPECT_EQ(loader.position(), 0);
  const std::vector<std::vector<int>> expected = {{0, 1, 2, 3}, {4, 5, 6, 7}, {8, 9, 0, 1}, {2, 3, 4, 5}};
  const std::int64_t epochs[] = {0, 0, 0, 1};
  for (int k = 0; k < 4; ++k) {
    Batch b = loader.next();
    EXPECT_EQ(ids_of(b), expected[k]) << "batch " << k;
    EXPECT_EQ(b.epoch, epochs[k]) << "batch " << k;
    EXPECT_EQ(loader.position(), 4 * (k + 1));
  }
}

TEST(BatchLoader, ShuffledWrapAroundKeepsEpochsWhole) {
  ImageSet set = id_set(10);
  BatchLoader loader(set, scale_transform(1), options(4, true, 5));
  std::vector<int> all = stream(loader, 10);  // 40 samples: four epochs across batch boundaries
  for (int e = 0; e < 4; ++e)
    EXPECT_TRUE(is_permutation_of_range({all.begin() + 10 * e, all.begin() + 10 * (e + 1)}, 10)) << "epoch " << e;
}

TEST(BatchLoader, BatchLargerThanSetWraps) {
  ImageSet set = id_set(3);
  BatchLoader loader(set, scale_transform(1), options(8, false));
  Batch first = loader.next();
  EXPECT_EQ(ids_of(first), (std::vector<int>{0, 1, 2, 0, 1, 2, 0, 1}));
  EXPECT_EQ(first.epoch, 0);
  Batch second = loader.next();
  EXPECT_EQ(ids_of(second), (std::vector<int>{2, 0, 1, 2, 0, 1, 2, 0}));
  EXPECT_EQ(second.epoch, 2);  // sample 8 is epoch 2, offset 2
  EXPECT_EQ(loader.position(), 16);
  EXPECT_EQ(loader.batches_per_epoch(), 1);
}

TEST(BatchLoader, DropLastSkipsTheRemainder) {
  ImageSet set = id_set(10);
  LoaderOptions o = options(4, false);
  o.drop_last = true;
  BatchLoader loader(set, scale_transform(1), o);
  EXPECT_EQ(loader.batches_per_epoch(), 2);
  const std::vector<std::vector<int>> expected = {{0, 1, 2, 3}, {4, 5, 6, 7}, {0, 1, 2, 3}};
  const std::int64_t epochs[] = {0, 0, 1}, positions[] = {4, 10, 14};
  for (int k = 0; k < 3; ++k) {
    Batch b = loader.next();
    EXPECT_EQ(ids_of(b), expected[k]) << "batch " << k;
    EXPECT_EQ(b.epoch, epochs[k]);
    EXPECT_EQ(loader.position(), positions[k]);
  }
  // Shuffled: each epoch's two batches are distinct samples, and epochs differ.
  o.shuffle = true;
  BatchLoader shuffled(set, scale_transform(1), o);
  std::vector<int> e0 = stream(shuffled, 2), e1 = stream(shuffled, 2);
  EXPECT_NE(e0, e1);
  std::sort(e0.begin(), e0.end());
  EXPECT_EQ(std::unique(e0.begin(), e0.end()), e0.end());
}

TEST(BatchLoader, PrefetchOnAndOffGiveIdenticalBatches) {
  ImageSet set = id_set(37);
  for (bool drop_last : {false, true}) {
    LoaderOptions on = options(8, true, 9, true), off = options(8, true, 9, false);
    on.dtype = off.dtype = kernels::DType::f64;
    on.drop_last = off.drop_last = drop_last;
    BatchLoader a(set, scale_transform(1.0 / 255), on);
    BatchLoader b(set, scale_transform(1.0 / 255), off);
    for (int k = 0; k < 25; ++k) {
      Batch x = a.next(), y = b.next();
      ASSERT_EQ(x.x.describe(), "f64[8, 1, 1, 2]");
      ASSERT_EQ(y.x.describe(), "f64[8, 1, 1, 2]");
      ASSERT_EQ(x.labels.describe(), "i32[8]");
      for (std::int64_t i = 0; i < 16; ++i) ASSERT_EQ(x.x.at(i), y.x.at(i)) << "batch " << k;
      for (std::int64_t i = 0; i < 8; ++i) ASSERT_EQ(x.labels.at(i), y.labels.at(i)) << "batch " << k;
      ASSERT_EQ(x.epoch, y.epoch);
      ASSERT_EQ(a.position(), b.position());
    }
  }
}

TEST(BatchLoader, CurrentAndPreviousBatchStayIntact) {
  ImageSet set = id_set(64);
  BatchLoader loader(set, scale_transform(1), options(16, true, 2));
  Batch b0 = loader.next();
  kernels::Tensor x0 = b0.x.clone(), l0 = b0.labels.clone();
  Batch b1 = loader.next();
  kernels::Tensor x1 = b1.x.clone();
  // Give the background thread time to fill the batch after b1.
  std::this_thread::sleep_for(std::chrono::milliseconds(30));
  for (std::int64_t i = 0; i < x0.numel(); ++i) {
    ASSERT_EQ(b0.x.at(i), x0.at(i));
    ASSERT_EQ(b1.x.at(i), x1.at(i));
  }
  for (std::int64_t i = 0; i < 16; ++i) ASSERT_EQ(b0.labels.at(i), l0.at(i));
  // Buffers are allocated once and reused round a ring of three.
  Batch b2 = loader.next(), b3 = loader.next();
  EXPECT_FALSE(b2.x.same_storage(b0.x));
  EXPECT_FALSE(b2.x.same_storage(b1.x));
  EXPECT_TRUE(b3.x.same_storage(b0.x));
  EXPECT_TRUE(b3.labels.same_storage(b0.labels));
}

TEST(BatchLoader, OutputShapeOfTheTransform) {
  ImageSet set = id_set(5);
  Transform first_pixel;
  first_pixel.name = "first-pixel";
  first_pixel.output_shape = [](int&, int&, int& w) { w = 1; };
  first_pixel.apply_at = [](const ImageSet& s, const std::int64_t* idx, std::int64_t n, std::uint64_t, std::int64_t,
                            kernels::Tensor& out) {
    for (std::int64_t i = 0; i < n; ++i) out.set(i, s.image(idx[i])[0]);
  };
  BatchLoader loader(set, first_pixel, options(3, false));
  Batch b = loader.next();
  EXPECT_EQ(b.x.describe(), "f32[3, 1, 1, 1]");
  EXPECT_EQ(b.x.at(2), 2);
}

Transform failing_on_call(int failing_call) {
  Transform t = scale_transform(1);
  auto inner = t.apply_at;
  auto calls = std::make_shared<std::atomic<int>>(0);
  t.apply_at = [inner, calls, failing_call](const ImageSet& s, const std::int64_t* idx, std::int64_t n,
                                            std::uint64_t draw, std::int64_t first, kernels::Tensor& out) {
    if (++*calls == failing_call) throw std::runtime_error("decoder failed on batch " + std::to_string(failing_call));
    inner(s, idx, n, draw, first, out);
  };
  return t;
}

TEST(BatchLoader, ErrorInTheBackgroundThreadIsRethrownByNext) {
  ImageSet set = id_set(20);
  for (bool prefetch : {true, false}) {
    SCOPED_TRACE(prefetch ? "prefetch" : "no prefetch");
    BatchLoader loader(set, failing_on_call(3), options(4, true, 1, prefetch));
    EXPECT_NO_THROW(loader.next());
    EXPECT_NO_THROW(loader.next());
    EXPECT_ERROR_CONTAINS(std::runtime_error, loader.next(), "decoder failed on batch 3");
  }
}

TEST(BatchLoader, DestroysCleanlyWhilePrefetching) {
  ImageSet set = id_set(200);
  for (int k = 0; k < 20; ++k) {
    BatchLoader loader(set, scale_transform(1), options(50, true, k));
    if (k % 2) loader.next();
  }
  SUCCEED();  // reaching here means no deadlock and no crash on join
}

TEST(BatchLoader, BadOptionsNameTheValue) {
  ImageSet set = id_set(10);
  EXPECT_ERROR_CONTAINS(std::invalid_argument, BatchLoader(set, scale_transform(1), options(0, true)),
                        "batch size 0", "ids", "expected > 0");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, BatchLoader(set, scale_transform(1), options(-5, true)),
                        "batch size -5");
  LoaderOptions o = options(11, true);
  o.drop_last = true;
  EXPECT_ERROR_CONTAINS(std::invalid_argument, BatchLoader(set, scale_transform(1), o), "batch size 11",
                        "10 images of ids", "drop_last");
  ImageSet empty = id_set(0);
  EXPECT_ERROR_CONTAINS(std::invalid_argument, BatchLoader(empty, scale_transform(1), options(4, true)),
                        "ids holds 0 images");
  o = options(4, true);
  o.dtype = kernels::DType::i32;
  EXPECT_ERROR_CONTAINS(std::invalid_argument, BatchLoader(set, scale_transform(1), o), "precision i32",
                        "expected f32 or f64");
  ImageSet broken = id_set(10);
  broken.pixels.pop_back();
  EXPECT_ERROR_CONTAINS(std::invalid_argument, BatchLoader(broken, scale_transform(1), options(4, true)),
                        "19 pixel bytes");
}

}  // namespace
}  // namespace ablate::datasets

namespace ablate::datasets {
namespace {

// A resumed run's loader: starting at batch j gives batch j, j+1, ... of a loader that started
// at 0 (samples, labels, epochs, position) — with shuffling, wrap-around and a random
// transform whose draws follow the batch number.
TEST(BatchLoader, FirstBatchContinuesTheSameSequence) {
  ImageSet set = id_set(37);
  set.channels = 1, set.height = 1, set.width = 2;
  const Transform flip = parse_transform("random_flip", set, 5);
  for (bool prefetch : {true, false}) {
    LoaderOptions from_start = options(8, true, 9, prefetch), resumed = from_start;
    resumed.first_batch = 7;
    BatchLoader a(set, flip, from_start), b(set, flip, resumed);
    for (int k = 0; k < 7; ++k) a.next();
    EXPECT_EQ(a.position(), b.position());
    for (int k = 7; k < 20; ++k) {
      Batch x = a.next(), y = b.next();
      for (std::int64_t i = 0; i < x.x.numel(); ++i) ASSERT_EQ(x.x.at(i), y.x.at(i)) << "batch " << k;
      for (std::int64_t i = 0; i < 8; ++i) ASSERT_EQ(x.labels.at(i), y.labels.at(i)) << "batch " << k;
      ASSERT_EQ(x.epoch, y.epoch);
      ASSERT_EQ(a.position(), b.position());
    }
  }
  LoaderOptions bad = options(8, true);
  bad.first_batch = -1;
  EXPECT_THROW(BatchLoader(set, flip, bad), std::invalid_argument);
}

}  // namespace
}  // namespace ablate::datasets
