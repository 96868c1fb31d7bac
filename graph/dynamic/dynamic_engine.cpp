// DynamicEngine: the Engine of the dynamic strategy, as a Torch7 training script runs:
//   zeroGradParameters(); loss = criterion:forward(model:forward(x), y); backward; optim step
// Every op runs at once through the Backend and records itself on the tape; backward() walks
// the tape in reverse; the shared graph::Optimizer applies the update (every solver and lr
// policy, with the layer-wise engine's lr_mult and decay_mult), from the initial weights of
// models::make_initial_parameters, so every strategy starts from the same values.
// Every tensor the tape makes comes from a CachingAllocator over the backend's allocator
// (EngineOptions::caching_allocator=false makes it pass every request through).
// EngineOptions::per_sample is Torch's CIFAR-10 script: forward and backward one sample at a
// time, each sample's gradient scaled by 1/B so the accumulated gradient is the batch mean's,
// and one update per batch; the loss returned is the batch mean.
// EngineOptions::weight_average_decay > 0 evaluates on the shared WeightAverage's shadows
// (TF's ExponentialMovingAverage), updated after every step, as the layer-wise engine does.
#include "graph/dynamic/dynamic_engine.h"

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "graph/batch_check.h"
#include "graph/dynamic/autograd.h"
#include "graph/dynamic/caching_allocator.h"
#include "graph/dynamic/sequential.h"
#include "graph/layerwise/accuracy.h"
#include "graph/optim/divergence_error.h"
#include "graph/optim/optimizer.h"
#include "graph/optim/weight_average.h"

namespace ablate::graph::dynamic {
namespace {


const EngineOptions& checked(const EngineOptions& options) {
  if (options.batch <= 0)
    throw std::invalid_argument("batch size " + std::to_string(options.batch) + ": expected a positive count");
  return options;
}

class DynamicEngine final : public Engine {
 public:
  DynamicEngine(const models::ModelSpec& spec, kernels::Backend& backend, const EngineOptions& options)
      : options_(checked(options)),
        backend_(backend),
        allocator_(backend.allocator(), options.caching_allocator),
        host_allocator_(kernels::cpu_allocator(), options.caching_allocator),
        context_(backend, allocator_, backend.device() == kernels::Device::cpu ? allocator_ : host_allocator_),
        model_(spec, context_, options.dtype, options.seed),
        optimizer_(options.optimizer, backend) {
    for (ModelParameter& p : model_.parameters())
      parameters_.push_back({p.name, p.variable.value(), p.variable.grad(), p.lr_mult, p.decay_mult});
    for (Parameter& p : parameters_) pointers_.push_back(&p);
    if (options.weight_average_decay > 0) {
      average_ = std::make_unique<WeightAverage>(options.weight_average_decay, backend);
      average_->begin(pointers_);
    }
  }

  std::string strategy() const override { return "dynamic"; }

  double train_step(const kernels::Tensor& x, const kernels::Tensor& labels, std::int64_t iteration) override {
    if (iteration < 0)
      throw std::invalid_argument("train step at iteration " + std::to_string(iteration) +
                                  "; expected an iteration >= 0");
    const std::int64_t n = check_batch(model_.spec(), x, labels, "train_step");
    const kernels::Tensor input = context_.to_device(x, options_.dtype);
    const kernels::Tensor targets = context_.to_device(labels, kernels::DType::i32);
    for (ModelParameter& p : model_.parameters()) p.variable.zero_grad();
    ForwardContext fc;
    fc.iteration = iteration;
    fc.seed = options_.seed;
    fc.first_sample = options_.first_sample;
    double loss = 0;
    if (!options_.per_sample) {
      fc.labels = targets;
      loss = forward_backward(input, fc, 1.0);
    } else {
      fc.batch = n;
      for (std::int64_t s = 0; s < n; ++s) {
        fc.sample = s;
        fc.labels = targets.slice0(s, s + 1);
        loss += forward_backward(input.slice0(s, s + 1), fc, 1.0 / static_cast<double>(n));
      }
      loss /= static_cast<double>(n);
    }
    optimizer_.step(pointers_, iteration);
    if (average_) average_->update(pointers_, optimizer_.updates());
    return loss;
  }

  EvalResult evaluate(const kernels::Tensor& x, const kernels::Tensor& labels) override {
    const std::int64_t n = check_batch(model_.spec(), x, labels, "evaluate");
    NoGradGuard no_grad(context_);
    std::optional<WeightAverage::Swap> averaged;  // TF's evaluation on the moving averages
    if (average_) averaged.emplace(*average_, pointers_);
    ForwardContext fc;
    fc.train = false;
    fc.labels = context_.to_device(labels, kernels::DType::i32);
    Sequential::Output out = model_.forward(Variable(context_, context_.to_device(x, options_.dtype)), fc);
    kernels::Tensor predictions({n}, kernels::DType::i32, &context_.host_allocator());
    EvalResult result;
    result.loss = out.loss.value().data<double>()[0];
    result.correct = layerwise::count_correct(backend_, out.scores.value(), labels, predictions);
    return result;
  }

  std::vector<Parameter*> parameters() override { return pointers_; }
  kernels::Backend& backend() override { return backend_; }
  Optimizer* optimizer() override { return &optimizer_; }
  WeightAverage* weight_average() override { return average_.get(); }

  EngineReport report() const override {
    CacheCounters c = allocator_.counters();
    if (&context_.host_allocator() != &context_.allocator()) {
      const CacheCounters h = host_allocator_.counters();
      c.hits += h.hits;
      c.misses += h.misses;
      c.system_frees += h.system_frees;
      c.cached_bytes += h.cached_bytes;
    }
    EngineReport r;
    r.counters = {{"allocator_hits", double(c.hits)},
                  {"allocator_misses", double(c.misses)},
                  {"allocator_system_allocations", double(c.misses)},
                  {"allocator_system_frees", double(c.system_frees)},
                  {"allocator_cached_bytes", double(c.cached_bytes)},
                  {"allocator_peak_bytes", double(c.peak_in_use_bytes)},
                  {"allocator_peak_reserved_bytes", double(c.peak_reserved_bytes)}};
    r.settings = {{"caching_allocator", options_.caching_allocator ? "on" : "off"},
                  {"per_sample", options_.per_sample ? "on" : "off"}};
    return r;
  }

 private:
  // Forward of one batch (or sample) on the tape, the NaN check, and backward with the loss's
  // gradient `seed`; returns the loss. The graph is freed when this returns.
  double forward_backward(const kernels::Tensor& input, const ForwardContext& fc, double seed) {
    Sequential::Output out = model_.forward(Variable(context_, input), fc);
    const double loss = out.loss.value().data<double>()[0];
    check_finite_loss(loss, fc.iteration);
    backward(out.loss, seed);
    return loss;
  }

  EngineOptions options_;
  kernels::Backend& backend_;
  // Declared before everything that holds tensors made from them, so destroyed after.
  CachingAllocator allocator_, host_allocator_;
  Context context_;
  Sequential model_;
  Optimizer optimizer_;
  std::vector<Parameter> parameters_;
  std::vector<Parameter*> pointers_;
  std::unique_ptr<WeightAverage> average_;
};

}  // namespace

std::unique_ptr<Engine> make_dynamic_engine(const models::ModelSpec& spec, kernels::Backend& backend,
                                            const EngineOptions& options) {
  return std::make_unique<DynamicEngine>(spec, backend, options);
}

}  // namespace ablate::graph::dynamic
