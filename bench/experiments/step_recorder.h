// StepRecorder: the OpObserver of `ablate explain` (kernels/op_observer.h). It records every
// Backend op of a training step with the label the strategy set (kernels/op_label.h: phase,
// layer, the layer type, tape node or graph node that ran it), the shapes and bytes of what
// it wrote, the tensor bytes live after it, its time and FLOPs, and a checksum of its outputs
// (the sum of their values in f64), so that three strategies' steps can be laid side by side
// and proven to compute the same numbers (bench/experiments/step_table.h).
// Live bytes are the host allocator's (kernels::cpu_allocator); `peak_bytes` is its running
// peak, which rises inside an op for the op's own temporaries and between ops for the
// engine's allocations. Records are added under a lock (a static graph run with --executor
// parallel calls from its pool); explain runs the sequential executor unless told otherwise.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "kernels/op_observer.h"

namespace ablate::bench::experiments {

struct OpRecord {
  std::string phase, layer, entry;  // from the op label; empty when none was set
  std::int64_t index = -1;          // the tape position of the entry (explain_step counts it from
                                    // the step's first node), -1 elsewhere
  std::string op;                   // the Backend op: "conv2d_forward"
  std::string reads;                   // the shapes of the tensors it read, "none" for an absent bias
  std::vector<kernels::Shape> shapes;  // of the outputs it wrote (workspace excluded)
  std::int64_t bytes_written = 0;      // of those outputs
  std::int64_t workspace_bytes = 0;    // the backend workspace it filled (pooling, LRN)
  const void* workspace = nullptr;     // which one (a layer's workspace is refilled every step)
  std::int64_t live_bytes = 0;         // host tensor bytes live after the op
  std::int64_t peak_bytes = 0;         // the allocator's running peak after the op
  double flops = 0;
  double start_us = 0, duration_us = 0;  // since the recorder was made
  double checksum = 0;                   // sum of the outputs' values, or the returned number
  bool has_checksum = false;             // false: outputs not on the host, or none
  bool labelled() const { return phase.size() > 0 && (layer.size() > 0 || entry.size() > 0); }
};

class StepRecorder final : public kernels::OpObserver {
 public:
  StepRecorder();
  void begin(kernels::OpCall& call) override;
  void end(const kernels::OpCall& call, bool completed) override;

  double now_us() const;
  // Read only while no step runs.
  const std::vector<OpRecord>& records() const { return records_; }

 private:
  double origin_;
  std::mutex mutex_;
  std::vector<OpRecord> records_;
};

}  // namespace ablate::bench::experiments
