// The Shapley account of a speed difference (attribution_shapley.h).
#include "bench/experiments/attribution_shapley.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include <nlohmann/json.hpp>

#include "bench/experiments/attribution_measure.h"
#include "bench/experiments/design_analysis.h"
#include "bench/experiments/peer_runner.h"
#include "bench/experiments/plot_script.h"
#include "bench/experiments/sample_median.h"
#include "bench/experiments/two_level_effects.h"
#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

namespace {

// The plan's flags with the switches of a subset applied in the order of the factors' names, each
// refused one left out (and named).
struct Applied {
  run::RunConfig config;
  std::string identity;               // the switches applied: "backend=onednn precision=f32"
  std::vector<std::string> left_out;  // "conv lowering (...)"
};

// Every failed round of every measurement into a.failed_samples (shown, never dropped), and the
// first measurement with no successful round as a.problem. Measurements before first_ablate are
// the real framework's paths, the rest ablate's configurations.
void note_failures(const std::vector<Measure>& measures, const std::vector<std::vector<double>>& samples,
                   std::size_t first_ablate, ShapleyAccount& a) {
  for (std::size_t i = 0; i < measures.size(); ++i) {
    bool any = false;
    for (std::size_t r = 0; r < samples[i].size(); ++r) {
      if (std::isfinite(samples[i][r])) any = true;
      else a.failed_samples.push_back((i < first_ablate ? "" : "ablate's ") + measures[i].label + " round " +
                                      std::to_string(r + 1) + ": " + first_line(*measures[i].error));
    }
    if (!any && a.problem.empty())
      a.problem = (i < first_ablate ? "the " : "ablate's ") + measures[i].label + " could not be measured: " + *measures[i].error;
  }
}

Applied apply_switches(const run::Flags& args, const std::vector<const AttributionFactor*>& factors,
                       const std::vector<std::string>& values, const std::vector<bool>& in_subset) {
  std::vector<std::size_t> by_name(factors.size());
  for (std::size_t i = 0; i < by_name.size(); ++i) by_name[i] = i;
  std::sort(by_name.begin(), by_name.end(), [&](std::size_t a, std::size_t b) { return factors[a]->name < factors[b]->name; });
  Applied out;
  run::Flags flags = args;
  for (std::size_t i : by_name) {
    if (!in_subset[i]) continue;
    run::Flags next = flags;
    next.set(factors[i]->flag, values[i]);
    try {
      run::resolve_run_config(next);
      flags = next;
      out.identity += (out.identity.empty() ? "" : " ") + factors[i]->flag + "=" + values[i];
    } catch (const std::exception& e) {
      out.left_out.push_back(factors[i]->name + " (" + first_line(e.what()) + ")");
    }
  }
  out.config = run::resolve_run_config(flags);
  return out;
}

std::string interval_text(const Interval& i, const char* format) {
  return i.ok ? "[" + run::fmt(format, i.low) + ", " + run::fmt(format, i.high) + "]" : "";
}

struct Line {
  std::string label, seconds, interval, share, share_interval, note;
};

std::vector<Line> lines(const ShapleyAccount& a) {
  const bool shares = !a.gap_within_noise;
  auto share = [&](double s) { return shares ? run::fmt("%.0f%%", 100 * s) : std::string("-"); };
  auto share_interval = [&](const Interval& i) {
    return shares && i.ok ? "[" + run::fmt("%.0f%%", 100 * i.low) + ", " + run::fmt("%.0f%%", 100 * i.high) + "]" : std::string();
  };
  std::vector<Line> out;
  out.push_back({"real " + a.real_title, run::fmt("%.2f", a.real_s), "", "", "", ""});
  for (const auto& [title, s] : a.other_real) out.push_back({"  (also: real " + title + ")", run::fmt("%.2f", s), "", "", "", ""});
  out.push_back({"ablate with " + a.framework + "'s own factors", run::fmt("%.2f", a.own_s), "", "", "", ""});
  out.push_back({"ablate at its fastest (every switch below)", run::fmt("%.2f", a.fastest_s), "", "", "", ""});
  out.push_back({"left unexplained (own factors - real)", run::fmt("%+.2f", a.left_s), interval_text(a.left_interval, "%+.2f"),
                 share(a.left_share), share_interval(a.left_share_interval), ""});
  for (const ShapleyShare& f : a.factors)
    out.push_back({f.factor + " " + f.from + " -> " + f.to, run::fmt("%+.2f", f.seconds), interval_text(f.interval, "%+.2f"),
                   share(f.share), share_interval(f.share_interval), f.within_noise ? "within noise" : ""});
  out.push_back({"gap: ablate's fastest - real", run::fmt("%+.2f", a.gap_s), interval_text(a.gap_interval, "%+.2f"),
                 shares ? "100%" : "-", "", a.gap_within_noise ? "within noise" : ""});
  return out;
}

std::string heading(const ShapleyAccount& a) {
  return "The account of the difference (Shapley): " + a.framework + " on " + a.dataset + ", " + std::to_string(a.steps) +
         " steps of batch " + std::to_string(a.batch) + "; training seconds, means of " + std::to_string(a.rounds) +
         " interleaved rounds after " + std::to_string(a.warmup) + " untimed warm-up steps on each side; run-to-run spread " +
         run::fmt("%.3g", a.spread) + " s";
}

std::vector<std::string> notes(const ShapleyAccount& a) {
  std::vector<std::string> out;
  if (a.rounds < 2) out.push_back("one round: no intervals and no run-to-run spread (--rounds 3 or more for them)");
  if (a.gap_within_noise && a.rounds >= 2)
    out.push_back("the gap is within noise (its interval covers 0 or it is below the run-to-run spread): no shares");
  if (!a.interaction.empty())
    out.push_back("largest interaction: " + a.interaction + " " + run::fmt("%+.2f s", a.interaction_s) +
                  (a.interaction_interval.ok ? " " + interval_text(a.interaction_interval, "%+.2f") : "") +
                  (a.interaction_within_noise ? " (within noise)" : ""));
  for (const auto& [f, why] : a.not_switched) out.push_back("not switched: " + f + ": " + why);
  for (const std::string& s : a.adjusted) out.push_back("adjusted: " + s);
  for (const std::string& s : a.failed_samples) out.push_back("FAILED sample (left out of its mean, counted here): " + s);
  out.push_back("Each factor's Shapley value is its switch from " + a.framework +
                "'s own value to ablate's fastest, averaged over every order of switching (" +
                (a.orders ? std::to_string(a.orders) + " sampled orders" : "exact over the " + std::to_string(a.configurations) +
                                                                               " configurations measured") +
                "); left unexplained plus the values is the gap. 95% intervals: bootstrap over the rounds.");
  return out;
}

// Why there is no account, and every failed sample.
std::vector<std::string> problem_lines(const ShapleyAccount& a) {
  std::vector<std::string> out = {"no account: " + a.problem};
  for (const std::string& s : a.failed_samples) out.push_back("FAILED sample: " + s);
  return out;
}

}  // namespace

