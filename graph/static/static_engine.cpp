// StaticEngine: the Engine of the static strategy. Variables start from
// models::make_initial_parameters and make_initial_state (the weights and running statistics
// every strategy starts from) and live in a
// VariableStore that every session of the engine shares: the training session of each batch
// size train_step meets, and an evaluation session (forward in test phase, loss and top-1
// predictions) per batch size evaluate meets, as one would feed a TF graph with fixed
// placeholder shapes. A NaN or infinite loss throws std::runtime_error("loss is nan at
// iteration N") from the graph's CheckNumerics before any variable is updated. Data parallel
// (average_in_engine): the training graphs all-reduce the gradients in graph nodes, and the
// running statistics are averaged after each run (the same all-reduce as the other strategies').
#include "graph/static/static_engine.h"

#include <algorithm>
#include <map>
#include <memory>
#include <stdexcept>

#include "graph/batch_check.h"
#include "graph/distributed/communicator.h"
#include "graph/distributed/data_parallel.h"
#include "graph/evaluation.h"
#include "graph/optim/gradient_check.h"
#include "graph/static/executor.h"
#include "graph/static/session.h"
#include "graph/static/training_graph.h"
#include "models/parameters.h"

namespace ablate::graph::static_graph {
namespace {

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const std::string& n : names) text += (text.empty() ? "" : ",") + n;
  return text;
}

class StaticEngine final : public Engine {
 public:
  StaticEngine(const models::CheckedModel& model, kernels::Backend& backend, const EngineOptions& options)
      : model_(model), backend_(backend), options_(options) {
    session_options_ = {options.disabled_passes, options.executor, applied_inter_op_threads()};
    for (const auto& p : models::make_initial_parameters(model_.spec(), options.dtype, options.seed)) {
      store_.assign(p.name, p.value, backend);
      parameters_.push_back({p.name, store_.at(p.name), {}, p.lr_mult, p.decay_mult});
    }
    for (const auto& s : models::make_initial_state(model_.spec(), options.dtype)) {
      store_.assign(s.name, s.value, backend);
      state_.push_back({s.name, store_.at(s.name)});
    }
    Session& first = training_session(options.batch);
    for (Parameter& p : parameters_) pointers_.push_back(&p);
    bind_gradients(first);
    average_ = make_weight_average(options, backend, pointers_);  // TF's ExponentialMovingAverage
  }

  std::string strategy() const override { return "static"; }

  double train_step(const kernels::Tensor& x, const kernels::Tensor& labels, std::int64_t iteration) override {
    if (iteration < 0)
      throw std::invalid_argument("train step at iteration " + std::to_string(iteration) + "; expected an iteration >= 0");
    Session& session = training_session(check_batch(model_.spec(), x, labels, "train_step"));
    bind_gradients(session);
    session.feed("x", x);
    session.feed("labels", labels);
    session.run({iteration, updates_, options_.seed, options_.first_sample, averager_.get()});
    if (averager_) {  // data parallel: the running statistics this run updated, averaged over the ranks
      averager_->average_state(state_);
      averager_->count_step();
    }
    // The update ran inside the graph; its gradients are still bound to the parameters.
    if (options_.optimizer.check_gradients) check_finite_gradients(pointers_, iteration, backend_);
    ++updates_;
    if (average_) average_->update(pointers_, updates_);
    return session.fetch(0).at(0);
  }

  EvalResult evaluate(const kernels::Tensor& x, const kernels::Tensor& labels) override {
    const std::int64_t n = check_batch(model_.spec(), x, labels, "evaluate");
    auto& slot = evaluation_[n];
    if (!slot)
      slot = std::make_unique<Session>(build_evaluation_graph(model_, n, options_.dtype), backend_, store_, session_options_);
    slot->feed("x", x);
    slot->feed("labels", labels);
    return evaluate_averaged(average_.get(), pointers_, [&] {
      slot->run({0, updates_, options_.seed});
      EvalResult result;
      result.loss = slot->fetch(0).at(0);
      result.correct = count_correct(backend_, slot->fetch(1), labels);
      return result;
    });
  }

  // Data parallel (graph/distributed/data_parallel.h): the training sessions are compiled again
  // with one allreduce_mean node per bucket between the gradients and the apply nodes.
  bool average_in_engine(std::shared_ptr<distributed::GradientAverager> averager) override {
    if (options_.executor == ExecutorKind::parallel && !distributed::calls_from_any_thread())
      throw std::runtime_error(
          "data-parallel static graph with the parallel executor: the MPI library does not provide "
          "MPI_THREAD_SERIALIZED, which all-reduce nodes on the inter-op pool's threads need; use --executor sequential");
    std::vector<std::int64_t> bytes;
    for (const Parameter& p : parameters_) bytes.push_back(static_cast<std::int64_t>(p.value.bytes()));
    buckets_ = averager->plan_buckets(bytes);
    averager_ = std::move(averager);
    training_.clear();
    bind_gradients(training_session(options_.batch));
    return true;
  }

  std::vector<Parameter*> parameters() override { return pointers_; }
  std::vector<StateTensor> state_tensors() override { return state_; }
  kernels::Backend& backend() override { return backend_; }
  WeightAverage* weight_average() override { return average_.get(); }
  // Checkpoints: every variable (parameters, optimizer slots, running statistics) by its
  // name, the averages.
  bool own_state(OwnState& state) override {
    for (const std::string& name : store_.names()) state.tensors.emplace_back(name, &store_.at(name));
    if (average_)
      for (std::size_t i = 0; i < parameters_.size(); ++i)
        state.tensors.emplace_back(parameters_[i].name + ".average", &average_->shadows().at(i));
    state.updates = &updates_;
    return true;
  }

