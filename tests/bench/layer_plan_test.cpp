// The per-layer plan (bench/run/layer_plan.h): the choice on a stand-in timer, the cache key,
// the plan file and its errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <unistd.h>

#include "bench/run/layer_plan.h"
#include "bench/run/plan_measure.h"
#include "kernels/registry.h"
#include "plan_test_support.h"

namespace ablate::bench::run {
namespace {

using kernels::cpu::ConvLowering;
using kernels::cpu::Threading;

// Three candidates; per layer the known fastest differs. Times in seconds per step.
const std::vector<std::string> kLayers = {"conv1", "pool1", "ip1"};
//                                     reference  eigen  openblas
const std::map<std::string, std::vector<double>> kCost = {{"conv1", {9.0, 2.0, 3.0}},
                                                          {"pool1", {9.0, 1.5, 1.0}},
                                                          {"ip1", {9.0, 4.0, 5.0}}};

TEST(LayerPlan, StandInTimerPicksTheKnownFastestPerLayer) {
  std::vector<std::size_t> calls;
  int step = 0;
  const StepTimer timer = [&](std::size_t index, const StandIns&) {
    calls.push_back(index);
    std::map<std::string, double> out;
    for (const auto& [layer, costs] : kCost) out[layer] = costs[index];
    // Disturbances: the warm-up round's first calls are slow on eigen; one timed round has an
    // outlier on eigen's conv1 that the median ignores.
    if (step < 3 && index == 1) out["conv1"] = 100.0;
    if (step == 10 && index == 1) out["conv1"] = 50.0;
    ++step;
    return out;
  };
  PlanTiming timing;
  timing.warmup = 1;
  timing.rounds = 5;
  timing.prune = timing.prune_first = timing.prune_timed = timing.settle_tie = 0;  // every candidate every round
  timing.prune_dominated = false;
  const LayerPlan plan = choose_plan(kLayers, kCandidates, timing, timer);
  ASSERT_EQ(plan.rows.size(), 3u);
  EXPECT_EQ(plan.rows[0].choice.label(), "eigen/eigen_spatial");
  EXPECT_EQ(plan.rows[1].choice.label(), "openblas/per_image_gemm");
  EXPECT_EQ(plan.rows[2].choice.label(), "eigen/eigen_spatial");
  EXPECT_DOUBLE_EQ(plan.rows[0].seconds[1], 2.0) << "the median of the timed rounds, not the outlier";
  EXPECT_EQ(plan.summary(), "conv1=eigen/eigen_spatial,pool1=openblas/per_image_gemm,ip1=eigen/eigen_spatial");
  // Interleaved: 6 rounds of 3 steps, each round one candidate later and with the other
  // stride (1, 2): candidate 0 follows 2 in the first round and 1 in the second.
  ASSERT_EQ(calls.size(), 18u);
  EXPECT_EQ((std::vector<std::size_t>(calls.begin(), calls.begin() + 9)), (std::vector<std::size_t>{0, 1, 2, 1, 0, 2, 2, 0, 1}));
  EXPECT_NE(plan.table().find("runner-up"), std::string::npos);
}

TEST(LayerPlan, ACandidateSlowOnEveryLayerIsNotTimedAfterTheWarmUp) {
  std::map<std::size_t, int> calls;
  const StepTimer timer = [&](std::size_t index, const StandIns&) {
    ++calls[index];
    std::map<std::string, double> out;
    for (const auto& [layer, costs] : kCost) out[layer] = costs[index];
    return out;
  };
  PlanTiming timing;
  timing.warmup = 1;
  timing.rounds = 3;
  timing.prune = 2;  // reference is >= 2x the best on every layer
  timing.pack = false;  // a step per candidate, so that each one's steps count (packed: below)
  const LayerPlan plan = choose_plan(kLayers, kCandidates, timing, timer);
  EXPECT_EQ(calls[0], 2) << "reference: the warm-up and the first timed round only";
  EXPECT_EQ(calls[1], 4);
  EXPECT_EQ(calls[2], 4) << "openblas stays on ip1 (1.25x eigen's): every round";
  EXPECT_DOUBLE_EQ(plan.rows[0].seconds[0], 9.0) << "a pruned candidate keeps its sample";
  EXPECT_EQ(plan.rows[1].choice.label(), "openblas/per_image_gemm");

  // Winning a layer of under 1% of the step does not keep a slow candidate in the rounds; it
  // still takes that layer, on its warm-up time.
  calls.clear();
  const std::vector<std::string> with_loss = {"conv1", "pool1", "ip1", "loss"};
  const StepTimer timer_with_loss = [&](std::size_t index, const StandIns&) {
    ++calls[index];
    std::map<std::string, double> out;
    for (const auto& [layer, costs] : kCost) out[layer] = costs[index];
    out["loss"] = index == 0 ? 0.001 : 0.002;
    return out;
  };
  const LayerPlan small = choose_plan(with_loss, kCandidates, timing, timer_with_loss);
  EXPECT_EQ(calls[0], 2) << "reference: the warm-up and the first timed round only";
  EXPECT_EQ(small.rows[3].choice.label(), "reference");
  // A layer that matters keeps it: reference fastest on ip1 stays timed.
  calls.clear();
  // Its other layers run on their fastest candidate so far in its later steps (stand-ins), and
  // keep their one sample. After the second timed round every layer has one pair left (eigen's
  // ip1 and openblas's conv1 and pool1 at least 1.5x behind): the rounds end there.
  std::vector<StandIns> reference_stand_ins;
  const StepTimer timer_ip1 = [&](std::size_t index, const StandIns& stand_ins) {
    ++calls[index];
    if (index == 0) reference_stand_ins.push_back(stand_ins);
    std::map<std::string, double> out;
    for (const auto& [layer, costs] : kCost) out[layer] = costs[stand_ins.count(layer) ? stand_ins.at(layer) : index];
    if (index == 0 && !stand_ins.count("ip1")) out["ip1"] = 1.0;
    return out;
  };
  const LayerPlan kept = choose_plan(kLayers, kCandidates, timing, timer_ip1);
  EXPECT_EQ(calls[0], 3);
  EXPECT_EQ(calls[1], 3);
  EXPECT_EQ(kept.rounds, 2) << "settled after two of three timed rounds";
  EXPECT_EQ(kept.rows[2].choice.label(), "reference");
  ASSERT_EQ(reference_stand_ins.size(), 3u);
  EXPECT_TRUE(reference_stand_ins[0].empty() && reference_stand_ins[1].empty()) << "the warm-up and first timed steps are whole";
  EXPECT_EQ(reference_stand_ins[2], (StandIns{{"conv1", 1}, {"pool1", 2}}));
  EXPECT_DOUBLE_EQ(kept.rows[0].seconds[0], 9.0) << "a pruned pair keeps its sample";
  EXPECT_DOUBLE_EQ(kept.rows[2].seconds[0], 1.0);
}

TEST(LayerPlan, WithoutAScreenAPairFarBehindIsPrunedAfterTheWarmUpRound) {
  // reference's conv1 is 40x eigen's (>= prune_first 25): its first timed step already runs
  // conv1 on eigen; its pool1 (1.5x) and ip1 (2x) stay its own (no later pruning here).
  const std::map<std::string, std::vector<double>> cost = {{"conv1", {80.0, 2.0, 3.0}},
                                                           {"pool1", {1.5, 1.5, 1.0}},
                                                           {"ip1", {8.0, 4.0, 5.0}}};
  std::vector<StandIns> reference_stand_ins;
  const StepTimer timer = [&](std::size_t index, const StandIns& stand_ins) {
    if (index == 0) reference_stand_ins.push_back(stand_ins);
    std::map<std::string, double> out;
    for (const auto& [layer, costs] : cost) out[layer] = costs[stand_ins.count(layer) ? stand_ins.at(layer) : index];
    return out;
  };
  PlanTiming timing;  // prune 4, prune_first 25
  timing.warmup = 1;
  timing.rounds = 3;
  timing.prune_timed = timing.settle_tie = 0;  // (the next tests)
  timing.prune_dominated = false;
  timing.pack = false;  // a step per candidate (packed: below)
  const LayerPlan plan = choose_plan(kLayers, kCandidates, timing, timer);
  ASSERT_EQ(reference_stand_ins.size(), 4u);
  EXPECT_TRUE(reference_stand_ins[0].empty());
  EXPECT_EQ(reference_stand_ins[1], (StandIns{{"conv1", 1}}));
  EXPECT_EQ(reference_stand_ins[3], (StandIns{{"conv1", 1}}));
  EXPECT_DOUBLE_EQ(plan.rows[0].seconds[0], 80.0) << "the pruned pair keeps its warm-up time";
  EXPECT_EQ(plan.rows[0].choice.label(), "eigen/eigen_spatial");
  EXPECT_EQ(plan.rows[1].choice.label(), "openblas/per_image_gemm");
}

TEST(LayerPlan, APairClearlyBehindInTheTimedRoundsIsNotTimedFurther) {
  // openblas's conv1 is 1.6x eigen's: within the warm-up's 4x, beyond prune_timed 1.5 once two
  // timed rounds are in; its ip1 (1.25x) stays timed. eigen's pool1 is 1.7x openblas's.
  const std::map<std::string, std::vector<double>> cost = {{"conv1", {90.0, 2.0, 3.2}},
                                                           {"pool1", {90.0, 1.7, 1.0}},
                                                           {"ip1", {90.0, 4.0, 5.0}}};
  std::map<std::size_t, std::vector<StandIns>> seen;
  std::map<std::size_t, std::map<std::string, int>> timed_calls;  // own (not stood-in) layer runs
  const StepTimer timer = [&](std::size_t index, const StandIns& stand_ins) {
    seen[index].push_back(stand_ins);
    std::map<std::string, double> out;
    for (const auto& [layer, costs] : cost) {
      const bool own = !stand_ins.count(layer);
      if (own) ++timed_calls[index][layer];
      out[layer] = costs[own ? index : stand_ins.at(layer)];
    }
    return out;
  };
  PlanTiming timing;  // prune 4, prune_first 25, prune_timed 1.5
  timing.warmup = 1;
  timing.rounds = 5;
  timing.settle_tie = 0;  // (the next test)
  timing.prune_dominated = false;
  timing.pack = false;  // a step per candidate (packed: below)
  const LayerPlan plan = choose_plan(kLayers, kCandidates, timing, timer);
  EXPECT_EQ(timed_calls[2]["conv1"], 3) << "openblas's conv1: the warm-up and 2 timed steps, then eigen stands in";
  EXPECT_EQ(timed_calls[2]["ip1"], 6) << "within 1.5x: timed every round";
  EXPECT_EQ(timed_calls[1]["pool1"], 3);
  EXPECT_EQ(seen[2].back(), (StandIns{{"conv1", 1}}));
  EXPECT_DOUBLE_EQ(plan.rows[0].seconds[2], 3.2) << "the pruned pair keeps the samples it has";
  EXPECT_EQ(plan.rows[0].choice.label(), "eigen/eigen_spatial");
  EXPECT_EQ(plan.rows[1].choice.label(), "openblas/per_image_gemm");
  EXPECT_EQ(plan.rows[2].choice.label(), "eigen/eigen_spatial");
  // reference (no screen): 45x and 90x behind on conv1 and pool1 after its warm-up step, 22.5x
  // on ip1: its first timed step runs ip1 alone, then it is 4x behind everywhere and steps no more.
  ASSERT_EQ(seen[0].size(), 2u);
  EXPECT_EQ(seen[0][1], (StandIns{{"conv1", 1}, {"pool1", 2}}));
}

// The racing rules from the second timed round: a tie (openblas's conv1 0.01 behind, under
// 0.5% of the 7.0 step) and pairs behind in each of three rounds (eigen's pool1 1.1x, openblas's
// ip1 1.05x: neither 1.5x behind) are pruned, and once each layer has one pair left the rounds
// end, two short of five.
TEST(LayerPlan, TiesAndPairsBehindThroughoutArePrunedAndTheRoundsEndWhenSettled) {
  std::map<std::size_t, int> calls;
  int round_of_step = 0;
  const StepTimer timer = [&](std::size_t index, const StandIns& stand_ins) {
    ++calls[index];
    const double wobble = 0.01 * (round_of_step++ % 3);  // differs from step to step
    const std::map<std::string, std::vector<double>> cost = {{"conv1", {9.0, 2.0, 2.01}},
                                                             {"pool1", {9.0, 1.1 + wobble, 1.0 + wobble}},
                                                             {"ip1", {9.0, 4.0 + wobble, 4.2 + wobble}}};
    std::map<std::string, double> out;
    for (const auto& [layer, costs] : cost) out[layer] = costs[stand_ins.count(layer) ? stand_ins.at(layer) : index];
    return out;
  };
  PlanTiming timing;  // no warm-up round
  timing.rounds = 5;
  timing.pack = false;  // a step per candidate (packed: below)
  const LayerPlan plan = choose_plan(kLayers, kCandidates, timing, timer);
  EXPECT_EQ(plan.rounds, 3);
  EXPECT_EQ(calls, (std::map<std::size_t, int>{{0, 2}, {1, 3}, {2, 3}})) << "reference: 1.5x behind on ip1 after its second step";
  EXPECT_EQ(plan.summary(), "conv1=eigen/eigen_spatial,pool1=openblas/per_image_gemm,ip1=eigen/eigen_spatial");
  EXPECT_DOUBLE_EQ(plan.rows[0].seconds[2], 2.01) << "the tie keeps its samples";

  calls.clear();
  timing.stop_when_settled = false;
  EXPECT_EQ(choose_plan(kLayers, kCandidates, timing, timer).summary(), plan.summary());
  EXPECT_EQ(calls[1], 5) << "every round without the stop";
  calls.clear();
  timing.stop_when_settled = true;
  timing.settle_tie = 0;
  timing.prune_dominated = false;
  choose_plan(kLayers, kCandidates, timing, timer);
  EXPECT_EQ(calls[2], 5) << "nothing settles without the tie and the rule of three";
}

// The screen: a pair far behind on a slice of the batch is pruned before any whole step, its
// scaled screen time standing as its sample; one less far behind is not. Two slice steps each,
// the second with a stand-in for a pair prune_first behind on the first.
TEST(LayerPlan, TheScreenPrunesAPairFarBehindBeforeItsFirstWholeStep) {
  std::vector<std::pair<std::size_t, StandIns>> steps;
  const StepTimer timer = [&](std::size_t index, const StandIns& stand_ins) {
    steps.emplace_back(index, stand_ins);
    std::map<std::string, double> out;
    for (const auto& [layer, costs] : kCost) out[layer] = costs[stand_ins.count(layer) ? stand_ins.at(layer) : index];
    return out;
  };
  std::map<std::size_t, int> screened;
  std::vector<StandIns> reference_screens;
  // On the slice, the reference is 100x behind on conv1 and 3x on pool1 and ip1 (scaled times).
  const StepTimer screen = [&](std::size_t index, const StandIns& stand_ins) {
    ++screened[index];
    if (index == 0) reference_screens.push_back(stand_ins);
    else EXPECT_TRUE(stand_ins.empty()) << "no pair of candidate " << index << " is far behind";
    std::map<std::string, double> out;
    for (const auto& [layer, costs] : kCost) out[layer] = costs[stand_ins.count(layer) ? stand_ins.at(layer) : index];
    if (index == 0) out = {{"conv1", stand_ins.count("conv1") ? 2.0 : 200.0}, {"pool1", 3.0}, {"ip1", 12.0}};
    return out;
  };
  PlanTiming timing;
  timing.warmup = 2;
  timing.rounds = 3;
  timing.prune = 0;
  timing.prune_first = 0;
  timing.prune_timed = 0;
  timing.prune_screen = 4;
  timing.pack = false;  // a step per candidate (packed: below)
  const LayerPlan plan = choose_plan(kLayers, kCandidates, timing, timer, screen);
  EXPECT_EQ(screened, (std::map<std::size_t, int>{{0, 2}, {1, 2}, {2, 2}})) << "every candidate screened twice";
  EXPECT_EQ(reference_screens, (std::vector<StandIns>{{}, {}})) << "prune_first 0: both screen steps whole";
  ASSERT_FALSE(steps.empty());
  for (const auto& [index, stand_ins] : steps)
    if (index == 0) {
      EXPECT_EQ(stand_ins, (StandIns{{"conv1", 1}})) << "conv1 on eigen from the reference's first step";
    }
  EXPECT_DOUBLE_EQ(plan.rows[0].seconds[0], 200.0) << "the scaled screen time stands as the pruned pair's sample";
  EXPECT_DOUBLE_EQ(plan.rows[1].seconds[0], 9.0) << "3x behind on the slice: timed whole";
  EXPECT_EQ(plan.rows[0].choice.label(), "eigen/eigen_spatial");

  // With prune_first 25 the reference's conv1, 100x behind on the first slice step, runs on
  // eigen in the second; its first time stands as its sample.
  reference_screens.clear();
  timing.prune_first = 25;
  const LayerPlan first = choose_plan(kLayers, kCandidates, timing, timer, screen);
  EXPECT_EQ(reference_screens, (std::vector<StandIns>{{}, {{"conv1", 1}}}));
  EXPECT_DOUBLE_EQ(first.rows[0].seconds[0], 200.0);
  timing.prune_first = 0;

  // Without a screen timer, or with prune_screen 0, nothing is screened.
  screened.clear();
  steps.clear();
  timing.prune_screen = 0;
  choose_plan(kLayers, kCandidates, timing, timer, screen);
  EXPECT_TRUE(screened.empty());
  for (const auto& [index, stand_ins] : steps) EXPECT_TRUE(stand_ins.empty());
}

// A stand-in timer over per-layer costs (seconds per candidate) that counts its steps and, per
// layer, the steps run on each candidate (the step's own or the one `others` names).
struct CountingTimer {
  std::map<std::string, std::vector<double>> cost;
  int steps = 0;
  std::map<std::string, std::map<std::size_t, int>> runs;  // layer -> candidate -> steps run on it
  StepTimer timer() {
    return [this](std::size_t index, const StandIns& others) {
      ++steps;
      std::map<std::string, double> out;
      for (const auto& [layer, costs] : cost) {
        const std::size_t on = others.count(layer) ? others.at(layer) : index;
        ++runs[layer][on];
        out[layer] = costs[on];
      }
      return out;
    };
  }
};

// Packed steps (PlanTiming::pack): a step times one pair of every layer, each on its own
// candidate, so a round takes as many steps as the layer with the most pairs left, not one step
// per candidate still in the race. Here after the first round (4 steps, every pair) conv1 has
// three pairs left (onednn 10x behind), pool1 three (openblas 9x), ip1 two: 3 steps a round
// against 4, and where a layer's pairs are used up it runs on its fastest so far.
TEST(LayerPlan, PackedStepsTimeOnePairOfEachLayerAndTakeAsManyStepsAsTheMostContested) {
  const std::vector<PlanChoice> candidates = {kCandidates[0], kCandidates[1], kCandidates[2],
                                              {"onednn", ConvLowering::direct, std::nullopt}};
  CountingTimer counting{{{"conv1", {2.0, 2.2, 2.4, 20.0}}, {"pool1", {1.0, 1.1, 9.0, 0.9}}, {"ip1", {4.0, 4.4, 40.0, 40.0}}}, 0, {}};
  const StepTimer timer = counting.timer();
  int& steps = counting.steps;
  auto& runs = counting.runs;
  PlanTiming timing;  // no screen, no warm-up; the 4x prune after the first round only
  timing.rounds = 3;
  timing.prune_timed = timing.settle_tie = 0;
  timing.prune_dominated = false;
  const LayerPlan plan = choose_plan(kLayers, candidates, timing, timer);
  EXPECT_EQ(steps, 4 + 3 + 3);
  EXPECT_EQ(runs["conv1"], (std::map<std::size_t, int>{{0, 3}, {1, 3}, {2, 3}, {3, 1}}));
  EXPECT_EQ(runs["pool1"], (std::map<std::size_t, int>{{0, 3}, {1, 3}, {2, 1}, {3, 3}}));
  EXPECT_EQ(runs["ip1"], (std::map<std::size_t, int>{{0, 3 + 2}, {1, 3}, {2, 1}, {3, 1}}))
      << "the third step of a round: ip1's two pairs used up, its fastest runs it";
  EXPECT_EQ(plan.summary(), "conv1=reference,pool1=onednn/direct,ip1=reference");
  EXPECT_DOUBLE_EQ(plan.rows[1].seconds[3], 0.9);

  steps = 0;
  timing.pack = false;  // a step per candidate still in the race: the same choice, 4 a round
  EXPECT_EQ(choose_plan(kLayers, candidates, timing, timer).summary(), plan.summary());
  EXPECT_EQ(steps, 4 + 4 + 4);
}

// Twins (Backend::op_setup): a candidate that runs a layer's ops as an earlier one does is not
// timed there once the layer's ops are known (after the first step), and takes that one's
// median; the earlier wins the tie, and the table's runner-up is not the twin.
TEST(LayerPlan, ATwinIsNotTimedAndTakesItsTwinsMedian) {
  CountingTimer counting{kCost, 0, {}};
  counting.cost["pool1"][2] = 1.5;  // openblas's pool1 as eigen's
  const StepTimer timer = counting.timer();
  const int& steps = counting.steps;
  auto& runs = counting.runs;
  int asked_before_a_step = 0;
  const Twins twins = [&](const std::string& layer, std::size_t c) -> std::size_t {
    if (steps == 0) ++asked_before_a_step;
    return layer == "pool1" && c == 2 ? 1 : c;
  };
  PlanTiming timing;
  timing.rounds = 4;
  timing.prune = timing.prune_timed = timing.settle_tie = 0;
  timing.prune_dominated = false;
  const LayerPlan plan = choose_plan(kLayers, kCandidates, timing, timer, {}, twins);
  EXPECT_EQ(asked_before_a_step, 0);
  EXPECT_EQ(runs["pool1"][2], 1) << "the first round only, before the layer's ops were known";
  EXPECT_EQ(runs["conv1"][2], 4);
  EXPECT_EQ(plan.rows[1].seconds[2], plan.rows[1].seconds[1]);
  EXPECT_EQ(plan.rows[1].choice.label(), "eigen/eigen_spatial");
  const std::string table = plan.table();
  const std::size_t pool1 = table.find("pool1");
  ASSERT_NE(pool1, std::string::npos);
  const std::string row = table.substr(pool1, table.find('\n', pool1) - pool1);
  EXPECT_NE(row.find("reference"), std::string::npos) << row;
  EXPECT_EQ(row.find("openblas"), std::string::npos) << "the twin is not the runner-up: " << row;
}

// The start-up's account: the engines, the screen where it ran, every candidate step (the
// costliest three named, in order of cost), the whole plans where layouts were settled.
TEST(LayerPlan, MeasureNoteSaysWhereTheStartUpWent) {
  const std::vector<PlanChoice> candidates = {{"reference", std::nullopt, std::nullopt},
                                              {"eigen", ConvLowering::omp_per_image, std::nullopt},
                                              {"openblas", ConvLowering::omp_per_image, std::nullopt},
                                              {"onednn", ConvLowering::direct, std::nullopt},
                                              {"onednn", ConvLowering::omp_per_image, std::nullopt}};
  const std::vector<StepCost> costs = {{4.25, 1}, {0.5, 7}, {0.75, 7}, {0.0, 0}, {0.25, 3}};
  const std::string note = measure_note(7.5, 0.5, candidates, costs, {5.75, 9}, 0.5, 1.25);
  EXPECT_EQ(note, "start-up 7.50 s: engines built 0.50 s; screen 0.50 s; 9 timed steps 5.75 s (reference 4.25 s in 1 step, "
                  "openblas/omp_per_image 0.75 s in 7 steps, eigen/omp_per_image 0.50 s in 7 steps, ...); whole plans 1.25 s");
  const std::string plain = measure_note(1.0, 0.25, {candidates[1]}, {{0.5, 7}}, {0.5, 7}, 0, 0);
  EXPECT_EQ(plain, "start-up 1.00 s: engines built 0.25 s; 7 timed steps 0.50 s (eigen/omp_per_image 0.50 s in 7 steps)");
}

TEST(LayerPlan, RefusesNothingToChooseFrom) {
  const StepTimer timer = [](std::size_t, const StandIns&) { return std::map<std::string, double>{}; };
  EXPECT_NE(error_of([&] { choose_plan(kLayers, {}, {}, timer); }).find("no candidate"), std::string::npos);
  EXPECT_NE(error_of([&] { choose_plan({}, kCandidates, {}, timer); }).find("no layer"), std::string::npos);
  PlanTiming none;
  none.rounds = 0;
  EXPECT_NE(error_of([&] { choose_plan(kLayers, kCandidates, none, timer); }).find("rounds 0"), std::string::npos);
}

}  // namespace
}  // namespace ablate::bench::run
