// The strategies' steps side by side (`ablate explain`'s step.txt and step.json): one row per
// op, rows of different strategies matched when they share phase, layer, op and the shapes
// read and written (the k-th such op of each strategy matches the k-th of the others), in the order of the first strategy
// with each other strategy's unmatched ops merged in where they ran. An op only some
// strategies run stands out: the static graph's fused bias+ReLU, the tape's zeroed
// gradients, the input's gradient skipped in different ways, the update inside the graph.
// A matched row compares FLOPs and output checksums (step_recorder.h); in f64 the
// strategies compute the same numbers, so a checksum apart by more than 1e-9 (relative) is
// flagged. Then per strategy: op time, engine time (step minus ops), peak bytes and their split.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "bench/experiments/step_explanation.h"

namespace ablate::bench::experiments {

struct StepRow {
  std::string phase, layer, op;
  std::string shapes;                          // "READS -> WRITES": the shapes it read and wrote
  int occurrence = 0;                          // the k-th op of this phase, layer, op and shapes (0-based)
  std::vector<std::optional<std::size_t>> at;  // per strategy: its op's index in StrategyStep::ops
  bool matched() const;                        // every strategy runs it
  // Largest relative checksum difference between the strategies that ran it with a checksum
  // (|a - b| / max(1, |a|, |b|)); 0 when fewer than two did.
  double checksum_gap(const Explanation& e) const;
};

std::vector<StepRow> match_rows(const Explanation& explanation);

std::string step_text(const Explanation& explanation, const std::vector<StepRow>& rows);
// {"model", "framework", "backend", "precision", "batch", "strategies": [{"strategy", "loss",
// "step_us", "op_us", "engine_us", "peak_tensor_bytes", "memory": {...}, "ops": [{...}]}],
// "rows": [{"phase", "layer", "op", "occurrence", "ops": [index or null per strategy],
// "checksum_gap"}]}
std::string step_json(const Explanation& explanation, const std::vector<StepRow>& rows);

}  // namespace ablate::bench::experiments
