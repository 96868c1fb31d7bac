// The two all-reduce algorithms (MPI_Allreduce and our ring) against the sum every rank can
// compute itself, and against each other, over sizes below, at and above the rank count.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "graph/distributed/communicator.h"

namespace ablate::graph::distributed {
namespace {

// The value of element i on rank r: distinct per rank and element, not exactly representable sums.
double value_at(int r, std::int64_t i) { return std::sin(0.37 * static_cast<double>(i) + 1.3 * r) * (1.0 + 0.1 * r); }

template <class T>
std::vector<T> local_values(std::int64_t n) {
  std::vector<T> v(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) v[static_cast<std::size_t>(i)] = static_cast<T>(value_at(rank(), i));
  return v;
}

template <class T>
void check_algorithms(kernels::DType dtype, double tolerance) {
  for (std::int64_t n : {0, 1, 2, 3, 7, 1000, 100003}) {
    std::vector<T> by_mpi = local_values<T>(n), by_ring = local_values<T>(n);
    allreduce_sum("mpi", by_mpi.data(), n, dtype);
    allreduce_sum("ring", by_ring.data(), n, dtype);
    for (std::int64_t i = 0; i < n; ++i) {
      double expected = 0;
      for (int r = 0; r < size(); ++r) expected += static_cast<double>(static_cast<T>(value_at(r, i)));
      const auto k = static_cast<std::size_t>(i);
      ASSERT_NEAR(by_ring[k], expected, tolerance * (1 + std::abs(expected))) << "ring, n " << n << ", element " << i;
      ASSERT_NEAR(by_ring[k], by_mpi[k], tolerance * (1 + std::abs(expected))) << "ring vs MPI, n " << n << ", element " << i;
      if (size() == 2) {
        ASSERT_EQ(by_ring[k], by_mpi[k]) << "two ranks add one pair: the same bits";
      }
    }
  }
}

TEST(DistributedAllreduce, RingMatchesMpiAllreduceInF32) { check_algorithms<float>(kernels::DType::f32, 1e-6); }
TEST(DistributedAllreduce, RingMatchesMpiAllreduceInF64) { check_algorithms<double>(kernels::DType::f64, 1e-14); }

TEST(DistributedAllreduce, RunsOnMoreThanOneRank) {
  // The suite is meant for 2 ranks (CTest's mpiexec -n 2); one rank would test nothing.
  EXPECT_GE(size(), 2) << "run under mpiexec -n 2";
}

TEST(DistributedAllreduce, UnknownAlgorithmIsAnError) {
  float x = 1;
  EXPECT_THROW(allreduce_sum("tree", &x, 1, kernels::DType::f32), std::invalid_argument);
}

TEST(DistributedAllreduce, GatherPutsEveryRankOnRankZero) {
  const std::vector<double> all = gather_to_root(10.0 + rank());
  if (rank() != 0) {
    EXPECT_TRUE(all.empty());
    return;
  }
  ASSERT_EQ(all.size(), static_cast<std::size_t>(size()));
  for (int r = 0; r < size(); ++r) EXPECT_EQ(all[static_cast<std::size_t>(r)], 10.0 + r);
}

}  // namespace
}  // namespace ablate::graph::distributed
