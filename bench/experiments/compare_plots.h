// The pictures of `ablate compare --report DIR` (what the quick start runs), drawn as `ablate
// report` draws its own (plot_script.h, bench/report/plots.py --compare): DIR/compare.json holds
// what they show, and plots.py writes
//   compare_accuracy_vs_time.png  test accuracy against training time, every framework (each
//                                 test of its run), and the real frameworks' final points
//   compare_bars.png              training time and accuracy per framework, ablate and real
//   compare_loss_curves.png       with --with-real: each curve check's two loss curves and
//                                 their relative difference per step
//   attribution_<framework>.png   with --attribute: the waterfall
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "bench/experiments/attribution_waterfall.h"
#include "bench/experiments/compare_table.h"
#include "bench/experiments/real_comparison.h"

namespace ablate::bench::experiments {

struct CompareData {
  const CompareSummary* summary = nullptr;
  const std::vector<CompareRow>* rows = nullptr;
  const std::vector<RealComparison>* real = nullptr;  // may be empty
  const std::vector<Waterfall>* waterfalls = nullptr;  // may be empty
};

// compare.json's text.
std::string compare_json(const CompareData& data);
// Writes DIR/compare.json and draws the PNGs into DIR; returns "" or why the plots were skipped.
std::string draw_compare_plots(const std::filesystem::path& dir, const CompareData& data);

}  // namespace ablate::bench::experiments
