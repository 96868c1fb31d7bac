// OpRun of the conformance harness (conformance.h): seeded inputs placed on the backend's
// device, kept outputs brought back to host f64.
#include "conformance.h"

namespace ablate::kernels::test {

Tensor OpRun::place(const Tensor& host) {
  if (backend_.device() == Device::cpu) return host;
  // A device backend's copy moves data between host and device memory.
  Tensor on_device(host.shape(), host.dtype(), &backend_.allocator());
  backend_.copy(host, on_device);
  return on_device;
}

Tensor OpRun::input(const Shape& shape, double lo, double hi) { return place(random_tensor(shape, dtype_, rng_, lo, hi)); }

Tensor OpRun::labels(std::int64_t n, std::int64_t classes) { return place(random_labels(n, classes, rng_)); }

void OpRun::keep(const std::string& name, const Tensor& t, double reduction, bool exact) {
  Tensor host = t;
  if (t.device() != Device::cpu) {
    host = Tensor(t.shape(), t.dtype());
    backend_.synchronize();
    backend_.copy(t, host);
  }
  kept_.push_back({name, as_f64(host), reduction, exact});
}

void OpRun::keep_scalar(const std::string& name, double value, double reduction) {
  Tensor t({1}, DType::f64);
  t.data<double>()[0] = value;
  kept_.push_back({name, t, reduction, false});
}

}  // namespace ablate::kernels::test

namespace ablate::kernels::test {

std::vector<std::string> compare_kept(const std::vector<Kept>& expected, const std::vector<Kept>& actual, DType dtype) {
  std::vector<std::string> failures;
  if (expected.size() != actual.size()) {
    failures.push_back("kept " + std::to_string(actual.size()) + " outputs, the reference kept " +
                       std::to_string(expected.size()));
    return failures;
  }
  for (std::size_t i = 0; i < expected.size(); ++i) {
    const Kept &e = expected[i], &a = actual[i];
    if (e.name != a.name) {
      failures.push_back("output " + std::to_string(i) + " is '" + a.name + "', expected '" + e.name + "'");
      continue;
    }
    double bound = e.exact ? 0.0 : tolerance(dtype, e.reduction);
    ::testing::AssertionResult near = all_near(a.value, e.value, bound);
    if (!near) failures.push_back(e.name + ": " + near.message());
  }
  return failures;
}

std::vector<std::string> run_and_compare(Backend& reference, Backend& tested, const Case& c, DType dtype) {
  OpRun expected(reference, dtype, c.seed);
  c.body(expected);  // the reference must run every case: an exception here is a test bug
  OpRun actual(tested, dtype, c.seed);
  try {
    c.body(actual);
  } catch (const std::exception& e) {
    return {std::string("threw: ") + e.what()};
  }
  return compare_kept(expected.kept(), actual.kept(), dtype);
}

}  // namespace ablate::kernels::test

namespace ablate::kernels::test {

std::vector<Case> all_cases() {
  std::vector<Case> all;
  for (auto list : {gemm_linear_cases, conv_cases, conv_map_cases, pool_cases, pool_tie_cases, conv_max_pool_cases, activation_cases, lrn_cases,
                    batch_norm_cases, dropout_cases, loss_cases, elementwise_cases, fused_elementwise_cases, concat_cases,
                    batched_gemm_cases, attention_cases, fused_attention_cases, optimizer_cases})
    for (Case& c : list()) all.push_back(std::move(c));
  return all;
}

}  // namespace ablate::kernels::test
