// `ablate ablate` on a stand-in runner whose training time is a known function of the factors
// (additive effects, one interaction, seeded noise): the main effects, the interaction and the
// Shapley values recover it within their intervals; listing the factors in another order changes
// no Shapley value; a fraction's aliases are named; more than two levels go through ANOVA; a
// failed run is recorded and shown; a rerun skips what is done. Then the command itself, once,
// on a tiny model.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <functional>
#include <random>

#include <nlohmann/json.hpp>

#include "bench/experiments/design_analysis.h"
#include "bench/experiments/design_runner.h"
#include "bench/experiments/design_table.h"
#include "bench/run/results_reader.h"
#include "command_runner.h"
#include "tiny_run.h"

using namespace ablate::bench::experiments;
using ablate::bench::run::Flags;
using ablate::bench::testing::CommandTest;

namespace {

// Truth: 10 + 3[strategy=static] + 2[backend=onednn] - 1[precision=f64] + 1.5[static][onednn]
// seconds, plus noise of sd 0.05 seeded by the cell and repeat (not the run order), so that the
// same cell measures the same whatever order the factors are named in.
struct StandIn {
  double noise_sd = 0.05;
  std::map<std::string, double> extra;  // KEY=VALUE -> seconds added (more factors)
  std::function<bool(const Flags&)> fails = [](const Flags&) { return false; };
  int calls = 0;
  std::map<std::string, int> seen;  // cell text -> runs so far (the repeat's noise draw)
  int disturb_first = 0;            // the first N runs of every cell: others busy, 100 s slower

  std::string operator()(const Flags& a, const std::function<void()>&) { return (*this)(a); }
  std::string operator()(const Flags& a) {
    ++calls;
    if (fails(a)) throw std::runtime_error("stand-in: this configuration crashed");
    const double s = a.get("strategy") == "static", b = a.get("backend") == "onednn", p = a.get("precision") == "f64";
    double t = 10 + 3 * s + 2 * b - p + 1.5 * s * b;
    std::string cell;
    for (const auto& [k, v] : a.values()) {
      cell += k + "=" + v + " ";
      if (extra.count(k + "=" + v)) t += extra.at(k + "=" + v);
    }
    std::seed_seq seq(cell.begin(), cell.end());
    std::mt19937_64 rng(seq);
    const int nth = seen[cell]++;
    const bool disturbed = nth < disturb_first;
    rng.discard(static_cast<unsigned long long>(7 * (disturbed ? 0 : nth - disturb_first)));  // clean runs: draws 0, 1, ...
    t += std::normal_distribution<double>(0, noise_sd)(rng) + (disturbed ? 100 : 0);
    nlohmann::json r = {{"status", "completed"}, {"metrics", {{"train_time_s", t}, {"images_per_s", 1000 / t}}}};
    r["metrics"]["disturbance"] = {{"others_cores", disturbed ? 1.5 : 0.0}, {"disturbed", disturbed}};
    return r.dump();
  }
};

DesignSpec three_factors(std::vector<std::string> order = {"strategy", "backend", "precision"}) {
  std::map<std::string, std::string> levels = {
      {"strategy", "layerwise,static"}, {"backend", "openblas,onednn"}, {"precision", "f32,f64"}};
  DesignSpec spec;
  spec.base = {{"framework", "caffe"}, {"dataset", "synthetic"}};
  for (const auto& key : order) spec.factors.push_back(parse_vary(key + "=" + levels.at(key)));
  spec.repeats = 5;
  spec.shapley = true;
  return spec;
}

struct Outcome {
  DesignPlan plan;
  DesignSamples samples;
  MetricAnalysis time;
  DesignTotals totals;
};

Outcome run_and_analyse(const DesignSpec& spec, const std::string& out, StandIn& stand_in) {
  Outcome o;
  o.plan = plan_design(spec);
  o.totals = run_design(spec, o.plan, out, std::ref(stand_in), false);
  const auto metrics = design_metrics("time");
  o.samples = collect_samples(spec, o.plan, metrics, ablate::bench::run::read_results(out).records);
  o.time = analyse_metric(spec, o.plan, metrics[0], o.samples.values[0], {2000, spec.seed});
  return o;
}

const EffectRow& row(const std::vector<EffectRow>& rows, const std::string& name) {
  for (const auto& r : rows)
    if (r.name == name) return r;
  throw std::runtime_error("no row " + name);
}

const ShapleyRow& shapley(const MetricAnalysis& m, const std::string& factor) {
  for (const auto& r : m.shapley)
    if (r.factor == factor) return r;
  throw std::runtime_error("no Shapley value of " + factor);
}

}  // namespace

