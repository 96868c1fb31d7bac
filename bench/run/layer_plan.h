// A per-layer plan: which host backend (and, where a backend has several, which convolution
// lowering and which threading: who owns the threads, conv_lowering.h) runs each layer of a
// network, chosen by timing every choice on the run's own shapes (`ablate run --plan auto`), as cuDNN's Find and oneDNN's and TVM's tuners measure
// instead of guessing. This file holds the plan itself, the choice from timings, the key a
// cached plan must match, and the plan file (plan_file.cpp); plan_measure.h times a real network and builds
// the kernels::PlannedBackend that executes a plan. docs/plan.md describes the whole.
//
// Choice: rounds of training steps, interleaved (one step per candidate, or with `pack` below
// one per pair left of the most contested layer), so that a slow minute of a busy host falls on
// all of them; each round starts one candidate later and steps through them with another
// stride, so that no candidate follows the same one in every round. (A library's
// threads still spinning from the step before would slow the next one, OpenBLAS's pthreads by
// half on 2 cores: the measurement releases them after each step, docs/plan.md "Mixed plans".)
// A layer's time on a candidate is the sum of its ops' times in one step (forward, backward,
// update), its median over the timed rounds, those after the `warmup` rounds; each layer takes
// the candidate of least median (ties: the earlier candidate). No round is untimed by default:
// the costliest first-call work, oneDNN's primitive builds, is taken out of the op times
// (Backend::setup_seconds), the screen has run each candidate's ops once, the racing rules
// below look at a pair's fastest sample or its median, which one slow first step does not
// move, and only a first step at least 4x slow could be pruned on it alone.
// Pruning, per (layer, candidate) pair, on a layer that matters: a pruned pair is not timed
// again; in its candidate's later steps that layer runs on the layer's fastest candidate so far
// (a stand-in, not counted), and the samples it has (or its last time) stand as its own.
//  - screen: given a second timer that steps a candidate on a slice of the batch (its times
//    scaled up to the whole batch), every candidate is screened so before the first round, two
//    steps each: after the first (which warms it), a pair at least `prune_first` times slower
//    than the layer's best runs on a stand-in in the second (the reference loops'
//    convolutions, 100x the best on cifar10_quick: 0.26 s of a slice's step); after the
//    second, a pair at least `prune_screen` times slower is pruned before it costs a whole step
//    (those convolutions: 4.5 s of a round at batch 100; no pair 2.5x behind on the slice
//    ended within 1.5x of the best on cifar10_quick or the TF CNN). Without a screen, a warm-up
//    round (`warmup` > 0) prunes at `prune_first` instead.
//  - after the first timed round: a pair at least `prune` times slower than the best.
//  - after each later timed round, against the pair of least median (the best): a pair whose
//    fastest sample is at least `prune_timed` times the best's median (far behind), one slower
//    than the best's slowest sample in each of at least three rounds (`prune_dominated`: behind
//    throughout), and one whose median is within `settle_tie` of the step's time of the best's
//    (a tie: choosing either cannot cost more).
// A candidate pruned on every layer that matters is not stepped again; once each layer that
// matters has one pair left, no more rounds are run (`stop_when_settled`). A layer matters when
// its best time is at least 1% of the step's (the sum of the layers' bests): a loss or an
// activation of microseconds is never pruned, and keeps no candidate in the rounds.
// Packed steps (`pack`): a step times one pair of every layer, each layer on its own candidate
// (as a stand-in runs beside a candidate's own layers), so a round of the plain candidates
// takes as many steps as the layer that matters with the most pairs left, its k-th step
// running the k-th pair of each layer in the round's order and, where a layer has fewer, the
// layer's fastest so far; a blocked candidate (its own engine) still steps whole.
// Twins (Twins, Backend::op_setup): once a first step has shown which ops a layer runs, a
// candidate that runs them as an earlier one does (the pooling or fully connected layer of two
// lowerings on one backend and the same threads) is not timed there; that one stands in and
// its median is the twin's at the end (the earlier wins the tie).
// Measured on cifar10_quick (batch 100, 2 threads, Intel Xeon; docs/plan.md "What is
// timed"): 138 candidate steps in 7 rounds before the racing rules, 62-64 in at most 4 after,
// 33-38 packed with twins and the screen's 2.5x.
// Plan file (text, one entry a line, '#' comments):
//   ablate-plan 1
//   cpu_model AMD EPYC 7B13        (the key: cpu_model, threads, model, shapes, dtype,
//   threads 2                       strategy, version; a cache with another key is not used)
//   model lenet
//   shapes 64x1x28x28
//   dtype f32
//   strategy layerwise
//   passes all                      (static strategy: the passes it runs; the blocked layout's)
//   threading measured              (measured per layer, or `run <name>`: --plan-threading run)
//   version 0.1.0 e604952
//   rounds 5                        (optional, informative)
//   fallback openblas/omp_per_image (runs ops of no layer)
//   candidates reference eigen/omp_per_image ... (optional: the choices timed)
//   layer conv1 onednn/direct 0.00012 0.00034 ...  (choice, then optional median seconds per
//                                                   candidate in the candidates' order)
// A choice is BACKEND, BACKEND/LOWERING or BACKEND/LOWERING/THREADING; without the threading,
// the lowering's default one (threadings_of(lowering).front()); a "+blocked" suffix keeps the
// layer's activations channel-blocked.
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kernels/cpu/conv_lowering.h"

