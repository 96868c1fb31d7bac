// Recording the ops of one step (see step_recorder.h).
#include "bench/experiments/step_recorder.h"

#include <chrono>

#include "kernels/op_label.h"

namespace ablate::bench::experiments {
namespace {

double steady_us() {
  return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Sum of a host float tensor's values in f64; false when it has none to sum.
bool add_sum(const kernels::Tensor& t, double& sum) {
  if (t.empty() || t.device() != kernels::Device::cpu) return false;
  if (t.dtype() == kernels::DType::f64) {
    const double* v = t.data<double>();
    for (std::int64_t i = 0; i < t.numel(); ++i) sum += v[i];
  } else if (t.dtype() == kernels::DType::f32) {
    const float* v = t.data<float>();
    for (std::int64_t i = 0; i < t.numel(); ++i) sum += v[i];
  } else {
    for (std::int64_t i = 0; i < t.numel(); ++i) sum += t.at(i);
  }
  return true;
}

}  // namespace

StepRecorder::StepRecorder() : origin_(steady_us()) {}

double StepRecorder::now_us() const { return steady_us() - origin_; }

void StepRecorder::begin(kernels::OpCall& call) { call.started = now_us(); }

void StepRecorder::end(const kernels::OpCall& call, bool completed) {
  OpRecord r;
  r.duration_us = now_us() - call.started;
  r.start_us = call.started;
  const kernels::OpLabel& label = kernels::current_op_label();
  if (label.phase) r.phase = label.phase;
  r.layer = label.layer;
  r.entry = label.entry;
  r.index = label.index;
  r.op = kernels::op_name(call.op);
  r.flops = call.flops;
  for (const kernels::Tensor* t : call.writes.inputs)
    if (t != nullptr) r.reads += (r.reads.empty() ? "" : " ") + (t->empty() ? "none" : kernels::shape_string(t->shape()));
  bool summed = completed;
  for (const kernels::Tensor* t : call.writes.outputs) {
    if (t == nullptr || t->empty()) continue;
    r.shapes.push_back(t->shape());
    r.bytes_written += static_cast<std::int64_t>(t->bytes());
    if (completed) summed = add_sum(*t, r.checksum) && summed;
  }
  if (const kernels::Tensor* w = call.writes.workspace; w != nullptr && !w->empty()) {
    r.workspace_bytes = static_cast<std::int64_t>(w->bytes());
    r.workspace = w->raw_data();
  }
  if (call.returns) {
    r.checksum += call.result;
    summed = completed;
  }
  r.has_checksum = summed && (call.returns || !r.shapes.empty());
  const kernels::AllocatorStats stats = kernels::cpu_allocator().stats();
  r.live_bytes = stats.live_bytes;
  r.peak_bytes = stats.peak_bytes;
  const std::lock_guard<std::mutex> lock(mutex_);
  records_.push_back(std::move(r));
}

}  // namespace ablate::bench::experiments