class DesignedExperiment : public CommandTest {};

TEST_F(DesignedExperiment, RecoversKnownEffectsInteractionAndShapleyValuesWithinTheirIntervals) {
  StandIn stand_in;
  const Outcome o = run_and_analyse(three_factors(), (dir_ / "d.jsonl").string(), stand_in);
  EXPECT_EQ(o.totals.runs, 40);
  EXPECT_EQ(o.time.design, "2^3 full factorial");
  EXPECT_TRUE(o.time.missing.empty());
  EXPECT_NEAR(o.time.spread, 0.05, 0.02);
  // Main effects (averaged over the other factors): 3 + 1.5/2, 2 + 1.5/2, -1.
  for (const auto& [name, truth] : std::vector<std::pair<std::string, double>>{{"strategy", 3.75}, {"backend", 2.75}, {"precision", -1}}) {
    const EffectRow& e = row(o.time.main, name);
    EXPECT_TRUE(e.interval.covers(truth)) << name << " " << e.value << " [" << e.interval.low << ", " << e.interval.high << "]";
    EXPECT_FALSE(e.within_noise) << name;
  }
  const EffectRow& sb = row(o.time.interactions, "strategy x backend");
  EXPECT_TRUE(sb.interval.covers(0.75)) << sb.value;
  EXPECT_FALSE(sb.within_noise);
  const EffectRow& sp = row(o.time.interactions, "strategy x precision");
  EXPECT_TRUE(sp.interval.covers(0)) << sp.value;
  EXPECT_TRUE(sp.within_noise);
  // Shapley: the interaction split evenly between its two factors; the values sum to the change.
  ASSERT_TRUE(o.time.has_shapley);
  double sum = 0;
  for (const auto& [name, truth] : std::vector<std::pair<std::string, double>>{{"strategy", 3.75}, {"backend", 2.75}, {"precision", -1}}) {
    const ShapleyRow& s = shapley(o.time, name);
    EXPECT_TRUE(s.interval.covers(truth)) << name << " " << s.value;
    sum += s.value;
  }
  EXPECT_NEAR(sum, o.time.shapley_to - o.time.shapley_from, 1e-9);
  EXPECT_NEAR(o.time.shapley_to - o.time.shapley_from, 5.5, 0.1);
}

TEST_F(DesignedExperiment, ListingTheFactorsInAnotherOrderChangesNoShapleyValueNorInterval) {
  StandIn first, second;
  const std::string out = (dir_ / "d.jsonl").string();
  const Outcome a = run_and_analyse(three_factors({"strategy", "backend", "precision"}), out, first);
  const Outcome b = run_and_analyse(three_factors({"precision", "strategy", "backend"}), out, second);
  EXPECT_EQ(second.calls, 0) << "the same design, whatever the order: every run is already in the file";
  EXPECT_EQ(b.totals.skipped, 40);
  for (const char* f : {"strategy", "backend", "precision"}) {
    EXPECT_DOUBLE_EQ(shapley(a.time, f).value, shapley(b.time, f).value) << f;
    EXPECT_DOUBLE_EQ(shapley(a.time, f).interval.low, shapley(b.time, f).interval.low) << f;
    EXPECT_DOUBLE_EQ(shapley(a.time, f).interval.high, shapley(b.time, f).interval.high) << f;
  }
}

