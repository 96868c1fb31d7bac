// WeightAverage: TensorFlow's tf.train.ExponentialMovingAverage of the trainable weights, as
// the CIFAR-10 tutorial uses it (MOVING_AVERAGE_DECAY 0.9999, num_updates = global_step):
// after each update,
//     d = min(decay, (1 + num_updates) / (10 + num_updates))
//     shadow = d * shadow + (1 - d) * w
// with shadows starting at the initial weights; evaluation (cifar10_eval.py restores the
// averages into the variables) runs on the shadows. Shared by every strategy: the engine
// calls update() after its optimizer step and holds a Swap while it evaluates.
// Only the parameters are averaged. cifar10_train.py applies the average to
// tf.trainable_variables(), and cifar10_eval.py restores with variables_to_restore(), which
// maps each averaged variable to its shadow and every other variable to itself; a batch
// norm's moving_mean and moving_variance are not trainable (they are moving averages
// already), so TF evaluates with them as trained. So here: the state tensors
// (Engine::state_tensors, BatchNorm's running statistics) get no shadow and evaluation reads
// them as they are.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/engine.h"
#include "kernels/backend.h"

namespace ablate::graph {

class WeightAverage {
 public:
  // decay in (0, 1]; throws std::invalid_argument otherwise.
  WeightAverage(double decay, kernels::Backend& backend);

  double decay() const { return decay_; }
  // The decay applied at the update that brings the count of updates to `num_updates`.
  double effective_decay(std::int64_t num_updates) const;
  // Takes the shadows' shapes and initial values from `params`, before the first update.
  void begin(const std::vector<Parameter*>& params);
  // One averaging step after the optimizer's update number `num_updates` (1 for the first).
  void update(const std::vector<Parameter*>& params, std::int64_t num_updates);
  const std::vector<kernels::Tensor>& shadows() const { return shadows_; }
  std::vector<kernels::Tensor>& shadows() { return shadows_; }  // a checkpoint restores them

  // While alive, the parameters hold the shadow values; the trained values come back after.
  class Swap {
   public:
    Swap(WeightAverage& average, const std::vector<Parameter*>& params);
    ~Swap();
    Swap(const Swap&) = delete;
    Swap& operator=(const Swap&) = delete;

   private:
    WeightAverage& average_;
    std::vector<Parameter*> params_;
  };

 private:
  void check(const std::vector<Parameter*>& params, const char* what) const;

  double decay_;
  kernels::Backend& backend_;
  std::vector<kernels::Tensor> shadows_, saved_;
};

}  // namespace ablate::graph
