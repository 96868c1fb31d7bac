// RunConfig: one fully resolved configuration of a training run. `--framework F` loads the
// preset of F for the data set's family (models/presets/F-FAMILY.preset); each command-line
// flag then overrides one factor; the result record lists them all.
#pragma once

#include <cstdint>
#include <string>

#include "bench/arg_parser.h"
#include "graph/optim/optimizer_config.h"

namespace ablate::bench {

struct RunConfig {
  std::string framework = "caffe";
  std::string preset;            // name or file it came from
  std::string dataset = "fashion-mnist", data_dir;
  std::string model;             // zoo name or file
  std::string strategy, backend;
  int threads = 1;
  std::string precision = "f32";
  graph::OptimizerConfig optimizer;
  std::int64_t batch = 64;
  std::int64_t iterations = 0;   // resolved from epochs when the preset counts epochs
  double epochs = 0;             // 0: iterations given directly
  std::int64_t test_interval = 0;  // 0: test only at the end
  std::int64_t test_batch = 100;
  std::int64_t test_iterations = 0;  // 0: the whole test set
  std::string transform;
  bool shuffle = false;
  std::uint64_t seed = 1;
  std::string out;               // results file (.jsonl); empty: none
  bool quiet = false;
};

// The options `ablate run` accepts (also used by its --help).
std::vector<OptionSpec> run_options();
// Preset first, then flags. Throws on a bad value, naming the flag or preset line.
RunConfig resolve_run_config(const ParsedArgs& args);
// Fills `iterations` from `epochs` once the training set's size is known.
void resolve_length(RunConfig& config, std::int64_t train_count);

}  // namespace ablate::bench