namespace ablate::bench::run {

// One way to run a layer: a backend, with the convolution lowering and its threading where the
// backend takes one (both set or both unset), and the layout at the layer's edges: NCHW, or
// (blocked) the backend's channel-blocked layout, kept between the layers that choose it (the
// static strategy's blocked_layout pass, graph/static/passes.h; onednn/direct only).
struct PlanChoice {
  std::string backend;
  std::optional<kernels::cpu::ConvLowering> lowering;
  std::optional<kernels::cpu::Threading> threading;
  bool blocked = false;
  // "onednn/direct", "eigen/batched_gemm/openmp_images", "onednn/direct+blocked", "reference":
  // the threading only when it is not the lowering's default.
  std::string label() const;
  bool operator==(const PlanChoice&) const = default;
};
// "onednn/direct", "eigen/per_image_gemm/openmp_frames", "onednn/direct+blocked" or
// "reference": the backend must be known to this build and take the lowering, the lowering the
// threading, and only a direct lowering may be blocked; throws
// std::invalid_argument "<where>: ..." naming the text and what is known.
PlanChoice parse_plan_choice(const std::string& text, const std::string& where);

// What a plan was measured for. A cached plan is used only when every field matches.
struct PlanKey {
  std::string cpu_model;
  int threads = 1;
  std::string model;   // the model's name
  std::string shapes;  // the training input: "64x1x28x28" (batch x C x H x W)
  std::string dtype;   // f32, f64
  std::string strategy;
  std::string passes;     // the static strategy's: "all" or "all,-blocked_layout,..."; the layer-wise
                          // and dynamic strategies' "blocked_layout" under --blocked-layout on; otherwise ""
  std::string threading;  // "measured" (chosen per layer) or "run <name>" (--plan-threading run)
  std::string version;    // ablate's version and git revision
  bool operator==(const PlanKey&) const = default;
};
// "" when the keys match; otherwise every difference, "threads 1 in the plan, 2 in this run; ...".
std::string plan_key_difference(const PlanKey& plan, const PlanKey& run);

struct LayerPlan {
  struct Row {
    std::string layer;
    PlanChoice choice;
    std::vector<double> seconds;  // median per candidate (empty in a hand-written plan)
  };
  PlanKey key;
  PlanChoice fallback;
  std::vector<PlanChoice> candidates;
  std::vector<Row> rows;
  int rounds = 0;             // timed rounds (0: not measured here)
  std::string whole_plans_note;  // the whole plans timed and the one taken (plan_measure.h; not in the file)
  double measure_seconds = 0; // wall time of the measurement (not in the file)
  // Where the measurement's time went (plan_measure.h; not in the file): the engines' builds,
  // the candidates' steps (the costliest candidates by name), the whole plans' steps.
  std::string measure_note;

  const Row* row(const std::string& layer) const;
  // "conv1=onednn/direct,pool1=eigen/omp_per_image,...": the record's one-line form.
  std::string summary() const;
  // The printed table: layer, choice, its median, the runner-up and its median.
  std::string table() const;
};

// One training step with every op on candidate `index` except the layers in `stand_ins`, each
// on the candidate given there: the seconds spent in each layer's ops.
using StandIns = std::map<std::string, std::size_t>;
using StepTimer = std::function<std::map<std::string, double>(std::size_t index, const StandIns& stand_ins)>;
struct PlanTiming {
  int warmup = 0;                 // untimed rounds before the timed ones (see above)
  int rounds = 4;                 // timed rounds at most: the median of these
  double prune = 4;               // see above, after the first timed round; 0: not then
  double prune_first = 25;        // see above, after the screen's first steps (or a warm-up round); 0: not then
  double prune_timed = 1.5;       // see above, after each later timed round; 0: not so
  double prune_screen = 2.5;      // see above, after the screen (when there is one); 0: no screen
  bool prune_dominated = true;    // see above: behind the best throughout
  double settle_tie = 0.005;      // see above: a tie within this share of the step; 0: none
  bool stop_when_settled = true;  // see above: no more rounds once each layer has one pair left
  bool pack = true;               // see above: the plain candidates' pairs packed into shared steps
};
// Twins: for a layer and a candidate, the earliest candidate that runs the layer's ops with the
// same code on the same threads (Backend::op_setup; the candidate itself when none). Asked once a
// first step has run.
using Twins = std::function<std::size_t(const std::string& layer, std::size_t candidate)>;
// The choice described above; `layers` in the network's order; `screen` and `twins` may be empty
// (no screen, no twins). Throws std::invalid_argument without candidates or layers, or with
// rounds < 1 or warmup < 0.
LayerPlan choose_plan(const std::vector<std::string>& layers, const std::vector<PlanChoice>& candidates,
                      const PlanTiming& timing, const StepTimer& timer, const StepTimer& screen = {},
                      const Twins& twins = {});

// Writes through a temporary file renamed into place; throws naming the path.
void write_plan_file(const LayerPlan& plan, const std::string& path);
// Throws std::invalid_argument "<path>:<line>: ..." for a malformed file, std::runtime_error
// when it cannot be read.
LayerPlan read_plan_file(const std::string& path);

// A cached plan if `path` holds one measured for `key`; otherwise nullopt and `why` says why
// not (no file, a file that does not parse, the key's differences).
std::optional<LayerPlan> load_cached_plan(const std::string& path, const PlanKey& key, std::string& why);

}  // namespace ablate::bench::run
