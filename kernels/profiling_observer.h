// ProfilingObserver: records one span per Backend op call in a TraceRecorder (`--profile
// FILE`), named after the op and carrying its FLOPs (kernels/contract/op_flops.h), so that
// every strategy is profiled the same way without a line of profiling code of its own. Set it
// on the backend the engine runs on (Backend::set_observer); without it nothing is counted.
// On a device backend each span waits for the device (synchronize) before it ends, so spans
// hold the op's own time. An op that throws still gets its span (without the wait).
#pragma once

#include "kernels/backend.h"
#include "kernels/op_observer.h"
#include "kernels/trace_recorder.h"

namespace ablate::kernels {

class ProfilingObserver final : public OpObserver {
 public:
  // `backend` is the one observed (for synchronize); both must outlive the observer's use.
  ProfilingObserver(TraceRecorder& recorder, Backend& backend) : recorder_(recorder), backend_(backend) {}

  void begin(OpCall& call) override;
  void end(const OpCall& call, bool completed) override;

 private:
  TraceRecorder& recorder_;
  Backend& backend_;
};

}  // namespace ablate::kernels