void settle_shapley_account(ShapleyAccount& a, const DesignPlan& plan, const DesignSpec& spec,
                            const std::vector<std::size_t>& cell_measure, const Cells& seconds, const BootstrapOptions& options) {
  const int k = static_cast<int>(spec.factors.size());
  const auto by_mask = cells_by_mask(plan);
  const std::size_t own_cell = by_mask.at(0), all_cell = by_mask.at((std::uint64_t{1} << k) - 1);
  std::vector<std::uint64_t> pairs;
  if (plan.kind == DesignKind::two_level)
    for (int x = 0; x < k; ++x)
      for (int y = x + 1; y < k; ++y) pairs.push_back((std::uint64_t{1} << x) | (std::uint64_t{1} << y));
  const std::size_t ku = static_cast<std::size_t>(k);
  // [real, own, fastest, left, gap, phi..., left share, shares..., interactions...]
  const Statistic statistic = [&](const std::vector<double>& means) {
    std::vector<double> v(plan.cells.size());
    for (std::size_t c = 0; c < v.size(); ++c) v[c] = means[cell_measure[c]];
    const std::vector<double> phi = plan_shapley(plan, v);
    const double real = means[0], own = v[own_cell], fastest = v[all_cell], gap = fastest - real;
    std::vector<double> out = {real, own, fastest, own - real, gap};
    out.insert(out.end(), phi.begin(), phi.end());
    out.push_back((own - real) / gap);
    for (double p : phi) out.push_back(p / gap);
    for (std::uint64_t pair : pairs) out.push_back(contrast(plan.two_level, v, pair));
    return out;
  };
  const std::vector<double> point = statistic(cell_means(seconds));
  // The bootstrap draws over the measurements sorted by the configuration they measure (the real
  // framework first), so that the order of the factors changes no interval either.
  std::vector<std::string> key(seconds.size());
  for (std::size_t c = 0; c < plan.cells.size(); ++c) {
    std::string& k = key[cell_measure[c]];
    const std::string text = "~" + cell_text(plan.cells[c]);
    if (k.empty() || text < k) k = text;
  }
  std::vector<std::size_t> sorted(seconds.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) sorted[i] = i;
  std::stable_sort(sorted.begin(), sorted.end(), [&](std::size_t x, std::size_t y) { return key[x] < key[y]; });
  const std::vector<Interval> iv = bootstrap_intervals_ordered(seconds, statistic, sorted, options);
  a.spread = run_to_run_spread(seconds);
  a.real_s = point[0];
  a.own_s = point[1];
  a.fastest_s = point[2];
  a.left_s = point[3];
  a.left_interval = iv[3];
  a.gap_s = point[4];
  a.gap_interval = iv[4];
  a.gap_within_noise = a.gap_s == 0 || (iv[4].ok && within_noise(a.gap_s, iv[4], a.spread));
  a.left_share = point[5 + ku];
  a.left_share_interval = iv[5 + ku];
  a.factors.clear();
  for (std::size_t i = 0; i < ku; ++i) {
    const auto& f = spec.factors[i];
    ShapleyShare s{f.key, f.values[0], f.values[1], point[5 + i], iv[5 + i], point[6 + ku + i], iv[6 + ku + i]};
    s.within_noise = iv[5 + i].ok ? within_noise(s.seconds, s.interval, a.spread) : false;
    a.factors.push_back(s);
  }
  a.interaction.clear();
  for (std::size_t p = 0; p < pairs.size(); ++p) {
    const double value = point[6 + 2 * ku + p];
    if (!a.interaction.empty() && std::abs(value) <= std::abs(a.interaction_s)) continue;
    const int x = std::countr_zero(pairs[p]), y = 63 - std::countl_zero(pairs[p]);
    a.interaction = spec.factors[static_cast<std::size_t>(x)].key + " x " + spec.factors[static_cast<std::size_t>(y)].key;
    a.interaction_s = value;
    a.interaction_interval = iv[6 + 2 * ku + p];
    a.interaction_within_noise = within_noise(value, a.interaction_interval, a.spread);
  }
  a.orders = plan.kind == DesignKind::shapley_orders ? static_cast<int>(plan.orders.size()) : 0;
}

