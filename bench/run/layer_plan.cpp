// The per-layer plan: its choices, table and the choice from timings (see layer_plan.h; the
// key and the plan file are plan_file.cpp's).
#include "bench/run/layer_plan.h"

#include <algorithm>
#include <numeric>
#include <set>
#include <sstream>
#include <stdexcept>

#include "bench/run/median.h"
#include "bench/run/text_format.h"
#include "kernels/registry.h"

namespace ablate::bench::run {

namespace {

std::string ms(double seconds) { return fmt("%.3f", seconds * 1e3); }

}  // namespace

std::string PlanChoice::label() const {
  if (!lowering) return backend;
  std::string out = backend + "/" + kernels::cpu::conv_lowering_name(*lowering);
  if (threading && *threading != kernels::cpu::threadings_of(*lowering).front())
    out += std::string("/") + kernels::cpu::threading_name(*threading);
  return blocked ? out + "+blocked" : out;
}

namespace {

PlanChoice parse_plan_choice_unblocked(const std::string& text, const std::string& where) {
  const std::size_t slash = text.find('/');
  PlanChoice c;
  c.backend = text.substr(0, slash);
  const std::vector<std::string> known = kernels::backend_names();
  if (std::find(known.begin(), known.end(), c.backend) == known.end())
    throw std::invalid_argument(where + ": backend '" + c.backend + "' in '" + text +
                                "' is not one of this build (" + join(known, ", ") + ")");
  if (c.backend == "cuda")
    throw std::invalid_argument(where + ": '" + text + "': a plan mixes host backends only (cuda runs on a device)");
  const std::vector<kernels::cpu::ConvLowering> lowerings = kernels::conv_lowerings_of(c.backend);
  if (slash == std::string::npos) {
    if (!lowerings.empty()) c.lowering = lowerings.front();  // the backend's default
    return c;
  }
  const std::size_t second = text.find('/', slash + 1);
  const std::string name = text.substr(slash + 1, second == std::string::npos ? std::string::npos : second - slash - 1);
  std::vector<std::string> names;
  for (kernels::cpu::ConvLowering l : lowerings) {
    names.emplace_back(kernels::cpu::conv_lowering_name(l));
    if (names.back() == name) c.lowering = l;
  }
  if (!c.lowering)
    throw std::invalid_argument(where + ": '" + name + "' in '" + text + "' is not a convolution lowering of " +
                                c.backend + (names.empty() ? " (it takes none)" : " (it takes " + join(names, ", ") + ")"));
  const std::vector<kernels::cpu::Threading> threadings = kernels::cpu::threadings_of(*c.lowering);
  c.threading = threadings.front();
  if (second == std::string::npos) return c;
  const std::string threading = text.substr(second + 1);
  std::vector<std::string> threading_names;
  bool found = false;
  for (kernels::cpu::Threading t : threadings) {
    threading_names.emplace_back(kernels::cpu::threading_name(t));
    if (threading_names.back() == threading) c.threading = t, found = true;
  }
  if (!found)
    throw std::invalid_argument(where + ": threading '" + threading + "' in '" + text + "' is not one that " + name +
                                " runs under (it takes " + join(threading_names, ", ") + ")");
  return c;
}

}  // namespace

PlanChoice parse_plan_choice(const std::string& full, const std::string& where) {
  const std::string suffix = "+blocked";
  const bool blocked = full.size() > suffix.size() && full.compare(full.size() - suffix.size(), suffix.size(), suffix) == 0;
  const std::string text = blocked ? full.substr(0, full.size() - suffix.size()) : full;
  PlanChoice c = parse_plan_choice_unblocked(text, where);
  if (blocked && c.lowering != kernels::cpu::ConvLowering::direct)
    throw std::invalid_argument(where + ": '" + full + "': only a direct lowering (onednn/direct) keeps a blocked layout");
  c.blocked = blocked;
  return c;
}

const LayerPlan::Row* LayerPlan::row(const std::string& layer) const {
  for (const Row& r : rows)
    if (r.layer == layer) return &r;
  return nullptr;
}

std::string LayerPlan::summary() const {
  std::vector<std::string> parts;
  for (const Row& r : rows) parts.push_back(r.layer + "=" + r.choice.label());
  return join(parts, ",");
}

std::string LayerPlan::table() const {
  std::size_t width = 5, label = 9;  // columns: the longest layer name and choice label
  for (const Row& r : rows) width = std::max(width, r.layer.size());
  for (const Row& r : rows) label = std::max(label, r.choice.label().size());
  for (const PlanChoice& c : candidates) label = std::max(label, c.label().size());
  auto pad = [](std::string s, std::size_t n) { return s.size() < n ? s + std::string(n - s.size(), ' ') : s; };
  std::ostringstream out;
  out << pad("layer", width) << "  " << pad("choice", label) << "  ms (median)  " << pad("runner-up", label) << "  ms\n";
  double chosen_total = 0;
  for (const Row& r : rows) {
    out << pad(r.layer, width) << "  " << pad(r.choice.label(), label);
    if (r.seconds.size() == candidates.size() && !r.seconds.empty()) {
      std::size_t best = 0, second = candidates.size();
      for (std::size_t i = 0; i < candidates.size(); ++i)
        if (candidates[i] == r.choice) best = i;
      for (std::size_t i = 0; i < candidates.size(); ++i)
        if (i != best && r.seconds[i] != r.seconds[best] &&  // not a twin of the choice (choose_plan)
            (second == candidates.size() || r.seconds[i] < r.seconds[second]))
          second = i;
      chosen_total += r.seconds[best];
      out << "  " << pad(ms(r.seconds[best]), 11);
      if (second < candidates.size()) out << "  " << pad(candidates[second].label(), label) << "  " << ms(r.seconds[second]);
    }
    out << "\n";
  }
  if (chosen_total > 0) out << pad("total", width) << "  " << pad("", label) << "  " << ms(chosen_total) << "\n";
  if (!whole_plans_note.empty()) out << whole_plans_note << "\n";
  if (!measure_note.empty()) out << measure_note << "\n";
  return out.str();
}

LayerPlan choose_plan(const std::vector<std::string>& layers, const std::vector<PlanChoice>& candidates,
                      const PlanTiming& timing, const StepTimer& timer, const StepTimer& screen, const Twins& twins) {
  if (candidates.empty()) throw std::invalid_argument("plan: no candidate backend to time");
  if (layers.empty()) throw std::invalid_argument("plan: the model has no layer to plan");
  if (timing.rounds < 1)
    throw std::invalid_argument("plan: rounds " + std::to_string(timing.rounds) + ": expected at least 1");
  if (timing.warmup < 0)
    throw std::invalid_argument("plan: warm-up rounds " + std::to_string(timing.warmup) + ": expected at least 0");
  const std::size_t n = candidates.size();
  // samples[layer][candidate]: one time per timed round (a pair pruned before any: its last time).
  std::map<std::string, std::vector<std::vector<double>>> samples;
  for (const std::string& layer : layers) samples[layer].assign(n, {});
  std::vector<bool> stepped(n, true);    // a candidate beaten on every layer that matters: false
  std::vector<StandIns> stand_ins(n);    // per candidate, its pruned layers and who runs them
  std::vector<std::map<std::string, double>> last_time(n);  // per pair, its last step's (or screen's)
  auto last_of = [&](std::size_t c, const std::string& layer) {
    auto it = last_time[c].find(layer);
    return it == last_time[c].end() ? 0.0 : it->second;
  };
  auto has_time = [&](std::size_t c, const std::string& layer) { return last_time[c].count(layer) > 0; };
  std::map<std::string, bool> matters;  // per layer, as the last pruning on last times saw it
  // twin[layer][c]: the candidate that runs the layer for c, its twin (c itself if none); a
  // twin's pair is not timed (its twin stands in), drops the times it has (no lucky first time
  // leads the layer) and takes its twin's samples at the end.
  std::map<std::string, std::vector<std::size_t>> twin;
  auto merge_twins = [&] {
    if (!twins || !twin.empty()) return;
    for (const std::string& layer : layers)
      for (std::size_t c = 0; c < n; ++c) {
        const std::size_t t = twins(layer, c);
        twin[layer].push_back(t < c ? t : c);
        if (twin[layer][c] == c) continue;
        stand_ins[c][layer] = twin[layer][c];
        samples[layer][c].clear();
        last_time[c].erase(layer);
      }
  };
  // After the screen, the warm-up or the first timed round: on their last times, the pairs at
  // least `factor` times slower than the layer's best.
  auto prune = [&](double factor) {
    std::map<std::string, std::size_t> best_of;  // per layer, the candidate of least last time
    double step_best = 0;
    for (const std::string& layer : layers) {  // a candidate without a time there is not compared
      std::size_t best = n;
      for (std::size_t c = 0; c < n; ++c)
        if (has_time(c, layer) && (best == n || last_of(c, layer) < last_of(best, layer))) best = c;
      best_of[layer] = best;
      if (best < n) step_best += last_of(best, layer);
    }
    for (std::size_t c = 0; c < n; ++c) {
      if (!stepped[c]) continue;
      bool compared = false, beaten_everywhere = true;
      for (const std::string& layer : layers) {
        const double best = best_of[layer] < n ? last_of(best_of[layer], layer) : 0.0;
        matters[layer] = best > 0 && best >= 0.01 * step_best;
        if (!matters[layer]) continue;  // no op of its own, or too small to matter
        compared = true;
        if (stand_ins[c].count(layer)) continue;
        if (!has_time(c, layer)) {  // not seen on it: not beaten there
          beaten_everywhere = false;
          continue;
        }
        if (last_of(c, layer) >= factor * best) stand_ins[c][layer] = best_of[layer];
        else beaten_everywhere = false;
      }
      if (compared && beaten_everywhere) stepped[c] = false;
    }
  };
  // After a timed round from the second, on a layer that matters, against the pair of least
  // median so far (the best): a pair is not timed again when its fastest sample is at least
  // `factor` times the best's median (far behind), when it was slower than the best's slowest
  // sample in each of at least three rounds (`prune_dominated`), or when its median is within
  // `settle_tie` of the step's time of the best's (a tie: the choice cannot matter by more).
  auto prune_by_samples = [&](double factor) {
    double step_best = 0;
    std::map<std::string, std::size_t> best_of;
    for (const std::string& layer : layers) {
      std::size_t best = n;
      for (std::size_t c = 0; c < n; ++c)
        if (!samples[layer][c].empty() && (best == n || median(samples[layer][c]) < median(samples[layer][best]))) best = c;
      best_of[layer] = best;
      if (best < n) step_best += median(samples[layer][best]);
    }
    for (const std::string& layer : layers) {
      const std::size_t best = best_of[layer];
      if (!matters[layer] || best == n) continue;
      const std::vector<double>& ahead = samples[layer][best];
      const double best_median = median(ahead), best_slowest = *std::max_element(ahead.begin(), ahead.end());
      for (std::size_t c = 0; c < n; ++c) {
        const std::vector<double>& own = samples[layer][c];
        if (c == best || !stepped[c] || stand_ins[c].count(layer) || own.empty()) continue;
        const double fastest = *std::min_element(own.begin(), own.end());
        const bool far = factor > 0 && fastest >= factor * best_median;
        const bool behind = timing.prune_dominated && own.size() >= 3 && ahead.size() >= 3 && fastest > best_slowest;
        const bool tie = median(own) - best_median < timing.settle_tie * step_best;
        if (far || behind || tie) stand_ins[c][layer] = best;
      }
    }
    for (std::size_t c = 0; c < n; ++c) {
      bool any_left = false, any = false;
      for (const std::string& layer : layers)
        if (matters[layer]) any = true, any_left = any_left || !stand_ins[c].count(layer);
      if (any && !any_left) stepped[c] = false;
    }
  };
  // Settled: on every layer that matters (and one does), one pair left in the race.
  auto settled = [&] {
    bool any = false;
    for (const std::string& layer : layers) {
      if (!matters[layer]) continue;
      any = true;
      int left = 0;
      for (std::size_t c = 0; c < n; ++c) left += stepped[c] && !stand_ins[c].count(layer) && !samples[layer][c].empty();
      if (left > 1) return false;
    }
    return any;
  };
  // The screen: a first step of each candidate on the slice warms it (its times an upper
  // bound: first calls), and a pair `prune_first` behind there already runs on a stand-in in
  // the second, whose times count.
  const bool screened = screen && timing.prune_screen > 0;
  if (screened) {
    for (std::size_t c = 0; c < n; ++c) last_time[c] = screen(c, {});
    merge_twins();  // the ops of each layer are known after a first step
    if (timing.prune_first > 0) prune(timing.prune_first);
    for (std::size_t c = 0; c < n; ++c) {
      if (!stepped[c]) continue;
      for (auto& [layer, seconds] : screen(c, stand_ins[c]))
        if (!stand_ins[c].count(layer)) last_time[c][layer] = seconds;
    }
    prune(timing.prune_screen);
  }
  // Round r visits the candidates from r with the r-th stride coprime with n, so that both a
  // candidate's place in the round and the candidate before it change from round to round.
  std::vector<std::size_t> strides;
  for (std::size_t s = 1; s < std::max<std::size_t>(n, 2); ++s)
    if (std::gcd(s, n) == 1) strides.push_back(s);
  // One step of candidate `base` with the layers in `others` on theirs (stand-ins, or in a
  // packed step the pairs of other candidates); the layers in `sampled` count as the sample of
  // the pair that ran them (in a timed round).
  auto run_step = [&](std::size_t base, const StandIns& others, const std::set<std::string>& sampled, bool timed) {
    const std::map<std::string, double> step = timer(base, others);
    for (const std::string& layer : sampled) {
      auto on = others.find(layer);
      const std::size_t c = on == others.end() ? base : on->second;
      auto it = step.find(layer);
      if (it != step.end()) last_time[c][layer] = it->second;
      if (timed) samples[layer][c].push_back(it == step.end() ? 0.0 : it->second);
    }
  };
  // A candidate's own step: its layers but for its stand-ins (a blocked candidate's engine runs
  // every layer on it; its stand-ins' times are not taken).
  auto own_step = [&](std::size_t index, bool timed) {
    std::set<std::string> sampled;
    for (const std::string& layer : layers)
      if (!stand_ins[index].count(layer)) sampled.insert(layer);
    run_step(index, stand_ins[index], sampled, timed);
  };
  // The layer's fastest pair so far (least median, else least last time): the stand-in of a
  // packed step whose layer has no pair left to time.
  auto leader = [&](const std::string& layer) {
    std::size_t best = n;
    auto time_of = [&](std::size_t c) { return samples[layer][c].empty() ? last_of(c, layer) : median(samples[layer][c]); };
    for (std::size_t c = 0; c < n; ++c)
      if ((!samples[layer][c].empty() || has_time(c, layer)) && (best == n || time_of(c) < time_of(best))) best = c;
    return best;
  };
  // Packed steps (`pack`): the plain candidates' pairs left in the race, layer by layer in the
  // round's order, k-th pair of every layer in the k-th step; a round takes as many steps as the
  // layer that matters with the most pairs left (every layer before the first pruning).
  auto packed_round = [&](const std::vector<std::size_t>& order, bool timed) {
    std::map<std::string, std::vector<std::size_t>> left;
    std::size_t steps = 0;
    for (const std::string& layer : layers) {
      for (std::size_t c : order)
        if (stepped[c] && !candidates[c].blocked && !stand_ins[c].count(layer)) left[layer].push_back(c);
      if (matters.empty() || matters[layer]) steps = std::max(steps, left[layer].size());
    }
    for (std::size_t k = 0; k < steps; ++k) {
      std::map<std::string, std::size_t> on;
      std::set<std::string> sampled;
      for (const std::string& layer : layers) {
        const std::vector<std::size_t>& pairs = left[layer];
        if (k < pairs.size()) on[layer] = pairs[k], sampled.insert(layer);
        else if (const std::size_t best = leader(layer); best < n) on[layer] = best;
        else on[layer] = order.front();
      }
      std::map<std::size_t, int> count;  // the step's base: the plain candidate most layers run on
      for (const auto& [layer, c] : on)
        if (!candidates[c].blocked) ++count[c];
      if (count.empty()) continue;
      std::size_t base = count.begin()->first;
      for (const auto& [c, times] : count)
        if (times > count[base]) base = c;
      StandIns others;
      for (const auto& [layer, c] : on)
        if (c != base) others[layer] = c;
      run_step(base, others, sampled, timed);
    }
  };
  int timed_rounds = 0;
  for (int round = 0; round < timing.warmup + timing.rounds; ++round) {
    const std::size_t r = static_cast<std::size_t>(round), stride = strides[r % strides.size()];
    const bool counted = round >= timing.warmup;
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < n; ++k) order.push_back((r + k * stride) % n);
    for (std::size_t index : order)  // blocked candidates run whole: a step each
      if (stepped[index] && (!timing.pack || candidates[index].blocked)) own_step(index, counted);
    if (timing.pack) packed_round(order, counted);
    merge_twins();
    if (round == 0 && timing.warmup > 0 && !screened && timing.prune_first > 0) prune(timing.prune_first);
    if (round == timing.warmup && timing.prune > 0) prune(timing.prune);
    const int timed = round + 1 - timing.warmup;
    timed_rounds = std::max(timed, 0);
    const bool racing = timing.prune_timed > 0 || timing.prune_dominated || timing.settle_tie > 0;
    if (timed >= 2 && timed < timing.rounds && racing) {
      prune_by_samples(timing.prune_timed);
      if (timing.stop_when_settled && settled()) break;
    }
  }
  for (std::size_t c = 0; c < n; ++c)  // pairs pruned before a timed round: their last time
    for (const std::string& layer : layers)
      if (!twin.empty() && twin[layer][c] != c) samples[layer][c] = samples[layer][twin[layer][c]];
      else if (samples[layer][c].empty()) samples[layer][c] = {last_of(c, layer)};
  LayerPlan plan;
  plan.candidates = candidates;
  plan.rounds = timed_rounds;
  for (const std::string& layer : layers) {
    LayerPlan::Row row{layer, candidates.front(), {}};
    std::size_t best = 0;
    for (std::size_t i = 0; i < n; ++i) {
      row.seconds.push_back(median(samples[layer][i]));
      if (row.seconds[i] < row.seconds[best]) best = i;
    }
    row.choice = candidates[best];
    plan.rows.push_back(std::move(row));
  }
  return plan;
}

}  // namespace ablate::bench::run
