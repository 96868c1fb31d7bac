// ProfilingObserver: one trace span per op call (see profiling_observer.h).
#include "kernels/profiling_observer.h"

namespace ablate::kernels {

void ProfilingObserver::begin(OpCall& call) { call.started = recorder_.now_us(); }

void ProfilingObserver::end(const OpCall& call, bool completed) {
  if (completed && backend_.device() != Device::cpu) backend_.synchronize();
  recorder_.add(op_name(call.op), "op", call.started, recorder_.now_us() - call.started, call.flops);
}

}  // namespace ablate::kernels
