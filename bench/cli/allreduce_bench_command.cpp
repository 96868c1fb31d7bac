// `ablate allreduce-bench`: time of one gradient all-reduce for the parameter counts
// of the eight default models, MPI_Allreduce against our ring (graph/distributed/), run under
// `mpirun -np N`. Each figure is the median over repeats of the slowest rank's time of one
// call (a barrier before each call), for one f32 buffer of the model's whole gradient (what
// one bucket of DDP's 25 MiB default holds for every zoo model). Bandwidths as NCCL's tests
// report them: algorithm bandwidth = bytes / time; bus bandwidth = 2 (P-1)/P x that, the
// traffic per rank of a bandwidth-optimal all-reduce, comparable across rank counts.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <vector>

#include "bench/run/median.h"
#include "bench/run/flags.h"
#include "bench/run/text_format.h"
#include "bench/cli/commands.h"
#include "graph/distributed/communicator.h"
#include "models/parameters.h"

namespace ablate::bench::cli {

namespace {
namespace dist = graph::distributed;

std::int64_t parameter_count(const std::string& model) {
  std::int64_t n = 0;
  for (const auto& p : models::make_initial_parameters(models::load_model(model), kernels::DType::f32, 1))
    n += p.value.numel();
  return n;
}

// Median over `repeats` of the slowest rank's seconds for one all-reduce of `count` floats.
double time_allreduce(const std::string& algorithm, std::int64_t count, int warmup, int repeats) {
  std::vector<float> buffer(static_cast<std::size_t>(count), 1.0f);
  std::vector<double> times;
  for (int i = 0; i < warmup + repeats; ++i) {
    std::fill(buffer.begin(), buffer.end(), 1.0f / static_cast<float>(dist::size()));
    dist::barrier();
    auto t0 = std::chrono::steady_clock::now();
    dist::allreduce_sum(algorithm, buffer.data(), count, kernels::DType::f32);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // The slowest rank's time: the max over ranks, as the sum of the ranks' powers is not it.
    std::vector<double> all = dist::gather_to_root(s);
    if (i >= warmup && dist::rank() == 0) times.push_back(*std::max_element(all.begin(), all.end()));
  }
  if (times.empty()) return 0;
  return run::median(std::move(times));
}
int allreduce_bench_main(const run::Flags& args) {
  const std::vector<std::string> names = run::split_list(args.get(
      "models", "lenet,cifar10_quick,tf-mnist,tf-cifar10,theano-lenet5,theano-cifar10,torch-mnist,torch-cifar10"), true);
  const int repeats = static_cast<int>(args.get_int("repeats", 30, 1));
  const int warmup = static_cast<int>(args.get_int("warmup", 3, 0));
  dist::init();
  const bool root = dist::rank() == 0;
  const double p = dist::size();
  if (root) {
    std::printf("all-reduce of one f32 gradient buffer over %d ranks; median of %d calls (slowest rank)\n",
                dist::size(), repeats);
    std::printf("%-16s %12s %10s | %10s %9s %9s | %10s %9s %9s | %7s\n", "model", "parameters", "MiB", "mpi ms",
                "algo GB/s", "bus GB/s", "ring ms", "algo GB/s", "bus GB/s", "ring/mpi");
  }
  for (const std::string& name : names) {
    const std::int64_t count = parameter_count(name);
    const double bytes = static_cast<double>(count) * 4;
    const double mpi = time_allreduce("mpi", count, warmup, repeats);
    const double ring = time_allreduce("ring", count, warmup, repeats);
    if (!root) continue;
    auto algo = [&](double s) { return s > 0 ? bytes / s / 1e9 : 0; };
    const double bus = 2 * (p - 1) / p;
    std::printf("%-16s %12lld %10.2f | %10.3f %9.2f %9.2f | %10.3f %9.2f %9.2f | %7.2f\n", name.c_str(),
                static_cast<long long>(count), bytes / (1 << 20), mpi * 1e3, algo(mpi), bus * algo(mpi), ring * 1e3,
                algo(ring), bus * algo(ring), mpi > 0 ? ring / mpi : 0);
  }
  return 0;
}

}  // namespace

Command allreduce_bench_command() {
  return {"allreduce-bench",
          "gradient all-reduce times under MPI (mpirun -np N), MPI_Allreduce vs our ring",
          "Times one all-reduce of each default model's gradient (f32), MPI_Allreduce against our ring.\n"
          "Run under MPI: mpirun -np 2 ablate allreduce-bench",
          {
              {"models", "LIST", "comma-separated zoo names or files (default: the eight zoo models)"},
              {"repeats", "N", "timed calls per size and algorithm (default 30; the median is printed)"},
              {"warmup", "N", "untimed calls first (default 3)"},
          },
          allreduce_bench_main};
}

}  // namespace ablate::bench::cli