TEST_F(DesignedExperiment, SampledShapleyBeyondEightFactorsIsIndependentOfTheirOrder) {
  // Ten factors: the three above and seven more, each adding 0.5 s at its second level.
  std::vector<std::string> more = {"batch=16,32", "threads=1,2", "executor=sequential,parallel", "passes=none,all",
                                   "conv-lowering=per_image_gemm,omp_per_image", "threading=library,openmp_images",
                                   "seed=1,2"};
  StandIn stand_in;
  stand_in.noise_sd = 0.01;
  DesignSpec spec = three_factors();
  spec.repeats = 1;  // the values and their standard errors over the orders (each record is fsynced: few runs)
  spec.orders = 12;
  for (const auto& m : more) {
    spec.factors.push_back(parse_vary(m));
    const auto& f = spec.factors.back();
    stand_in.extra[f.key + "=" + f.values[1]] = 0.5;
  }
  const Outcome a = run_and_analyse(spec, (dir_ / "a.jsonl").string(), stand_in);
  EXPECT_EQ(a.plan.kind, DesignKind::shapley_orders);
  EXPECT_LT(a.plan.cells.size(), std::size_t{1} << 10);  // the orders' prefixes, not all 1024 subsets
  EXPECT_TRUE(a.time.main.empty());
  double sum = 0;
  for (const auto& s : a.time.shapley) sum += s.value;
  EXPECT_NEAR(sum, a.time.shapley_to - a.time.shapley_from, 1e-9);
  EXPECT_NEAR(shapley(a.time, "batch").value, 0.5, 0.05);
  EXPECT_GE(shapley(a.time, "strategy").standard_error, 0);
  EXPECT_NEAR(shapley(a.time, "strategy").value, 3.75, 4 * shapley(a.time, "strategy").standard_error + 0.05);
  // Reversed list: the same cells (orders drawn over the factors sorted by name), the same values.
  DesignSpec reversed = spec;
  std::reverse(reversed.factors.begin(), reversed.factors.end());
  StandIn again;
  again.noise_sd = 0.01;
  again.extra = stand_in.extra;
  const Outcome b = run_and_analyse(reversed, (dir_ / "b.jsonl").string(), again);
  for (const auto& s : a.time.shapley) EXPECT_DOUBLE_EQ(s.value, shapley(b.time, s.factor).value) << s.factor;
}

TEST_F(DesignedExperiment, AFractionRecoversMainEffectsAndNamesItsAliases) {
  DesignSpec spec = three_factors();
  spec.shapley = false;
  spec.repeats = 3;
  for (const char* m : {"batch=16,32", "threads=1,2", "seed=1,2"}) spec.factors.push_back(parse_vary(m));
  spec.fraction = 2;  // 2^(6-2): E = ABC (threads), F = BCD (seed)
  StandIn stand_in;
  stand_in.extra = {{"batch=32", 0.8}};
  const Outcome o = run_and_analyse(spec, (dir_ / "f.jsonl").string(), stand_in);
  EXPECT_EQ(o.plan.cells.size(), 16u);
  EXPECT_EQ(o.time.design, "2^(6-2) fraction, resolution IV (E=ABC, F=BCD)");
  EXPECT_TRUE(row(o.time.main, "batch").interval.covers(0.8)) << row(o.time.main, "batch").value;
  EXPECT_TRUE(row(o.time.main, "precision").interval.covers(-1));
  EXPECT_TRUE(row(o.time.main, "threads").within_noise);
  // strategy x backend (AB) is aliased with precision x threads (CE); their sum is estimated.
  const EffectRow& ab = row(o.time.interactions, "strategy x backend");
  EXPECT_EQ(ab.detail, "aliased with precision x threads");
  EXPECT_TRUE(ab.interval.covers(0.75)) << ab.value;
}

TEST_F(DesignedExperiment, MoreThanTwoLevelsGoThroughAnova) {
  DesignSpec spec;
  spec.base = {{"framework", "caffe"}};
  spec.factors = {parse_vary("batch=16,64,256"), parse_vary("backend=openblas,onednn")};
  spec.repeats = 4;
  StandIn stand_in;
  stand_in.extra = {{"batch=64", -2}, {"batch=256", -3}};
  const Outcome o = run_and_analyse(spec, (dir_ / "m.jsonl").string(), stand_in);
  EXPECT_EQ(o.plan.kind, DesignKind::multi_level);
  EXPECT_EQ(o.time.design, "3 x 2 full factorial");
  const EffectRow& batch = row(o.time.main, "batch");
  EXPECT_TRUE(batch.interval.covers(3)) << batch.value;
  EXPECT_EQ(batch.detail, "highest 16 - lowest 256");
  EXPECT_LT(batch.p, 0.001);
  EXPECT_TRUE(row(o.time.main, "backend").interval.covers(2));
  EXPECT_TRUE(row(o.time.interactions, "batch x backend").within_noise);
}