ShapleyAccount attribute_shapley(const ComparePlan& plan, const CompareRow& row, const std::string& dataset,
                                 const AttributionOptions& options) {
  const run::RunConfig& base = plan.config;
  ShapleyAccount a;
  a.framework = base.framework;
  a.dataset = dataset;
  a.steps = row.iterations_done;
  a.batch = base.batch;
  a.rounds = options.rounds;
  a.warmup = options.warmup;
  AccountStart start = start_account(plan, row, options, a.problem);
  const RealPeer* peer = start.peer;
  if (!peer) return a;
  const FactorChoices& ch = start.choices;
  const Median& own = start.own;

  // The switched factors: each chosen value; a factor the framework's strategy does not use with
  // one choice (the caching allocator) when it applies with every switch made.
  std::vector<const AttributionFactor*> candidates;
  std::vector<std::string> values;
  for (std::size_t f = 0; f < ch.factors.size(); ++f) {
    std::string v = ch.value[f];
    const bool unused_at_first = ch.tried[f].empty() && !ch.not_used[f].empty();
    if (v.empty() && unused_at_first && ch.factors[f].choices.size() == 1) v = ch.factors[f].choices[0];
    if (v.empty()) {
      a.not_switched.push_back({ch.factors[f].name + " " + ch.factors[f].value(base), ch.note[f]});
      continue;
    }
    candidates.push_back(&ch.factors[f]);
    values.push_back(v);
  }
  const Applied all = apply_switches(plan.args, candidates, values, std::vector<bool>(candidates.size(), true));
  std::vector<const AttributionFactor*> factors;
  std::vector<std::string> chosen;
  DesignSpec spec;
  spec.shapley = true;
  spec.repeats = options.rounds;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string from = candidates[i]->value(base), to = candidates[i]->value(all.config);
    if (from == to) {
      a.not_switched.push_back({candidates[i]->name + " " + from, "already " + from + " with every other switch made"});
      continue;
    }
    factors.push_back(candidates[i]);
    chosen.push_back(values[i]);
    spec.factors.push_back({candidates[i]->name, {from, to}});
  }
  // Every subset's configuration, each distinct one measured once, beside the real framework.
  const std::unique_ptr<PeerDataDir> data = PeerDataDir::make(base, a.problem);
  if (!data) return a;
  const std::int64_t peer_steps = std::max<std::int64_t>(10, std::llround(options.seconds * own.value / static_cast<double>(base.batch)));
  std::vector<std::shared_ptr<std::string>> versions;
  const std::vector<PeerPath> paths = chosen_paths(*peer, options.real.paths);
  std::vector<Measure> measures =
      real_measures(*peer, paths, options.real.peers_dir, base, data->model_file(), data->path(), peer_steps, options.warmup, versions);
  const std::size_t first_ablate = measures.size();
  if (spec.factors.empty()) {
    // No account to give, but the real framework is still measured in the rounds beside ablate's
    // own factors, so that a failed real sample is shown whichever way the choice rounds went.
    const std::string no_switch =
        "no factor of ablate's switches from " + a.framework + "'s own value (every one is already ablate's fastest)";
    measures.push_back(ablate_measure(a.framework + "'s own", all.config, options.seconds, options.warmup));
    const std::vector<std::vector<double>> samples = interleaved_samples(measures, options.rounds, "shapley");
    note_failures(measures, samples, first_ablate, a);
    if (a.problem.empty()) a.problem = no_switch;
    return a;
  }
  const DesignPlan design = plan_design(spec);
  std::map<std::string, std::size_t> measure_of;
  std::vector<std::size_t> cell_measure;
  for (const DesignCell& cell : design.cells) {
    std::vector<bool> in(factors.size());
    std::string label;
    for (std::size_t i = 0; i < factors.size(); ++i) {
      in[i] = cell.level[i] == 1;
      if (in[i]) label += "+" + factors[i]->name;
    }
    const Applied applied = apply_switches(plan.args, factors, chosen, in);
    if (!applied.left_out.empty()) a.adjusted.push_back(cell_text(cell) + ": left out " + run::join(applied.left_out, ", "));
    auto [at, fresh] = measure_of.emplace(applied.identity, measures.size());
    if (fresh)
      measures.push_back(ablate_measure(label.empty() ? a.framework + "'s own" : label, applied.config, options.seconds, options.warmup));
    cell_measure.push_back(at->second);
  }
  a.configurations = static_cast<int>(measures.size() - first_ablate);
  std::printf("account of %s: %d configurations of %zu switched factors and the real framework (%lld real steps per sample "
              "after %d untimed)\n",
              a.framework.c_str(), a.configurations, factors.size(), static_cast<long long>(peer_steps), options.warmup);
  const std::vector<std::vector<double>> samples = interleaved_samples(measures, options.rounds, "shapley");

  auto real_title = [&](std::size_t i) {
    const PeerPath& path = paths[i];
    return peer->title + (versions[i]->empty() ? "" : " " + *versions[i]) + (path.name.empty() ? "" : " (" + path.name + ")");
  };
  a.real_title = real_title(0);
  // Seconds of the comparison's steps per successful round; measurement 0 is the real framework's
  // first path, then ablate's configurations (the other real paths are shown beside).
  const double images = static_cast<double>(a.steps * a.batch);
  Cells seconds;
  note_failures(measures, samples, first_ablate, a);
  for (std::size_t i = 0; i < measures.size(); ++i) {
    std::vector<double> s;
    for (double x : samples[i])
      if (std::isfinite(x)) s.push_back(images / x);
    if (i == 0 || i >= first_ablate) seconds.push_back(s);
    else if (!s.empty()) a.other_real.push_back({real_title(i), cell_means({s})[0]});
  }
  if (!a.problem.empty()) return a;
  for (std::size_t& m : cell_measure) m = m - first_ablate + 1;
  settle_shapley_account(a, design, spec, cell_measure, seconds, BootstrapOptions{});
  return a;
}