  EngineReport report() const override {
    EngineReport r;
    const Session& s = *training_.at(options_.batch);
    const SessionStats& st = s.stats();
    r.counters.emplace_back("graph_nodes_before_passes", st.passes.nodes_before);
    r.counters.emplace_back("graph_nodes_after_passes", st.passes.nodes_after);
    for (const auto& [pass, count] : st.passes.rewrites) r.counters.emplace_back("pass_" + pass + "_rewrites", count);
    r.counters.emplace_back("planned_bytes", static_cast<double>(st.planned_bytes));
    if (averager_) {  // data parallel: the all-reduce nodes the passes kept
      int nodes = 0;
      for (int id : s.order()) nodes += s.graph().node(id).op == OpKind::allreduce_mean;
      r.counters.emplace_back("graph_allreduce_nodes", nodes);
    }
    r.counters.emplace_back("unplanned_bytes", static_cast<double>(st.unplanned_bytes));
    // What the sessions hold between runs, plus (refcount mode) the largest set of transient
    // tensors one run held at once: sessions never run at the same time.
    std::int64_t held = store_.bytes(), transient = 0;
    for (const auto* sessions : {&training_, &evaluation_})
      for (const auto& [n, session] : *sessions) {
        held += session->stats().held_bytes;
        transient = std::max(transient, session->stats().refcount_peak_bytes);
      }
    r.counters.emplace_back("peak_tensor_bytes", static_cast<double>(held + transient));
    if (st.memory_mode == MemoryMode::refcount) {
      r.counters.emplace_back("refcount_peak_bytes", static_cast<double>(st.refcount_peak_bytes));
      r.counters.emplace_back("forwarded_buffers", st.forwarded_buffers);
    }
    std::vector<std::string> on, off;
    for (const std::string& p : pass_names()) (pass_in_effect(options_.disabled_passes, p) ? on : off).push_back(p);
    r.settings.emplace_back("passes_on", joined(on));
    r.settings.emplace_back("passes_off", joined(off));
    r.settings.emplace_back("memory_placement", st.placement);
    r.settings.emplace_back("executor", executor_name(options_.executor));
    r.settings.emplace_back("inter_op_threads", std::to_string(options_.inter_op_threads));
    r.settings.emplace_back("inter_op_threads_applied", std::to_string(session_options_.inter_op_threads));
    r.settings.emplace_back("thread_budget", thread_budget());
    return r;
  }

 private:
  // The parallel executor's pool within the core budget, or one worker on a device backend
  // (executor.h).
  int applied_inter_op_threads() const {
    if (options_.executor == ExecutorKind::sequential) return 1;
    return static_graph::applied_inter_op_threads(options_.inter_op_threads, options_.core_budget,
                                                  backend_.device() != kernels::Device::cpu, backend_.threads());
  }
  // "2 cores: 1 inter-op x 2 intra-op threads" ("no budget: ..." without one).
  std::string thread_budget() const {
    const int cores = options_.core_budget;
    return (cores > 0 ? std::to_string(cores) + (cores == 1 ? " core" : " cores") : std::string("no budget")) +
           ": " + std::to_string(session_options_.inter_op_threads) + " inter-op x " +
           std::to_string(backend_.threads()) + " intra-op threads";
  }

  Session& training_session(std::int64_t batch) {
    auto& slot = training_[batch];
    if (!slot) {
      TrainingGraph tg = build_training_graph(model_, batch, options_, buckets_);
      for (std::size_t i = 0; i < tg.parameters.size(); ++i)
        if (i >= parameters_.size() || tg.parameters[i].name != parameters_[i].name)
          throw std::logic_error("static graph: parameter " + std::to_string(i) + " of the graph is " +
                                 tg.parameters[i].name + "; models::make_initial_parameters made another");
      for (int id = 0; id < tg.graph.size(); ++id) {
        const Node& n = tg.graph.node(id);
        if (n.op == OpKind::variable && !store_.has(n.attrs.key))
          store_.create(n.attrs.key, n.outputs[0].shape, n.outputs[0].dtype, backend_);  // optimizer slots: zeros
      }
      slot = std::make_unique<Session>(std::move(tg.graph), backend_, store_, session_options_);
    }
    return *slot;
  }

  // Parameter::grad is the gradient the last training session fetched.
  void bind_gradients(Session& session) {
    for (std::size_t i = 0; i < parameters_.size(); ++i) parameters_[i].grad = session.fetch(i + 1);
  }

  models::CheckedModel model_;
  kernels::Backend& backend_;
  EngineOptions options_;
  SessionOptions session_options_;
  VariableStore store_;
  std::vector<Parameter> parameters_;
  std::vector<Parameter*> pointers_;
  std::vector<StateTensor> state_;  // shares the store's running statistics
  std::map<std::int64_t, std::unique_ptr<Session>> training_, evaluation_;
  std::int64_t updates_ = 0;
  std::unique_ptr<WeightAverage> average_;
  std::shared_ptr<distributed::GradientAverager> averager_;  // data parallel, else null
  ParameterRanges buckets_;                                  // its buckets of the parameters
};

}  // namespace

std::unique_ptr<Engine> make_static_engine(const models::CheckedModel& model, kernels::Backend& backend,
                                           const EngineOptions& options) {
  return std::make_unique<StaticEngine>(model, backend, options);
}

void check_static_options(const EngineOptions& options) {
  validate_pass_names(options.disabled_passes);
  check_inter_op_threads(options.inter_op_threads);
}

std::vector<std::string> missing_builders() { return layer_graph_registry().missing_builders(); }

}  // namespace ablate::graph::static_graph
