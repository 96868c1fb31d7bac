// compare.json and the comparison's plots (compare_plots.h).
#include "bench/experiments/compare_plots.h"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "bench/experiments/plot_script.h"
#include "bench/experiments/window_rates.h"
#include "bench/run/text_file.h"

namespace ablate::bench::experiments {

namespace {

using Json = nlohmann::ordered_json;

// --real-rounds: the interleaved ratio, or null when none was asked for.
Json interleaved_json(const InterleavedRatio& r) {
  if (r.rounds == 0) return Json();
  return {{"rounds", r.rounds},
          {"failed", r.failed},
          {"ratio", r.measured() ? Json(r.ratio) : Json()},
          {"interval", r.interval.ok ? Json::array({r.interval.low, r.interval.high}) : Json()},
          {"lowest", r.lowest},
          {"highest", r.highest},
          {"ablate_images_per_s", r.ablate_median},
          {"real_images_per_s", r.real_median}};
}

Json losses(const std::map<std::int64_t, double>& curve) {
  Json a = Json::array();
  for (const auto& [step, loss] : curve) a.push_back({step, loss});
  return a;
}

Json waterfall_json(const Waterfall& w) {
  const WaterfallAccount a = account(w);
  Json steps = Json::array();
  for (std::size_t i = 0; i < w.steps_taken.size(); ++i) {
    const WaterfallStep& s = w.steps_taken[i];
    if (s.switched)
      steps.push_back({{"label", s.factor + ": " + s.from + " -> " + s.to}, {"seconds", s.seconds}, {"share", a.share[i]}});
  }
  return {{"framework", w.framework}, {"real_title", w.real_title}, {"real_s", w.real_s}, {"ablate_s", w.ablate_s},
          {"steps", steps}, {"left_s", a.left_s}, {"gap_s", a.gap_s}, {"problem", w.problem}};
}

}  // namespace

std::string compare_json(const CompareData& d) {
  Json j;
  j["dataset"] = d.summary->dataset;
  j["budget"] = d.summary->budget;
  Json rows = Json::array();
  for (const CompareRow& r : *d.rows) {
    Json points = Json::array(), loss_points = Json::array();
    for (const auto& [t, a] : r.test_points) points.push_back({t, a});
    for (const auto& [t, l] : r.loss_points) loss_points.push_back({t, l});
    rows.push_back({{"framework", r.framework}, {"state", r.state}, {"train_s", r.uniform_train_s},
                    {"accuracy", r.accuracy}, {"test_points", points}, {"loss_points", loss_points}});
  }
  j["rows"] = rows;
  Json real = Json::array(), curves = Json::array();
  if (d.real)
    for (const RealComparison& c : *d.real)
      for (const RealPathMeasure& m : c.paths) {
        if (m.full.completed() && m.full.images_per_s > 0) {
          const RatioSpread s = ratio_spread(c.ablate.images_per_s, m.full.images_per_s, c.ablate.window_images_per_s,
                                             m.full.window_images_per_s);
          real.push_back({{"framework", c.framework},
                          {"title", m.title},
                          {"train_s", static_cast<double>(c.ablate.iterations * c.batch) / m.full.images_per_s},
                          {"accuracy", m.full.accuracy},
                          {"images_per_s", m.full.images_per_s},
                          {"window_images_per_s", m.full.window_images_per_s},
                          {"ablate_window_images_per_s", c.ablate.window_images_per_s},
                          {"ratio", s.ratio},
                          {"ratio_interval", s.interval.ok ? Json::array({s.interval.low, s.interval.high}) : Json()},
                          {"from_ablate_initial_weights", c.same_start},
                          {"interleaved", interleaved_json(m.interleaved)}});
        }
        if (!m.losses.empty() && !c.ablate_losses.empty())
          curves.push_back({{"framework", c.framework}, {"title", m.title}, {"ablate", losses(c.ablate_losses)},
                            {"peer", losses(m.losses)}});
      }
  j["real"] = real;
  j["curves"] = curves;
  Json waterfalls = Json::array();
  if (d.waterfalls)
    for (const Waterfall& w : *d.waterfalls) waterfalls.push_back(waterfall_json(w));
  j["waterfalls"] = waterfalls;
  return j.dump(1) + "\n";
}

std::string draw_compare_plots(const std::filesystem::path& dir, const CompareData& data) {
  const std::filesystem::path file = dir / "compare.json";
  run::write_text_file(file.string(), compare_json(data), "report");  // whole or not at all
  return draw_plots("/usr/bin/python3", default_plot_script(), {"--compare", file.string()}, dir);
}

}  // namespace ablate::bench::experiments
