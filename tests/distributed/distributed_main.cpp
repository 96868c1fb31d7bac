// GoogleTest main for the MPI tests: run by CTest as `mpiexec -n 2 --oversubscribe test_distributed`.
// Every rank runs every test (the collectives need all of them); rank 0 alone prints. The exit
// status is non-zero if a test failed on any rank.
#include <gtest/gtest.h>

#include "graph/distributed/communicator.h"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  ablate::graph::distributed::init();
  if (ablate::graph::distributed::rank() != 0) {
    auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
  }
  const int failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  const double any_failed = ablate::graph::distributed::allreduce_sum(static_cast<double>(failed));
  return any_failed > 0 ? 1 : 0;
}
