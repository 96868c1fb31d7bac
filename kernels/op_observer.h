// OpObserver: told about every Backend op call once its arguments passed the contract
// (kernels/contract/), before and after the backend's implementation runs. The profiler
// (kernels/profiling_observer.h) is one; set with Backend::set_observer. Without an observer an
// op costs one pointer test more, and its FLOPs are not even counted.
//
// Calls may come from several threads at once (a static graph's inter-op pool): what an
// observer needs to pair begin with end travels in the OpCall, which lives on the caller's stack.
#pragma once

#include "kernels/op_list.h"

namespace ablate::kernels {

struct OpCall {
  Op op;
  double flops = 0;    // the op's floating-point operations (kernels/contract/op_flops.h)
  double started = 0;  // the observer's own mark, set in begin (the profiler's start time)
};

class OpObserver {
 public:
  virtual ~OpObserver() = default;
  virtual void begin(OpCall& call) = 0;
  // completed: the implementation returned; false when it threw (the exception then goes on).
  virtual void end(const OpCall& call, bool completed) = 0;
};

}  // namespace ablate::kernels
