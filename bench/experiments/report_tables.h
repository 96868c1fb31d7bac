// The Markdown of `ablate report`: one row per run (framework, strategy, backend, threads,
// batch, training and testing time, accuracy, time-to-accuracy, peak RSS, mean CPU), sweep
// points grouped with the mean ± sample standard deviation of their repeats, and the Pearson
// correlation of CPU utilisation and peak memory with batch size, as the study reported.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/run/results_reader.h"

namespace ablate::bench::experiments {

// Pearson's r of (x, y); empty with fewer than 3 pairs or no variance in either.
std::optional<double> pearson(const std::vector<double>& x, const std::vector<double>& y);

// The whole report.md for `results` (read from `source`).
std::string report_markdown(const run::ResultsFile& results, const std::string& source);

}  // namespace ablate::bench::experiments
