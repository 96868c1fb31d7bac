// The MPI world of a data-parallel run (Horovod's and PyTorch DDP's process-per-rank model):
// initialization once per process, rank and size, and the collective calls the gradient
// averaging needs. Two all-reduce algorithms, an ablation switch:
//   mpi   MPI_Allreduce (the library picks its algorithm: Open MPI's tuned collectives)
//   ring  our own ring over point-to-point calls (ring_allreduce.h): reduce-scatter then
//         all-gather, as Baidu's allreduce and Horovod's ring.
// Point-to-point text messages carry a distributed sweep's work queue (work_queue.h).
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
// Whether MPI may be called from any thread, one call at a time (MPI_THREAD_SERIALIZED was
// provided; true without MPI or with one rank): the static graph's all-reduce nodes under the
// inter-op pool need it.
bool calls_from_any_thread();
int rank();  // 0 before init()
int size();  // 1 before init()

// Whether an MPI launcher started this process, from the variables it sets: Open MPI's mpirun
// (OMPI_COMM_WORLD_SIZE), MPICH's hydra and Slurm's srun --mpi=pmi2 (PMI_SIZE), PMIx launchers
// such as srun --mpi=pmix (PMIX_RANK). launcher_size() is the number of processes it started
// as far as those variables tell (1 when not launched; 0 when launched but not told).
bool launched();
int launcher_size();

// In a process forked from a rank (a sweep's run): this process is not part of the MPI job.
// Forgets the world (rank 0 of 1, init() throws saying why) and removes the launcher's
// variables from the environment, so that nothing it starts tries to join the job either.
void leave_in_forked_child();

// A rank whose launcher died (mpirun killed with SIGKILL cannot stop its ranks; they would go on
// and write beside the next launch): when the parent process is no longer the one init() saw,
// says so on stderr and exits with status 2 at once. Called wherever a rank waits.
void exit_if_orphaned();

// Ends every rank of the job (MPI_Abort) with `code`: a rank that fails while others wait for
// its messages. Without MPI or before init(), std::exit(code).
[[noreturn]] void abort(int code);

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

// Text messages between ranks. Waiting polls (MPI_Iprobe, then a 2 ms sleep) instead of MPI's
// busy wait, so a waiting rank leaves its cores to the work of the others.
void send_text(int to, int tag, const std::string& text);
// Takes a waiting message with `tag` from `from` (-1: any rank) if there is one.
bool poll_text(int from, int tag, int& source, std::string& text);
// Waits for a message with `tag` from `from` (-1: any rank).
std::string wait_text(int from, int tag, int& source);
// Rank 0's `text` on every rank (collective).
std::string broadcast_text(const std::string& text);

}  // namespace ablate::graph::distributed
