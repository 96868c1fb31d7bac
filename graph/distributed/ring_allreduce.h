// Ring all-reduce over point-to-point calls (Baidu's allreduce, Horovod's ring; Patarasuk and
// Yuan's bandwidth-optimal algorithm). The n values are cut into P chunks (P = ranks, sizes
// n/P or n/P + 1). Reduce-scatter: in step s = 0..P-2 rank r sends chunk (r - s) mod P to rank
// r+1 and adds chunk (r - s - 1) mod P received from rank r-1, so after P-1 steps rank r holds
// the full sum of chunk (r + 1) mod P. All-gather: P-1 more steps pass the finished chunks
// around the ring (rank r sends chunk (r + 1 - s) mod P, receives chunk (r - s) mod P).
// Each rank sends 2 (P-1)/P n values in all, whatever P: the bandwidth-optimal volume.
// Only in an MPI build (called through communicator.h's allreduce_sum).
#pragma once

#include <cstdint>

#include "kernels/tensor.h"

namespace ablate::graph::distributed {

// In-place sum of `count` values at `data` over the ranks of MPI_COMM_WORLD; returns the
// bytes this rank sent.
std::int64_t ring_allreduce_sum(void* data, std::int64_t count, kernels::DType dtype);

}  // namespace ablate::graph::distributed
