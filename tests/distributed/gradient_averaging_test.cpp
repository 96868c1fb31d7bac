// Bucketed gradient averaging: every gradient becomes the mean over the ranks, whatever the
// bucket size (one bucket, one per parameter, a parameter larger than a bucket).
#include <gtest/gtest.h>

#include <vector>

#include "graph/distributed/communicator.h"
#include "graph/distributed/data_parallel.h"

namespace ablate::graph::distributed {
namespace {

double grad_value(int r, std::size_t p, std::int64_t i) { return 0.5 * r - 0.25 * static_cast<double>(p) + 0.001 * i; }

void check_averaging(const std::string& algorithm, std::int64_t bucket_bytes, std::int64_t expected_buckets) {
  const std::vector<std::int64_t> sizes = {7, 300, 1, 64};  // f32: 28, 1200, 4, 256 bytes
  std::vector<Parameter> storage(sizes.size());
  std::vector<Parameter*> params;
  for (std::size_t p = 0; p < sizes.size(); ++p) {
    storage[p].name = "p" + std::to_string(p);
    storage[p].value = kernels::Tensor({sizes[p]});
    storage[p].grad = kernels::Tensor({sizes[p]});
    params.push_back(&storage[p]);
  }
  GradientAverager averager({algorithm, bucket_bytes});
  for (int step = 0; step < 2; ++step) {
    for (std::size_t p = 0; p < sizes.size(); ++p)
      for (std::int64_t i = 0; i < sizes[p]; ++i) storage[p].grad.set(i, grad_value(rank(), p, i) + step);
    averager.average(params);
    for (std::size_t p = 0; p < sizes.size(); ++p)
      for (std::int64_t i = 0; i < sizes[p]; ++i) {
        double mean = 0;
        for (int r = 0; r < size(); ++r) mean += static_cast<double>(static_cast<float>(grad_value(r, p, i) + step));
        mean /= size();
        ASSERT_NEAR(storage[p].grad.at(i), mean, 1e-6) << algorithm << " bucket " << bucket_bytes << " p" << p;
      }
  }
  EXPECT_EQ(averager.buckets(), expected_buckets) << "bucket size " << bucket_bytes;
  EXPECT_EQ(averager.stats().calls, 2 * expected_buckets);
  EXPECT_EQ(averager.stats().steps, 2);
  EXPECT_EQ(averager.stats().payload_bytes, 2 * (7 + 300 + 1 + 64) * 4);
}

TEST(DistributedGradientAveraging, OneBucketHoldsEverything) { check_averaging("mpi", 1 << 20, 1); }
TEST(DistributedGradientAveraging, SmallBucketsSplitAtParameters) {
  // 28 | 1200 (over the bucket: alone) | 4 + 256 -> 3 buckets of at most 300 bytes
  check_averaging("mpi", 300, 3);
}
TEST(DistributedGradientAveraging, RingAveragesAlike) { check_averaging("ring", 300, 3); }
TEST(DistributedGradientAveraging, OneBucketPerParameter) { check_averaging("ring", 1, 4); }

TEST(DistributedGradientAveraging, BadOptionsAreErrors) {
  EXPECT_THROW(GradientAverager({"tree", 1024}), std::invalid_argument);
  EXPECT_THROW(GradientAverager({"mpi", 0}), std::invalid_argument);
}

}  // namespace
}  // namespace ablate::graph::distributed