TEST_F(DesignedExperiment, AFailedRunIsRecordedShownAndRunAgainOnARerun) {
  const std::string out = (dir_ / "d.jsonl").string();
  DesignSpec spec = three_factors();
  spec.repeats = 2;
  StandIn crashing;
  crashing.fails = [](const Flags& a) { return a.get("strategy") == "static" && a.get("precision") == "f64"; };
  Outcome o = run_and_analyse(spec, out, crashing);
  EXPECT_EQ(o.totals.failed, 4);  // two cells x two repeats
  EXPECT_EQ(o.samples.failures.size(), 4u);
  const auto records = ablate::bench::run::read_results(out).records;
  ASSERT_EQ(records.size(), 16u);  // the failed runs are records too
  int failed_records = 0;
  for (const auto& r : records) failed_records += r.value("status", "") == "failed";
  EXPECT_EQ(failed_records, 4);
  EXPECT_FALSE(o.time.missing.empty()) << "a cell without a successful run leaves a gap";
  DesignReport report{&spec, &o.plan, &o.samples, {o.time}};
  const std::string text = design_text(report);
  EXPECT_HAS(text, "no effects estimated: no successful run of backend=openblas precision=f64 strategy=static");
  EXPECT_HAS(text, "2 FAILED");
  EXPECT_HAS(text, "stand-in: this configuration crashed");
  EXPECT_EQ(design_json(report)["failed_runs"].size(), 4u);
  // The rerun tries exactly the failed runs; now they succeed and the effects are back.
  StandIn healthy;
  o = run_and_analyse(spec, out, healthy);
  EXPECT_EQ(healthy.calls, 4);
  EXPECT_EQ(o.totals.skipped, 12);
  EXPECT_TRUE(o.time.missing.empty());
  EXPECT_TRUE(row(o.time.main, "strategy").interval.covers(3.75));
  int retried = 0;
  for (const auto& f : o.samples.failures) retried += f.retried_ok;
  EXPECT_EQ(retried, 4);
  EXPECT_HAS(design_text(DesignReport{&spec, &o.plan, &o.samples, {o.time}}), "(a later run succeeded)");
}

TEST_F(DesignedExperiment, ADisturbedRunIsRunAgainAndLeftOutOrKeptAndMarked) {
  DesignSpec spec = three_factors();
  spec.repeats = 3;
  StandIn busy;
  busy.disturb_first = 1;  // every cell's first run 100 s slower with others busy
  Outcome o = run_and_analyse(spec, (dir_ / "again.jsonl").string(), busy);
  EXPECT_EQ(o.totals.rerun, 8);
  EXPECT_EQ(o.totals.runs, 24);
  EXPECT_EQ(o.totals.disturbed, 0);
  EXPECT_EQ(busy.calls, 32);
  for (std::size_t c = 0; c < 8; ++c) {
    EXPECT_EQ(o.samples.rerun[c], 1);
    EXPECT_EQ(o.samples.done[c], 3);
  }
  EXPECT_TRUE(row(o.time.main, "strategy").interval.covers(3.75)) << "the disturbed runs are left out";
  DesignReport report{&spec, &o.plan, &o.samples, {o.time}};
  EXPECT_HAS(design_text(report), "8 disturbed and run again, 0 disturbed and kept");
  EXPECT_HAS(design_text(report), "1 re-run");
  // A rerun of the command finds every repeat done: the superseded records do not count as done
  // and nothing is left to run.
  StandIn idle;
  o = run_and_analyse(spec, (dir_ / "again.jsonl").string(), idle);
  EXPECT_EQ(idle.calls, 0);

  // No re-runs allowed: the disturbed run counts, marked, and its 100 s shows in the cell.
  spec.rerun_disturbed = 0;
  StandIn kept;
  kept.disturb_first = 1;
  o = run_and_analyse(spec, (dir_ / "kept.jsonl").string(), kept);
  EXPECT_EQ(o.totals.disturbed, 8);
  EXPECT_EQ(o.totals.rerun, 0);
  EXPECT_EQ(kept.calls, 24);
  const DesignReport marked{&spec, &o.plan, &o.samples, {o.time}};
  EXPECT_HAS(design_text(marked), "1 KEPT");
  EXPECT_EQ(design_json(marked)["disturbed_runs"]["kept"], 8);
  EXPECT_GT(o.time.spread, 10) << "a disturbed run kept is seen in the spread";
}