std::string shapley_account_text(const ShapleyAccount& a) {
  std::ostringstream out;
  out << "\n" << heading(a) << ":\n";
  if (!a.problem.empty()) {
    for (const std::string& l : problem_lines(a)) out << "  " << l << "\n";
    return out.str();
  }
  const std::vector<Line> ls = lines(a);
  std::size_t w[5] = {0, 8, 12, 6, 12};
  for (const Line& l : ls) {
    w[0] = std::max(w[0], l.label.size());
    w[1] = std::max(w[1], l.seconds.size());
    w[2] = std::max(w[2], l.interval.size());
    w[4] = std::max(w[4], l.share_interval.size());
  }
  auto pad = [](const std::string& s, std::size_t n, bool right) {
    const std::string p = s.size() < n ? std::string(n - s.size(), ' ') : "";
    return right ? p + s : s + p;
  };
  out << pad("", w[0], false) << "  " << pad("train s", w[1], true) << "  " << pad("95% interval", w[2], true) << "  "
      << pad("share", w[3], true) << "  " << pad("95% interval", w[4], true) << "\n";
  for (const Line& l : ls) {
    std::string row = pad(l.label, w[0], false) + "  " + pad(l.seconds, w[1], true) + "  " + pad(l.interval, w[2], true) + "  " +
                      pad(l.share, w[3], true) + "  " + pad(l.share_interval, w[4], true) + "  " + l.note;
    while (!row.empty() && row.back() == ' ') row.pop_back();
    out << row << "\n";
  }
  for (const std::string& n : notes(a)) out << n << "\n";
  return out.str();
}

