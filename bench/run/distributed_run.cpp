// `ablate run --distributed`: flags, batch sharding checks and the record (distributed_run.h).
#include "bench/run/distributed_run.h"

#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "graph/distributed/communicator.h"

namespace ablate::bench::run {

namespace dist = graph::distributed;

void read_distributed_flags(RunConfig& c, const Flags& args) {
  c.distributed = args.has("distributed");
  if (args.has("allreduce")) c.allreduce = args.get("allreduce");
  if (args.has("bucket-mb")) c.bucket_mb = args.get_double("bucket-mb", 25);
  if (!c.distributed) {
    for (const char* flag : {"allreduce", "bucket-mb"})
      if (args.has(flag))
        throw std::invalid_argument(std::string("--") + flag + ": only with --distributed");
    return;
  }
  dist::check_allreduce_name(c.allreduce, "--allreduce");
  if (!(c.bucket_mb > 0) || !std::isfinite(c.bucket_mb))
    throw std::invalid_argument("--bucket-mb " + std::to_string(c.bucket_mb) + ": expected a positive size in MiB");
}

void join_distributed(RunConfig& c) {
  if (!c.distributed) return;
  dist::init();
  c.rank = dist::rank();
  c.ranks = dist::size();
  if (c.batch % c.ranks != 0)
    throw std::invalid_argument("--batch " + std::to_string(c.batch) + " with --distributed over " +
                                std::to_string(c.ranks) + " ranks: the global batch must divide by the ranks");
  if (c.rank != 0) c.quiet = true;
}

std::int64_t local_batch(const RunConfig& c) { return c.batch / c.ranks; }

std::shared_ptr<dist::GradientAverager> start_data_parallel(const RunConfig& c, graph::Engine& engine) {
  if (!c.distributed) return nullptr;
  dist::DataParallelOptions options;
  options.allreduce = c.allreduce;
  options.bucket_bytes = static_cast<std::int64_t>(std::llround(c.bucket_mb * 1024 * 1024));
  auto averager = dist::attach_data_parallel(engine, options);
  if (!c.quiet) {
    std::printf("distributed: %d ranks, %lld images per rank of each global batch of %lld, %s all-reduce\n", c.ranks,
                static_cast<long long>(local_batch(c)), static_cast<long long>(c.batch), c.allreduce.c_str());
    std::fflush(stdout);
  }
  return averager;
}

TestShard test_shard(const RunConfig& c) { return c.distributed ? TestShard{c.rank, c.ranks} : TestShard{}; }

double global_loss(const RunConfig& c, double local_loss) {
  return c.distributed ? dist::mean_over_ranks(local_loss) : local_loss;
}

double sum_over_ranks(const RunConfig& c, double value) { return c.distributed ? dist::allreduce_sum(value) : value; }

void record_distributed(const RunConfig& c, const dist::GradientAverager* averager, RunResult& result) {
  auto& r = result.resolved;
  r["distributed"] = c.distributed ? "true" : "false";
  if (!c.distributed || !averager) return;
  r["ranks"] = std::to_string(c.ranks);
  r["allreduce"] = c.allreduce;
  r["bucket_bytes"] = std::to_string(averager->options().bucket_bytes);
  r["local_batch"] = std::to_string(local_batch(c));
  const dist::AllreduceStats& s = averager->stats();
  const std::pair<const char*, double> figures[] = {
      {"allreduce_s", s.seconds},
      {"allreduce_pack_s", s.pack_seconds},
      {"allreduce_calls", static_cast<double>(s.calls)},
      {"allreduce_payload_bytes", static_cast<double>(s.payload_bytes)},
      {"allreduce_sent_bytes", static_cast<double>(s.sent_bytes)},
  };
  for (const auto& [name, value] : figures) {
    const std::vector<double> all = dist::gather_to_root(value);  // collective: every rank calls it
    for (std::size_t rank = 0; rank < all.size(); ++rank)
      result.engine.counters.emplace_back(std::string(name) + "_rank" + std::to_string(rank), all[rank]);
  }
  result.engine.counters.emplace_back("allreduce_buckets", static_cast<double>(averager->buckets()));
}

}  // namespace ablate::bench::run
