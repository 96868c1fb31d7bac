// The op observer that times a plan's candidates (plan_measure.cpp): each op's wall time to
// the plan row it belongs to, by the thread's op label (kernels/op_label.h).
#pragma once

#include <algorithm>
#include <chrono>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "kernels/backend.h"
#include "kernels/op_label.h"
#include "kernels/op_observer.h"
#include "kernels/planned_backend.h"

namespace ablate::bench::run {

// Adds each op's wall time to the layer its label names ("" for ops of no layer; a convolution's
// weight gradient to the layer's weights row), less the
// one-time work the backend did inside it (Backend::setup_seconds: oneDNN's primitive builds
// and layout timing on a first call, 27 ms of LeNet's conv1 against 0.5 ms a call after, which
// the first warm-up round's pruning would otherwise hold against the pair).
class LayerTimer final : public kernels::OpObserver {
 public:
  explicit LayerTimer(const kernels::Backend& backend) : backend_(backend) {}
  void begin(kernels::OpCall& call) override { call.started = clock(); }
  void end(const kernels::OpCall& call, bool) override {
    const double elapsed = clock() - call.started;
    std::string layer(kernels::current_op_label().layer);
    // A convolution's weight gradient is a row of its own (planned_backend.h), fused with its
    // max pooling's gradient too.
    const bool weights =
        call.op == kernels::Op::conv2d_backward_weights || call.op == kernels::Op::conv2d_max_pool_backward_weights;
    if (weights && !layer.empty())
      layer = kernels::PlannedBackend::weights_row(layer);
    const std::lock_guard<std::mutex> lock(mutex_);
    totals_[layer] += std::max(0.0, elapsed);
    ops_[layer].insert(call.op);
  }
  // The ops each layer has run so far.
  std::set<kernels::Op> ops(const std::string& layer) {
    const std::lock_guard<std::mutex> lock(mutex_);
    return ops_[layer];
  }
  std::map<std::string, double> take() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return std::exchange(totals_, {});
  }

 private:
  // Seconds of wall time that stand still while the backend does one-time work.
  double clock() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count() -
           backend_.setup_seconds();
  }
  const kernels::Backend& backend_;
  std::mutex mutex_;
  std::map<std::string, double> totals_;
  std::map<std::string, std::set<kernels::Op>> ops_;
};

}  // namespace ablate::bench::run
