// DynamicEngine: the Engine of the dynamic strategy, as a Torch7 training script runs:
//   zeroGradParameters(); loss = criterion:forward(model:forward(x), y); backward; optim step
// Every op runs at once through the Backend and records itself on the tape; backward() walks
// the tape in reverse; the shared graph::Optimizer applies the update (every solver and lr
// policy, with the layer-wise engine's lr_mult and decay_mult), from the initial weights of
// models::make_initial_parameters, so every strategy starts from the same values.
// Every tensor the tape makes comes from a CachingAllocator over the backend's allocator
// (EngineOptions::caching_allocator=false makes it pass every request through).
// EngineOptions::blocked_layout keeps the tape's activations in the backend's channel block
// between the layers that run it (context.h). EngineOptions::per_sample is Torch's CIFAR-10 script: forward and backward one sample at a
// time, each sample's gradient scaled by 1/B so the accumulated gradient is the batch mean's,
// and one update per batch; the loss returned is the batch mean.
// EngineOptions::weight_average_decay > 0 evaluates on the shared WeightAverage's shadows
// (TF's ExponentialMovingAverage), updated after every step; evaluation and its top-1 count
// are every engine's (graph/evaluation.h).
#include "graph/dynamic/dynamic_engine.h"

#include <stdexcept>
#include <string>

#include "graph/batch_check.h"
#include "graph/dynamic/autograd.h"
#include "graph/dynamic/caching_allocator.h"
#include "graph/dynamic/module_factory.h"
#include "graph/dynamic/sequential.h"
#include "graph/evaluation.h"
#include "graph/optim/divergence_error.h"
#include "graph/optim/optimizer.h"
#include "kernels/op_label.h"

namespace ablate::graph::dynamic {
namespace {

class DynamicEngine final : public Engine {
 public:
  DynamicEngine(const models::CheckedModel& model, kernels::Backend& backend, const EngineOptions& options)
      : options_(options),
        backend_(backend),
        allocator_(backend.allocator(), options.caching_allocator),
        host_allocator_(kernels::cpu_allocator(), options.caching_allocator),
        context_(backend, allocator_, backend.device() == kernels::Device::cpu ? allocator_ : host_allocator_),
        model_(model, context_, options.dtype, options.seed),
        optimizer_(options.optimizer, backend) {
    context_.set_blocked_layout(options.blocked_layout);
    for (ModelParameter& p : model_.parameters())
      parameters_.push_back({p.name, p.variable.value(), p.variable.grad(), p.lr_mult, p.decay_mult});
    for (Parameter& p : parameters_) pointers_.push_back(&p);
    average_ = make_weight_average(options, backend, pointers_);
  }

  std::string strategy() const override { return "dynamic"; }

  double train_step(const kernels::Tensor& x, const kernels::Tensor& labels, std::int64_t iteration) override {
    if (iteration < 0)
      throw std::invalid_argument("train step at iteration " + std::to_string(iteration) +
                                  "; expected an iteration >= 0");
    const std::int64_t n = check_batch(model_.model().spec(), x, labels, "train_step");
    const kernels::Tensor input = context_.to_device(x, options_.dtype);
    const kernels::Tensor targets = context_.to_device(labels, kernels::DType::i32);
    for (ModelParameter& p : model_.parameters()) {
      const kernels::OpLabelScope label({"zero_grad", kernels::layer_of_parameter(p.name), p.name});
      p.variable.zero_grad();
    }
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
    const std::int64_t n = check_batch(model_.model().spec(), x, labels, "evaluate");
    NoGradGuard no_grad(context_);
    return evaluate_averaged(average_.get(), pointers_, [&] {
      ForwardContext fc;
      fc.train = false;
      fc.labels = context_.to_device(labels, kernels::DType::i32);
      Sequential::Output out = model_.forward(Variable(context_, context_.to_device(x, options_.dtype)), fc);
      kernels::Tensor predictions({n}, kernels::DType::i32, &context_.host_allocator());
      EvalResult result;
      result.loss = out.loss.value().data<double>()[0];
      result.correct = count_correct(backend_, out.scores.value(), labels, predictions);
      return result;
    });
  }

  std::vector<Parameter*> parameters() override { return pointers_; }
  std::vector<StateTensor> state_tensors() override { return model_.state(); }
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
                  {"per_sample", options_.per_sample ? "on" : "off"},
                  {"blocked_layout", options_.blocked_layout ? "on" : "off"}};
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

std::unique_ptr<Engine> make_dynamic_engine(const models::CheckedModel& model, kernels::Backend& backend,
                                            const EngineOptions& options) {
  return std::make_unique<DynamicEngine>(model, backend, options);
}

std::vector<std::string> missing_builders() { return module_registry().missing_builders(); }

}  // namespace ablate::graph::dynamic
