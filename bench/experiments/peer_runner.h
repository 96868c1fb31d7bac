// `ablate compare --with-peers`: after a framework's run, PyTorch (bench/peers/pytorch_train.py)
// trains the same model on the same data with the same recipe for the same number of steps,
// at each of --peer-threads (default 1,2), in PyTorch's best environment (peer_process.h).
// The data: the run's data set loaded again with its seed, the validation split held out as
// the run holds it out, written untransformed as IDX files (datasets/idx_writer.h) in a
// temporary directory. The recipe: model file, batch, steps done, optimizer and lr policy,
// preprocessing, test batches, shuffling, precision, seed. A recipe feature the script cannot
// reproduce comes back as "not comparable" with its reason, never as a number.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/run/flags.h"
#include "bench/experiments/compare_table.h"
#include "bench/run/run_config.h"

namespace ablate::bench::experiments {

// One run of a peer script (the PyTorch yardstick or a real framework's runner), as read from
// its last line `peer_result <framework>=<version> threads=... images_per_s=... ...`.
struct PeerMeasure {
  std::string state = "failed";  // completed | not comparable | failed
  std::string reason;            // why not comparable, or the failure
  int threads = 0;
  double images_per_s = 0, accuracy = 0;
  double cpu_util = -1;          // cores busy over the timed steps; -1: the script did not say
  std::int64_t peak_rss_bytes = 0, iterations = 0;
  std::string framework;         // the result line's first key: torch, tensorflow, theano
  std::string version, precision;
  std::string blas, onednn;      // the result line's blas= and onednn= ("" when it does not say)
  std::vector<double> window_images_per_s;  // window_images_per_s=: equal runs of the timed steps

  bool completed() const { return state == "completed"; }
};

// Reads the script's output: the last `peer_result ...` line, or `peer_not_comparable: REASON`
// (exit status 3); anything else is a failure quoting the output's tail, naming `who`.
PeerMeasure parse_peer_output(const std::string& output, int exit_code, const std::string& who = "the PyTorch script");
// The `peer_loss STEP LOSS` lines of a run with --print-loss or --no-random: {step: loss}.
std::map<std::int64_t, double> parse_peer_losses(const std::string& output);

// What ablate measured in the same comparison row.
struct AblateMeasure {
  std::string backend, precision;
  int threads = 0;
  double images_per_s = 0, accuracy = 0;
  std::int64_t peak_rss_bytes = 0, iterations = 0;
  std::vector<double> window_images_per_s;  // window_rates.h, from the row's progress points
};

// ablate's side of a comparison row: the configuration's backend, precision and threads, and
// what the row measured when it ran (images/s over the uniform training time). `measured` says
// whether it ran (completed or diverged, with steps and a training time).
AblateMeasure ablate_measure(const run::RunConfig& config, const CompareRow& row, bool& measured);

struct PeerComparison {
  std::string framework, model;
  AblateMeasure ablate;
  bool ablate_measured = false;
  std::vector<PeerMeasure> peers;  // one per thread count
  std::string note;                // why no peer ran (the ablate run failed, the data could not be written)
};

struct PeerOptions {
  std::string python = "/usr/bin/python3";  // --peer-python (peer_process.h peer_python)
  std::string script;
  std::vector<int> threads = {1, 2};
  bool as_installed = false;  // false: PyTorch's best environment (kPeerBestEnv)
};
// --peer-threads LIST, --peer-python PYTHON, --peer-script FILE, --peer-as-installed; throws
// naming a bad value.
PeerOptions peer_options(const run::Flags& args);

// The script's arguments for the recipe of `config`, trained for `iterations` steps at
// `threads` on the IDX files in `data_dir`.
std::vector<std::string> peer_arguments(const run::RunConfig& config, const std::string& model_file,
                                        const std::string& data_dir, std::int64_t iterations, int threads);

// Writes the data (in a child process, so the parent's memory stays small for the next
// framework's fork), runs the script at each thread count, removes the data.
PeerComparison compare_with_peer(const run::RunConfig& config, const CompareRow& row, const PeerOptions& options);

// Writes the data `config` trains and tests on as train-images.idx, train-labels.idx,
// test-images.idx, test-labels.idx in `dir` (the validation split held out, capped on a small
// data set as the run caps it: validation_cap.h).
void write_peer_data(const run::RunConfig& config, const std::string& dir);

// A fresh directory $TMPDIR/PREFIX-XXXXXX (mkdtemp: unique to this call); throws naming the template when it cannot be made.
std::string make_temp_dir(const std::string& prefix);

// A fresh directory, removed with what it holds when this goes (compare's initial weights).
class TempDir {
 public:
  explicit TempDir(const std::string& prefix) : path_(make_temp_dir(prefix)) {}
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A temporary directory holding the data of `config` (write_peer_data, in a child process so
// the parent's memory stays small for the next fork), removed with the object, and the model
// as a file the peer reads. Throws saying what could not be made or written.
class PeerDataDir {
 public:
  explicit PeerDataDir(const run::RunConfig& config);
  const std::string& path() const { return dir_.path(); }
  const std::string& model_file() const { return model_file_; }
  // The directory, or nullptr with `error` saying why.
  static std::unique_ptr<PeerDataDir> make(const run::RunConfig& config, std::string& error);

 private:
  TempDir dir_;  // first: the model file may be written into it
  std::string model_file_;
};

}  // namespace ablate::bench::experiments