TEST_F(DesignedExperiment, RunOrderIsRandomisedInterleavedAndSeeded) {
  const DesignSpec spec = three_factors();
  const DesignPlan plan = plan_design(spec);
  const auto order = design_run_order(spec, plan);
  ASSERT_EQ(order.size(), 40u);
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i].repeat, static_cast<int>(i / 8)) << "pass after pass";
  bool shuffled = false;
  for (std::size_t i = 0; i < 8; ++i) shuffled = shuffled || order[i].cell != i;
  EXPECT_TRUE(shuffled);
  bool passes_differ = false;
  for (std::size_t i = 0; i < 8; ++i) passes_differ = passes_differ || order[i].cell != order[8 + i].cell;
  EXPECT_TRUE(passes_differ);
  const auto again = design_run_order(spec, plan);
  for (std::size_t i = 0; i < order.size(); ++i) EXPECT_EQ(order[i].cell, again[i].cell);
}

TEST(DesignSpecCheck, BadInputIsNamed) {
  const auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("(no error)");
  };
  EXPECT_HAS(message([] { parse_vary("colour=red,blue"); }), "'colour' is not a run flag");
  EXPECT_HAS(message([] { parse_vary("batch="); }), "--vary batch=");
  DesignSpec one;
  one.factors = {parse_vary("batch=16")};
  EXPECT_HAS(message([&] { plan_design(one); }), "--factor batch=16: expected at least two levels");
  DesignSpec three;
  three.factors = {parse_vary("batch=16,32,64"), parse_vary("threads=1,2")};
  three.shapley = true;
  EXPECT_HAS(message([&] { plan_design(three); }), "--factor batch: 3 levels, but --shapley takes two-level factors only");
  DesignSpec none;
  EXPECT_HAS(message([&] { plan_design(none); }), "expected at least one --factor");
  DesignSpec twice;
  twice.factors = {parse_vary("batch=16,32"), parse_vary("batch=8,4")};
  EXPECT_HAS(message([&] { plan_design(twice); }), "varied twice");
  EXPECT_HAS(message([] { design_metrics("time,speed"); }), "unknown metric 'speed'");
}

TEST_F(DesignedExperiment, TheCommandRunsATinyDesignResumesAndNamesABadLevel) {
  const std::string out = (dir_ / "d.jsonl").string();
  const std::string cmd = "ablate --dataset synthetic --framework caffe --model " + ablate::bench::tiny::tiny_model_path() +
                          " --threads 1 --iterations 3 --test-iterations 1 --factor backend=eigen,openblas --factor batch=8,16 "
                          "--repeats 2 --shapley --metric time,memory --bootstrap 200 --out " + out + " --report " +
                          (dir_ / "report").string();
  auto first = ablate(cmd);
  ASSERT_EQ(first.exit_code, 0) << first.out << first.err;
  EXPECT_HAS(first.out, "runs done: 8 run, 0 skipped");
  EXPECT_HAS(first.out, "training time (s): 2^2 full factorial");
  EXPECT_HAS(first.out, "Shapley values of the change");
  EXPECT_HAS(first.out, "peak RSS (MiB)");
  EXPECT_TRUE(std::filesystem::exists(dir_ / "report" / "report.md"));
  const auto json = nlohmann::json::parse(ablate::bench::testing::slurp(dir_ / "report" / "ablate.json"));
  EXPECT_EQ(json["metrics"].size(), 2u);
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0) {
    EXPECT_TRUE(std::filesystem::exists(dir_ / "report" / "ablate_time_shapley.png")) << first.out;
    EXPECT_TRUE(std::filesystem::exists(dir_ / "report" / "ablate_time_interactions.png")) << first.out;
  }
  auto again = ablate(cmd);
  ASSERT_EQ(again.exit_code, 0) << again.out << again.err;
  EXPECT_HAS(again.out, "runs done: 0 run, 8 skipped");
  auto bad = ablate("ablate --dataset synthetic --framework caffe --factor batch=16,abc --out " + out);
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_HAS(bad.err, "the level 'abc' does not resolve");
  auto unknown = ablate("ablate --dataset synthetic --factor colour=red,blue --out " + out);
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_HAS(unknown.err, "colour");
}
