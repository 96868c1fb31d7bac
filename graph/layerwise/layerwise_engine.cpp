// LayerwiseEngine: the Engine of the layer-wise strategy, as Caffe's `caffe train` runs a
// solver: a train net (the training batch size) and, from the first evaluation, a test net
// that shares the train net's weights and running statistics (Caffe's test_net with
// ShareTrainedLayersWith), with the initial weights and state of
// models::make_initial_parameters and make_initial_state so that every strategy starts
// from the same values. Evaluation, its top-1 count and weight averaging are the shared ones
// of graph/evaluation.h.
#include "graph/layerwise/layerwise_engine.h"

#include "graph/batch_check.h"
#include "graph/evaluation.h"
#include "graph/layerwise/layer_factory.h"
#include "graph/layerwise/net.h"
#include "graph/layerwise/solver.h"
#include "models/parameters.h"

namespace ablate::graph::layerwise {

namespace {

class LayerwiseEngine final : public Engine {
 public:
  LayerwiseEngine(const models::CheckedModel& model, kernels::Backend& backend, const EngineOptions& options)
      : model_(model), backend_(backend), options_(options) {
    NetOptions net_options;
    net_options.phase = Phase::train;
    net_options.batch = options.batch;
    net_options.dtype = options.dtype;
    net_options.first_sample = options.first_sample;
    net_options.blocked_layout = options.blocked_layout;
    train_net_ = std::make_unique<Net>(model_, backend, net_options);
    train_net_->set_parameters(models::make_initial_parameters(model_.spec(), options.dtype, options.seed));
    train_net_->set_state(models::make_initial_state(model_.spec(), options.dtype));
    solver_ = std::make_unique<Solver>(*train_net_, options.optimizer, backend, options.seed);
    average_ = make_weight_average(options, backend, solver_->parameters());
  }

  std::string strategy() const override { return "layerwise"; }

  double train_step(const kernels::Tensor& x, const kernels::Tensor& labels, std::int64_t iteration) override {
    load_batch(*train_net_, x, labels, "train_step");
    const double loss = solver_->step(iteration);
    if (average_) average_->update(solver_->parameters(), solver_->optimizer().updates());
    return loss;
  }

  EvalResult evaluate(const kernels::Tensor& x, const kernels::Tensor& labels) override {
    if (!test_net_) {
      NetOptions net_options;
      net_options.phase = Phase::test;
      net_options.batch = check_batch(model_.spec(), x, labels, "evaluate");
      net_options.dtype = options_.dtype;
      net_options.blocked_layout = options_.blocked_layout;
      test_net_ = std::make_unique<Net>(model_, backend_, net_options);
      test_net_->share_parameters(*train_net_);
      predictions_ = std::make_unique<Blob>("predictions", kernels::DType::i32, kernels::cpu_allocator(), false);
    }
    load_batch(*test_net_, x, labels, "evaluate");
    predictions_->reshape({x.dim(0)});
    return evaluate_averaged(average_.get(), solver_->parameters(), [&] {
      EvalResult result;
      result.loss = test_net_->forward();
      result.correct = count_correct(backend_, test_net_->scores().data(), labels, predictions_->data());
      return result;
    });
  }

  std::vector<Parameter*> parameters() override { return solver_->parameters(); }
  // The train net's state blobs, which the test net shares.
  std::vector<StateTensor> state_tensors() override {
    std::vector<StateTensor> out;
    for (const NetState& s : train_net_->state()) out.push_back({s.name, s.blob->data()});
    return out;
  }
  kernels::Backend& backend() override { return backend_; }
  Optimizer* optimizer() override { return &solver_->optimizer(); }
  WeightAverage* weight_average() override { return average_.get(); }

 private:
  // Copies a checked host batch into the net's input and label blobs (Caffe's data layer).
  void load_batch(Net& net, const kernels::Tensor& x, const kernels::Tensor& labels, const char* what) {
    net.reshape(check_batch(model_.spec(), x, labels, what));
    copy_in(x, net.input().data());
    copy_in(labels, net.labels().data());
  }

  void copy_in(const kernels::Tensor& host, kernels::Tensor& blob) {
    if (blob.device() == kernels::Device::cpu)
      blob.copy_from(host);  // a memcpy, or the f32 <-> f64 conversion of the input
    else
      backend_.copy(host, blob);
  }

  models::CheckedModel model_;
  kernels::Backend& backend_;
  EngineOptions options_;
  std::unique_ptr<Net> train_net_, test_net_;
  std::unique_ptr<Solver> solver_;
  std::unique_ptr<WeightAverage> average_;
  std::unique_ptr<Blob> predictions_;
};

}  // namespace

std::unique_ptr<Engine> make_layerwise_engine(const models::CheckedModel& model, kernels::Backend& backend,
                                              const EngineOptions& options) {
  return std::make_unique<LayerwiseEngine>(model, backend, options);
}

std::vector<std::string> missing_builders() { return layer_registry().missing_builders(); }

}  // namespace ablate::graph::layerwise
