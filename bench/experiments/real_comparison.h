// `ablate compare --with-real`: after a framework's run, the real framework it reproduces
// (real_peers.h: TensorFlow on its Eigen and its oneDNN path, Theano; PyTorch 2.x standing in
// for Caffe and Torch7) trains the same model on the same data (peer_runner.h's IDX files),
// recipe and number of steps at the run's thread count: its accuracy, images/s, peak RSS and
// mean CPU. Then a second, short run on each side checks the loss curves step by step: ablate
// with the random parts off (--no-random) writes its initial weights (--snapshot-initial) and
// the loss of every step; the peer starts from those weights (--init-checkpoint W0 --no-random)
// and prints its own; curve_difference.h compares them. A peer not installed is a row that says
// how to install it, never a failure. With --real-rounds N the speed is also taken in N
// interleaved rounds (interleaved_ratio.h): each real path, then ablate, a few seconds each.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "bench/experiments/compare_table.h"
#include "bench/experiments/curve_difference.h"
#include "bench/experiments/interleaved_ratio.h"
#include "bench/experiments/peer_runner.h"
#include "bench/experiments/real_peers.h"
#include "bench/run/flags.h"
#include "bench/run/run_config.h"

namespace ablate::bench::experiments {

struct RealOptions {
  std::string peers_dir;           // where the environments are (default_peers_dir())
  std::int64_t curve_steps = 100;  // steps of the curve check; 0: none
  std::vector<std::string> paths;  // --real-paths: the real framework's paths to run; empty: all
  int rounds = 0;                  // --real-rounds: interleaved speed rounds; 0: none
  double round_seconds = 3;        // --real-seconds: timed training of each side in a round
};
// --peers-dir DIR, --curve-steps N, --real-paths LIST, --real-rounds N, --real-seconds X; throws
// naming a bad value.
RealOptions real_options(const run::Flags& args);

// One path of the real framework (TensorFlow's eigen or onednn; the others have one).
struct RealPathMeasure {
  std::string title;                     // "TensorFlow 2.21.0 (eigen)"
  PeerMeasure full;                      // the run of the comparison's length
  std::map<std::int64_t, double> losses;  // the curve run's peer_loss lines
  CurveDifference curve;                 // against ablate's curve run
  InterleavedRatio interleaved;          // --real-rounds: ablate's speed over this path's
};

struct RealComparison {
  std::string framework, model;
  std::string peer;         // real_peers.h name; "" when no peer stands beside the framework
  std::string peer_note;    // "PyTorch 2.x stands in for Caffe, ..."
  std::string state = "compared";  // compared | not installed | not run
  std::string note;         // why not installed (with the command) or not run
  AblateMeasure ablate;
  std::int64_t batch = 0;
  double ablate_cpu_util = 0;
  bool ablate_measured = false;
  bool same_start = false;  // the full runs of both sides began from ablate's initial weights
  std::int64_t curve_steps = 0;              // of the curve check; 0: not made
  std::map<std::int64_t, double> ablate_losses;  // ablate's curve run
  std::string ablate_curve_problem;          // why ablate's curve run has no losses
  std::vector<RealPathMeasure> paths;
};

// The configuration of the curve check's ablate run: `config` shortened to `steps`, random
// parts off, every loss recorded, the initial weights written to `initial`, one test batch,
// no evaluation on the way, nothing written but the snapshot.
run::RunConfig curve_config(const run::RunConfig& config, std::int64_t steps, const std::string& initial);

// The whole comparison of one framework's row (measured or not: an unmeasured row is "not run").
// When ablate's run wrote its initial weights (config.snapshot_initial, as compare sets it), the
// real framework's full run starts from them too (--init-checkpoint), its random parts on.
RealComparison compare_with_real(const run::RunConfig& config, const CompareRow& row, const RealOptions& options);

}  // namespace ablate::bench::experiments
