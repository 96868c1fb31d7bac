// RunConfig: one fully resolved configuration of a training run. `--framework F` loads the
// preset of F for the data set's family (models/presets/F-FAMILY.preset); each command-line
// flag then overrides one factor; the result record lists them all. A bad value is an error
// naming where it came from: the flag (`--patience -3`) or the preset line
// (`<presets>/theano-mnist.preset:21: patience`).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/run/flags.h"
#include "bench/run/backend_settings.h"
#include "bench/run/malloc_policy.h"
#include "kernels/huge_pages.h"
#include "bench/run/run_timing.h"
#include "bench/run/strategy_switches.h"
#include "graph/optim/optimizer_config.h"
#include "kernels/tensor.h"

namespace ablate::bench::run {

struct RunConfig {
  std::string framework = "caffe";
  std::string preset;            // name or file it came from
  std::string dataset = "fashion-mnist", data_dir;
  std::string model;             // zoo name or file
  std::string strategy;          // a strategy of graph's table (strategy_switches.h)
  StrategySwitches switches;     // the strategy's (strategy_switches.h)
  BackendSettings backend;       // name, threads, determinism (backend_settings.h)
  // --plan: "auto" (measure each layer's backend, or take the cached plan), a plan file to
  // replay, or "" (every layer on `backend`); plan_measure.h. plan_cache: the cache folder
  // ("" : plan_measure.h's default_plan_cache()).
  std::string plan, plan_cache;
  // --plan-threading: "measure" (each layer's threading is a choice of the plan too) or "run"
  // (every candidate runs under this run's threading, as without a plan).
  std::string plan_threading = "measure";
  kernels::DType precision = kernels::DType::f32;
  graph::OptimizerConfig optimizer;
  std::int64_t batch = 64;
  std::int64_t iterations = 0;   // resolved from epochs when the preset counts epochs
  double epochs = 0;             // 0: iterations given directly
  double length_scale = 1;       // --scale (and compare's budget): the preset's length times this
  std::int64_t test_interval = 0;    // 0: test only at the end
  double test_interval_epochs = 0;   // > 0: test every X epochs instead (Torch: 1)
  std::int64_t test_batch = 100;
  std::int64_t test_iterations = 0;  // 0: the whole test set
  std::string transform;
  std::string test_transform;        // evaluation transform; empty: `transform`
  bool shuffle = false;
  std::uint64_t seed = 1;

  // Held-out validation and Theano's early stopping (see early_stopping.h).
  std::int64_t validation_count = 0;     // images held out from the end of the training set
  std::int64_t validation_interval = 0;  // iterations between validation passes; 0: none
  std::int64_t patience = 0;             // 0: no early stopping
  double patience_increase = 2, improvement_threshold = 0.995;
  // TF's MNIST script evaluates the accuracy of the batch about to be trained every 100 steps
  // (inside its timed loop); 0: never. Derived from the framework: tensorflow on MNIST data.
  std::int64_t train_accuracy_interval = 0;
  double target_accuracy = 0;            // time-to-accuracy target (fraction); 0: none
  Timing timing = Timing::uniform;       // which timing is printed (run_timing.h)

  // Switches set by the preset that the chosen strategy does not use (recorded, not errors;
  // the same switch given as a flag is an error).
  std::vector<std::string> unused_options;

  // Data-parallel training over MPI (distributed_run.h): `batch` is the global batch.
  bool distributed = false;
  std::string allreduce = "mpi";    // mpi | ring
  double bucket_mb = 25;            // gradient bucket size in MiB (DDP's bucket_cap_mb)
  // This process's rank and the world size: set when the run joins the MPI job
  // (join_distributed), not by resolution.
  int rank = 0, ranks = 1;

  std::string out;               // results file (.jsonl); empty: none
  std::string profile;           // Chrome trace file of every op and step; empty: no profiling
  std::string snapshot = "ablate-snapshot.ckpt";  // where snapshots go (every N, at the end, on a stop signal)
  std::int64_t snapshot_every = 0;  // iterations between snapshots; 0: only on a stop signal
  std::string resume;            // continue the run saved in this snapshot
  std::string snapshot_initial;  // --snapshot-initial: the step-0 weights go here; empty: none
  // --no-random: the random parts off, for a step-by-step check against a real framework:
  // no shuffling, every dropout keeps everything, a training transform with random rules
  // replaced by the (deterministic) test transform.
  bool no_random = false;
  MallocPolicy malloc_policy = MallocPolicy::system;  // glibc as it comes, or freed blocks kept (malloc_policy.h)
  // The host tensors as malloc gives them, or blocks of 2 MiB and more on huge pages (kernels/huge_pages.h).
  kernels::HugePages huge_pages = kernels::HugePages::system;
  std::int64_t curve_every = 10;  // the curve holds the loss of step 1 and every N-th step
  // --curve-points N: besides the recipe's tests, the test set at N evenly spaced points of the
  // run (the last is the final test), outside every training time; 0: the recipe's tests only.
  std::int64_t curve_points = 0;
  static constexpr std::int64_t kMaxCurvePoints = 1000;
  bool memory_check = true;      // refuse a run whose memory estimate exceeds what is available
  bool quiet = false;
};

// Preset first, then flags, then the checks: a bad value throws naming the flag or preset
// line. No side effects: a distributed run joins its MPI job when it starts
// (run_configuration.h), not here.
RunConfig resolve_run_config(const Flags& flags);
// Multiplies the training length by `scale` (> 0): epochs * scale, or iterations * scale
// rounded and at least 1. Records the factor.
void apply_length_scale(RunConfig& config, double scale);
// Fills `iterations` from `epochs` once the training set's size is known.
void resolve_length(RunConfig& config, std::int64_t train_count);

// True if a rule of the transform SPEC makes random choices (datasets/transforms.h names every
// such rule random_*).
bool has_random_rule(const std::string& spec);
// --no-random on a configuration: no shuffling; a training transform with random rules becomes
// the test transform (TF CIFAR-10: random crop, flip, brightness, contrast -> the central crop);
// throws naming the transform (and `transform_origin`) when no deterministic one is at hand.
// Dropout is switched off where the model is built (prepare_run).
void switch_random_off(RunConfig& config, const std::string& transform_origin);

// Throws "WHERE 'TEXT': expected f32 or f64".
kernels::DType parse_precision(const std::string& text, const std::string& what);

}  // namespace ablate::bench::run
