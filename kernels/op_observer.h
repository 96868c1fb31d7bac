// OpObserver: told about every Backend op call once its arguments passed the contract
// (kernels/contract/), before and after the backend's implementation runs. The profiler
// (kernels/profiling_observer.h) is one, `ablate explain`'s recorder another; set with
// Backend::set_observer. Without an observer an op costs one pointer test more, and its FLOPs
// are not even counted.
//
// Calls may come from several threads at once (a static graph's inter-op pool): what an
// observer needs to pair begin with end travels in the OpCall, which lives on the caller's stack.
// Who asked for the op (a layer, a tape entry, a graph node) is told by the strategies through
// kernels/op_label.h, not here.
#pragma once

#include <array>

#include "kernels/op_list.h"

namespace ablate::kernels {

class Tensor;

// The tensors an op writes: its outputs in the order of its arguments (dx, dw, dbias; the
// updated weight and its slots; a concat's split, the first four), and the backend-private
// workspace it fills (pooling, LRN); and the tensors it only reads (the first four; an
// optional bias that is empty stays an empty tensor, so an observer sees whether a
// convolution added one). Null where the op has fewer. They are valid from begin to end.
struct OpWrites {
  std::array<const Tensor*, 4> outputs{};
  const Tensor* workspace = nullptr;
  std::array<const Tensor*, 4> inputs{};
};

struct OpCall {
  Op op;
  double flops = 0;    // the op's floating-point operations (kernels/contract/op_flops.h)
  double started = 0;  // the observer's own mark, set in begin (the profiler's start time)
  OpWrites writes;
  // An op that returns a number (a loss, a sum) has it here by end; `returns` tells which do.
  double result = 0;
  bool returns = false;
};

class OpObserver {
 public:
  virtual ~OpObserver() = default;
  virtual void begin(OpCall& call) = 0;
  // completed: the implementation returned; false when it threw (the exception then goes on).
  virtual void end(const OpCall& call, bool completed) = 0;
};

}  // namespace ablate::kernels
