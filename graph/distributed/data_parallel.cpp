// Bucketed gradient averaging over the ranks (data_parallel.h).
#include "graph/distributed/data_parallel.h"

#include <chrono>
#include <cstring>
#include <stdexcept>

#include "graph/distributed/communicator.h"
#include "graph/optim/optimizer.h"

namespace ablate::graph::distributed {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

template <class T>
void unpack_scaled(const unsigned char* from, kernels::Tensor& grad, double scale) {
  const T* src = reinterpret_cast<const T*>(from);
  T* dst = grad.data<T>();
  const T s = static_cast<T>(scale);
  for (std::int64_t i = 0; i < grad.numel(); ++i) dst[i] = src[i] * s;
}
}  // namespace

GradientAverager::GradientAverager(DataParallelOptions options) : options_(std::move(options)) {
  check_allreduce_name(options_.allreduce, "--allreduce");
  if (options_.bucket_bytes <= 0)
    throw std::invalid_argument("bucket size " + std::to_string(options_.bucket_bytes) +
                                " bytes: expected a positive size");
}

void GradientAverager::plan(const std::vector<Parameter*>& params) {
  buckets_.clear();
  if (params.empty()) return;
  const kernels::DType dtype = params[0]->grad.dtype();
  Bucket current;
  std::int64_t bytes = 0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const kernels::Tensor& g = params[i]->grad;
    if (g.dtype() != dtype)
      throw std::invalid_argument("data-parallel gradients: " + params[i]->name + " is " + g.describe() +
                                  "; the first gradient is " + kernels::dtype_name(dtype));
    const auto size = static_cast<std::int64_t>(g.bytes());
    if (bytes > 0 && bytes + size > options_.bucket_bytes) {
      current.last = i;
      buckets_.push_back(std::move(current));
      current = Bucket{};
      current.first = i;
      bytes = 0;
    }
    bytes += size;
    current.count += g.numel();
  }
  current.last = params.size();
  buckets_.push_back(std::move(current));
  for (Bucket& b : buckets_) b.buffer.resize(static_cast<std::size_t>(b.count) * kernels::dtype_size(dtype));
}

void GradientAverager::average(const std::vector<Parameter*>& params) {
  if (buckets_.empty() || buckets_.back().last != params.size()) plan(params);
  if (params.empty()) return;
  std::vector<kernels::Tensor*> grads;
  for (Parameter* p : params) grads.push_back(&p->grad);
  for (Bucket& b : buckets_) allreduce_mean(b, grads);
  ++stats_.steps;
}

void GradientAverager::average_state(std::vector<StateTensor>& state) {
  if (state.empty()) return;
  std::vector<kernels::Tensor*> values;
  for (StateTensor& s : state) {
    values.push_back(&s.value);  // a handle: writing it writes the engine's storage
    if (s.value.dtype() != state[0].value.dtype())
      throw std::invalid_argument("data-parallel state: " + s.name + " is " + s.value.describe() + "; the first is " +
                                  kernels::dtype_name(state[0].value.dtype()));
  }
  if (state_bucket_.last != state.size()) {
    state_bucket_ = Bucket{0, state.size(), 0, {}};
    for (const StateTensor& s : state) state_bucket_.count += s.value.numel();
    state_bucket_.buffer.resize(static_cast<std::size_t>(state_bucket_.count) * kernels::dtype_size(state[0].value.dtype()));
  }
  allreduce_mean(state_bucket_, values);
}

void GradientAverager::allreduce_mean(Bucket& b, const std::vector<kernels::Tensor*>& tensors) {
  const kernels::DType dtype = tensors[b.first]->dtype();
  const double scale = 1.0 / static_cast<double>(size());
  const std::int64_t ranks = size();
  auto t0 = Clock::now();
  std::size_t offset = 0;
  for (std::size_t i = b.first; i < b.last; ++i) {
    const kernels::Tensor& t = *tensors[i];
    std::memcpy(b.buffer.data() + offset, t.raw_data(), t.bytes());
    offset += t.bytes();
  }
  stats_.pack_seconds += since(t0);
  auto t1 = Clock::now();
  allreduce_sum(options_.allreduce, b.buffer.data(), b.count, dtype);
  stats_.seconds += since(t1);
  auto t2 = Clock::now();
  offset = 0;
  for (std::size_t i = b.first; i < b.last; ++i) {
    kernels::Tensor& t = *tensors[i];
    if (dtype == kernels::DType::f32)
      unpack_scaled<float>(b.buffer.data() + offset, t, scale);
    else
      unpack_scaled<double>(b.buffer.data() + offset, t, scale);
    offset += t.bytes();
  }
  stats_.pack_seconds += since(t2);
  const auto payload = static_cast<std::int64_t>(b.buffer.size());
  ++stats_.calls;
  stats_.payload_bytes += payload;
  // Both algorithms move 2 (P-1)/P of the payload per rank (the ring exactly so, up to the
  // uneven last chunk; MPI's large-message algorithms alike).
  stats_.sent_bytes += ranks > 1 ? 2 * (ranks - 1) * payload / ranks : 0;
}

std::shared_ptr<GradientAverager> attach_data_parallel(Engine& engine, const DataParallelOptions& options) {
  Optimizer* optimizer = engine.optimizer();
  if (!optimizer)
    throw std::invalid_argument("data-parallel training: the " + engine.strategy() +
                                " engine has no shared optimizer to average gradients in");
  auto averager = std::make_shared<GradientAverager>(options);
  optimizer->set_gradient_hook([averager, state = engine.state_tensors()](const std::vector<Parameter*>& params) mutable {
    averager->average(params);
    averager->average_state(state);  // after this step's forward updated them
  });
  return averager;
}

double mean_over_ranks(double value) { return allreduce_sum(value) / static_cast<double>(size()); }

}  // namespace ablate::graph::distributed
