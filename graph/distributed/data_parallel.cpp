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

std::vector<GradientAverager::Range> GradientAverager::plan_buckets(const std::vector<std::int64_t>& bytes) {
  buckets_.clear();
  planned_count_ = bytes.size();
  std::size_t first = 0;
  std::int64_t filled = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (filled > 0 && filled + bytes[i] > options_.bucket_bytes) {
      buckets_.emplace_back(first, i);
      first = i;
      filled = 0;
    }
    filled += bytes[i];
  }
  if (!bytes.empty()) buckets_.emplace_back(first, bytes.size());
  return buckets_;
}

void GradientAverager::plan(const std::vector<Parameter*>& params) {
  std::vector<std::int64_t> bytes;
  for (const Parameter* p : params) {
    const kernels::Tensor& g = p->grad;
    if (g.dtype() != params[0]->grad.dtype())
      throw std::invalid_argument("data-parallel gradients: " + p->name + " is " + g.describe() +
                                  "; the first gradient is " + kernels::dtype_name(params[0]->grad.dtype()));
    bytes.push_back(static_cast<std::int64_t>(g.bytes()));
  }
  plan_buckets(bytes);
}

void GradientAverager::average(const std::vector<Parameter*>& params) {
  if (buckets_.empty() || planned_count_ != params.size()) plan(params);
  if (params.empty()) return;
  for (const auto& [first, last] : buckets_) {
    std::vector<const kernels::Tensor*> in;
    std::vector<kernels::Tensor*> out;
    for (std::size_t i = first; i < last; ++i) {
      in.push_back(&params[i]->grad);
      out.push_back(&params[i]->grad);
    }
    mean(in, out);
  }
  ++stats_.steps;
}

void GradientAverager::average_state(std::vector<StateTensor>& state) {
  if (state.empty()) return;
  std::vector<const kernels::Tensor*> in;
  std::vector<kernels::Tensor*> out;
  for (StateTensor& s : state) {
    if (s.value.dtype() != state[0].value.dtype())
      throw std::invalid_argument("data-parallel state: " + s.name + " is " + s.value.describe() + "; the first is " +
                                  kernels::dtype_name(state[0].value.dtype()));
    in.push_back(&s.value);
    out.push_back(&s.value);  // a handle: writing it writes the engine's storage
  }
  mean(in, out);
}

void GradientAverager::mean(const std::vector<const kernels::Tensor*>& in, const std::vector<kernels::Tensor*>& out) {
  if (in.empty() || in.size() != out.size())
    throw std::logic_error("data-parallel mean of " + std::to_string(in.size()) + " tensors into " +
                           std::to_string(out.size()));
  const kernels::DType dtype = in[0]->dtype();
  const double scale = 1.0 / static_cast<double>(size());
  const std::int64_t ranks = size();
  auto t0 = Clock::now();
  std::int64_t count = 0;
  for (const kernels::Tensor* t : in) {
    if (t->dtype() != dtype)
      throw std::invalid_argument("data-parallel mean: " + t->describe() + " beside " + kernels::dtype_name(dtype));
    count += t->numel();
  }
  buffer_.resize(static_cast<std::size_t>(count) * kernels::dtype_size(dtype));
  std::size_t offset = 0;
  for (const kernels::Tensor* t : in) {
    std::memcpy(buffer_.data() + offset, t->raw_data(), t->bytes());
    offset += t->bytes();
  }
  stats_.pack_seconds += since(t0);
  auto t1 = Clock::now();
  allreduce_sum(options_.allreduce, buffer_.data(), count, dtype);
  stats_.seconds += since(t1);
  auto t2 = Clock::now();
  offset = 0;
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (out[i]->numel() != in[i]->numel() || out[i]->dtype() != dtype)
      throw std::logic_error("data-parallel mean: " + in[i]->describe() + " into " + out[i]->describe());
    if (dtype == kernels::DType::f32)
      unpack_scaled<float>(buffer_.data() + offset, *out[i], scale);
    else
      unpack_scaled<double>(buffer_.data() + offset, *out[i], scale);
    offset += out[i]->bytes();
  }
  stats_.pack_seconds += since(t2);
  const auto payload = static_cast<std::int64_t>(offset);
  ++stats_.calls;
  stats_.payload_bytes += payload;
  // Both algorithms move 2 (P-1)/P of the payload per rank (the ring exactly so, up to the
  // uneven last chunk; MPI's large-message algorithms alike).
  stats_.sent_bytes += ranks > 1 ? 2 * (ranks - 1) * payload / ranks : 0;
}

std::shared_ptr<GradientAverager> attach_data_parallel(Engine& engine, const DataParallelOptions& options) {
  auto averager = std::make_shared<GradientAverager>(options);
  if (Optimizer* optimizer = engine.optimizer()) {
    optimizer->set_gradient_hook([averager, state = engine.state_tensors()](const std::vector<Parameter*>& params) mutable {
      averager->average(params);
      averager->average_state(state);  // after this step's forward updated them
    });
    return averager;
  }
  if (engine.average_in_engine(averager)) return averager;
  throw std::invalid_argument("data-parallel training: the " + engine.strategy() +
                              " engine has no shared optimizer to average gradients in, nor an all-reduce of its own");
}

double mean_over_ranks(double value) { return allreduce_sum(value) / static_cast<double>(size()); }

}  // namespace ablate::graph::distributed
