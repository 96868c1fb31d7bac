// OpLabel: who asked for the Backend ops this thread is running now, so that an OpObserver
// (`ablate explain`'s recorder, kernels/op_observer.h) can tell a learner which layer, phase
// and strategy entry every op belongs to, as PyTorch's profiler scopes (record_function) and
// TensorFlow's op names do. The strategies set it while they work: the layer-wise net per
// layer and pass, the tape per module and per recorded node, the static session per graph
// node, the shared optimizer per parameter. Setting a label costs a few stores; nothing reads
// it without an observer.
#pragma once

#include <cstdint>
#include <string_view>

namespace ablate::kernels {

struct OpLabel {
  const char* phase = nullptr;  // "forward", "backward", "update", "zero_grad"; null: none
  std::string_view layer;       // the model layer ("conv1"), empty when none
  std::string_view entry;       // what the strategy ran: a layer type, a tape node ("conv2d"),
                                // a graph node ("grad/ip1/linear/linear_grad_weight"), a parameter
  std::int64_t index = -1;      // the tape entry's position on the tape, -1 elsewhere
};

// This thread's current label (all empty outside any scope).
const OpLabel& current_op_label();

// Sets this thread's label for its lifetime and restores the previous one after. The views
// must outlive the scope.
class OpLabelScope {
 public:
  explicit OpLabelScope(const OpLabel& label);
  ~OpLabelScope();
  OpLabelScope(const OpLabelScope&) = delete;
  OpLabelScope& operator=(const OpLabelScope&) = delete;

 private:
  OpLabel saved_;
};

// The layer of a parameter or state name: "conv1.weight" -> "conv1" (the whole name without a dot).
std::string_view layer_of_parameter(std::string_view name);

}  // namespace ablate::kernels
