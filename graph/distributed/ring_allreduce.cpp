// Ring all-reduce (ring_allreduce.h) with MPI_Sendrecv between ring neighbours.
#include "graph/distributed/ring_allreduce.h"

#include <stdexcept>
#include <string>
#include <vector>

#ifdef ABLATE_HAVE_MPI
#include <mpi.h>
#endif

namespace ablate::graph::distributed {

#ifdef ABLATE_HAVE_MPI
namespace {

// Chunk c of n values over p ranks: [begin, begin + size), sizes n/p or n/p + 1.
struct Chunks {
  std::int64_t n, p;
  std::int64_t begin(std::int64_t c) const { return c * (n / p) + std::min(c, n % p); }
  std::int64_t size(std::int64_t c) const { return n / p + (c < n % p ? 1 : 0); }
};

std::int64_t mod(std::int64_t a, std::int64_t p) { return ((a % p) + p) % p; }

void check(int code, const char* call) {
  if (code != MPI_SUCCESS) throw std::runtime_error(std::string("ring all-reduce: ") + call + " failed");
}

template <class T>
std::int64_t ring(T* data, std::int64_t count, MPI_Datatype type) {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const std::int64_t p = size;
  if (p == 1 || count == 0) return 0;
  if (count / p + 1 > (std::int64_t{1} << 30))
    throw std::invalid_argument("ring all-reduce of " + std::to_string(count) + " values: chunks over 2^30 values");
  const Chunks chunks{count, p};
  const int right = static_cast<int>(mod(rank + 1, p)), left = static_cast<int>(mod(rank - 1, p));
  std::vector<T> incoming(static_cast<std::size_t>(chunks.size(0)));
  std::int64_t sent = 0;
  auto exchange = [&](std::int64_t send_chunk, std::int64_t recv_chunk, T* recv_into) {
    const int send_n = static_cast<int>(chunks.size(send_chunk)), recv_n = static_cast<int>(chunks.size(recv_chunk));
    check(MPI_Sendrecv(data + chunks.begin(send_chunk), send_n, type, right, 0, recv_into, recv_n, type, left, 0,
                       MPI_COMM_WORLD, MPI_STATUS_IGNORE),
          "MPI_Sendrecv");
    sent += static_cast<std::int64_t>(send_n) * static_cast<std::int64_t>(sizeof(T));
  };
  // Reduce-scatter: accumulate the chunk arriving from the left.
  for (std::int64_t s = 0; s + 1 < p; ++s) {
    const std::int64_t recv_chunk = mod(rank - s - 1, p);
    exchange(mod(rank - s, p), recv_chunk, incoming.data());
    T* target = data + chunks.begin(recv_chunk);
    for (std::int64_t i = 0; i < chunks.size(recv_chunk); ++i) target[i] += incoming[static_cast<std::size_t>(i)];
  }
  // All-gather: the finished chunks travel once around the ring, received in place.
  for (std::int64_t s = 0; s + 1 < p; ++s) {
    const std::int64_t recv_chunk = mod(rank - s, p);
    exchange(mod(rank + 1 - s, p), recv_chunk, data + chunks.begin(recv_chunk));
  }
  return sent;
}

}  // namespace

std::int64_t ring_allreduce_sum(void* data, std::int64_t count, kernels::DType dtype) {
  if (dtype == kernels::DType::f32) return ring(static_cast<float*>(data), count, MPI_FLOAT);
  if (dtype == kernels::DType::f64) return ring(static_cast<double*>(data), count, MPI_DOUBLE);
  throw std::invalid_argument(std::string("ring all-reduce: precision ") + kernels::dtype_name(dtype) +
                              " is not valid; expected f32 or f64");
}
#else
std::int64_t ring_allreduce_sum(void*, std::int64_t, kernels::DType) {
  throw std::runtime_error("ring all-reduce: this build of ablate has no MPI");
}
#endif

}  // namespace ablate::graph::distributed