std::string shapley_account_markdown(const ShapleyAccount& a) {
  std::ostringstream out;
  out << "## " << heading(a) << "\n\n";
  if (!a.problem.empty()) {
    for (const std::string& l : problem_lines(a)) out << "- " << l << "\n";
    return out.str() + "\n";
  }
  out << "| step | training s | 95% interval | share of the gap | 95% interval | note |\n|---|---:|---:|---:|---:|---|\n";
  for (const Line& l : lines(a))
    out << "| " << l.label << " | " << l.seconds << " | " << l.interval << " | " << l.share << " | " << l.share_interval << " | "
        << l.note << " |\n";
  out << "\n";
  for (const std::string& n : notes(a)) out << "- " << n << "\n";
  return out.str() + "\n";
}

nlohmann::ordered_json shapley_account_json(const ShapleyAccount& a) {
  using Json = nlohmann::ordered_json;
  auto interval = [](const Interval& i) { return i.ok ? Json::array({i.low, i.high}) : Json(nullptr); };
  Json factors = Json::array(), values = Json::array();
  for (const ShapleyShare& f : a.factors) {
    factors.push_back({{"key", f.factor}, {"levels", {f.from, f.to}}});
    values.push_back({{"factor", f.factor}, {"from", f.from}, {"to", f.to}, {"value", f.seconds}, {"interval", interval(f.interval)},
                      {"standard_error", -1}, {"within_noise", f.within_noise}, {"share", a.gap_within_noise ? Json(nullptr) : Json(f.share)}});
  }
  Json interactions = Json::array();
  if (!a.interaction.empty())
    interactions.push_back({{"name", a.interaction}, {"detail", "largest"}, {"value", a.interaction_s},
                            {"interval", interval(a.interaction_interval)}, {"within_noise", a.interaction_within_noise},
                            {"share", -1}, {"p", -1}});
  Json metric = {{"metric", "time"}, {"title", "training time"}, {"unit", "s"},
                 {"design", a.orders ? std::to_string(a.orders) + " sampled orders" : "exact"}, {"spread", a.spread},
                 {"missing", a.problem.empty() ? Json::array() : Json::array({a.problem})}, {"main", Json::array()},
                 {"interactions", interactions}};
  metric["shapley"] = {{"from", a.own_s},   {"to", a.fastest_s},    {"orders", a.orders},       {"values", values},
                       {"real", a.real_s},  {"real_title", a.real_title}, {"left", a.left_s},
                       {"left_interval", interval(a.left_interval)}, {"gap", a.gap_s}, {"gap_interval", interval(a.gap_interval)},
                       {"gap_within_noise", a.gap_within_noise}};
  Json j = {{"framework", a.framework}, {"factors", factors}, {"metrics", Json::array({metric})}};
  j["not_switched"] = Json::array();
  for (const auto& [f, why] : a.not_switched) j["not_switched"].push_back({{"factor", f}, {"why", why}});
  j["failed_samples"] = a.failed_samples;
  j["adjusted"] = a.adjusted;
  j["problem"] = a.problem;
  return j;
}

std::string draw_shapley_account(const ShapleyAccount& a, const std::string& dir) {
  const std::string name = "attribution_" + a.framework;
  const std::filesystem::path json = std::filesystem::path(dir) / (name + ".json");
  {
    std::ofstream out(json.string() + ".tmp");
    out << shapley_account_json(a).dump(1) << "\n";
    if (!out) throw std::runtime_error("report " + json.string() + ": cannot write");
  }
  std::filesystem::rename(json.string() + ".tmp", json);
  if (!a.problem.empty()) return "";
  return draw_plots("/usr/bin/python3", std::string(ABLATE_SOURCE_DIR) + "/bench/report/design_plots.py",
                    {json.string(), name}, dir);
}

}  // namespace ablate::bench::experiments
