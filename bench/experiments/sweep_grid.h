// The grid of `ablate sweep` and `ablate paper`: run flags held fixed (the base), factors
// varied over lists of values (--vary batch=16,64,256), their cartesian product, and repeats.
// Each run is identified by (base key, point, repeat); the record carries them under "sweep"
// so that a rerun of the same sweep finds what is done and skips it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "bench/run/flags.h"

namespace ablate::bench::experiments {

struct SweepFactor {
  std::string key;                  // a run flag without dashes: "batch"
  std::vector<std::string> values;  // as given on the command line
};

struct SweepSpec {
  std::string label = "sweep";                // "sweep", or "paper batch_sweep caffe"
  std::map<std::string, std::string> base;    // run flags held fixed (no out, no quiet)
  std::vector<SweepFactor> factors;           // in the order given; the first varies slowest
  int repeats = 1;
  // > 0: every run trains at most this many iterations (small variants for quick checks); the
  // record's sweep.note says when it cut a run. Part of the base key.
  std::int64_t max_iterations = 0;
};

struct SweepPoint {
  std::map<std::string, std::string> values;  // one value per factor
  int repeat = 0;
};

// "KEY=V1,V2,...": the key must be a run flag (not out or quiet) and the list non-empty.
SweepFactor parse_vary(const std::string& text);
// Checks the factors against each other and the base: a key varied twice or also given as a
// base flag is an error naming it.
void check_spec(const SweepSpec& spec);
// The cartesian product of the factors' values, each point `repeats` times (repeats innermost).
std::vector<SweepPoint> expand(const SweepSpec& spec);
// What identifies the base of a sweep: the label and the base flags, sorted ("k=v k=v").
std::string base_key(const SweepSpec& spec);
// "batch=16 threads=2"; "(defaults)" for a point of no factor.
std::string point_text(const std::map<std::string, std::string>& values);
// The arguments `ablate run` would get for this point (flags without a value: on/off).
run::Flags point_args(const SweepSpec& spec, const SweepPoint& point);

}  // namespace ablate::bench::experiments
