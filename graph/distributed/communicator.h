// The MPI world of a data-parallel run (Horovod's and PyTorch DDP's process-per-rank model):
// initialization once per process, rank and size, and the collective calls the gradient
// averaging needs. Two all-reduce algorithms, an ablation switch:
//   mpi   MPI_Allreduce (the library picks its algorithm: Open MPI's tuned collectives)
//   ring  our own ring over point-to-point calls (ring_allreduce.h): reduce-scatter then
//         all-gather, as Baidu's allreduce and Horovod's ring.
// A build without MPI (ABLATE_MPI=OFF or no library) has rank 0 of 1 and init() throws.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "kernels/tensor.h"

namespace ablate::graph::distributed {

// Whether this build has MPI.
bool mpi_built();
// Initializes MPI once (idempotent; MPI_Finalize runs at exit). Throws std::runtime_error in a
// build without MPI.
void init();
bool initialized();
int rank();  // 0 before init()
int size();  // 1 before init()

std::vector<std::string> allreduce_names();  // {"mpi", "ring"}
// Throws std::invalid_argument naming `what` unless `name` is one of allreduce_names().
void check_allreduce_name(const std::string& name, const std::string& what);

// In-place sum over all ranks of `count` values of `dtype` (f32 or f64) at `data`.
void allreduce_sum(const std::string& algorithm, void* data, std::int64_t count, kernels::DType dtype);
// Sum of one value over all ranks.
double allreduce_sum(double value);
// Every rank's `value`, in rank order, on rank 0 (collective; other ranks get an empty vector).
std::vector<double> gather_to_root(double value);
void barrier();

}  // namespace ablate::graph::distributed
