// Tuning winners shared between backends while a SharedTuning scope lives. A backend that times
// candidates for an op (oneDNN's convolution layouts, kernels/onednn/conv_autotune.h) records
// the winner under a key naming the op, its shapes and settings; another backend meeting the
// same key while the scope lives builds that winner without timing again. PyTorch's
// cudnn.benchmark keeps one such map for the whole process; ablate keeps it only where asked:
// the per-layer plan's measurement (bench/run/plan_measure.cpp), whose whole plans, each on
// backends of its own, rebuild the convolutions its candidates already timed (0.5 s a plain
// plan on cifar10_quick). Outside a scope every backend times for itself, as before.
#pragma once

#include <optional>
#include <string>

namespace ablate::kernels {

class SharedTuning {
 public:
  SharedTuning();   // starts sharing; nested scopes share one map
  ~SharedTuning();  // the outermost scope's end forgets the winners
  SharedTuning(const SharedTuning&) = delete;
  SharedTuning& operator=(const SharedTuning&) = delete;

  // The winner recorded under `key`; nullopt when none is, or no scope lives.
  static std::optional<std::string> winner(const std::string& key);
  // Records `winner` under `key` while a scope lives; otherwise does nothing.
  static void record(const std::string& key, const std::string& winner);
  // The winners recorded, and how many times one was handed out, in the live scope (0 without).
  static int recorded();
  static int handed_out();
};

}  // namespace ablate::kernels
