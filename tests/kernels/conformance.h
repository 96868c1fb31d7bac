// The backend conformance harness (in the spirit of ggml's test-backend-ops and Caffe's typed
// layer tests): a Case is one op on one seeded random shape. It runs on the reference backend
// and on the backend under test with identical inputs, and the outputs it keeps are compared
// under the tolerance of test_tensors.h. Workspaces are backend-private and never compared.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "test_tensors.h"

namespace ablate::kernels::test {

// One kept output: a tensor (or a returned scalar as a 1-element tensor) as host f64, with
// the length of the sum behind each element (for the tolerance); exact outputs (dropout
// masks, argmax indices) must match bit for bit.
struct Kept {
  std::string name;
  Tensor value;
  double reduction = 1;
  bool exact = false;
};

// What a case body uses: inputs drawn from the case's seed (the same on every backend), the
// backend to run on, and the outputs it keeps. Tensors are placed on the backend's device.
class OpRun {
 public:
  OpRun(Backend& backend, DType dtype, std::uint64_t seed) : backend_(backend), dtype_(dtype), rng_(seed) {}
  Backend& backend() { return backend_; }
  DType dtype() const { return dtype_; }
  Rng& rng() { return rng_; }

  // A random input in [lo, hi) of the run's dtype.
  Tensor input(const Shape& shape, double lo = -1.0, double hi = 1.0);
  // An output buffer pre-filled with random garbage in [-4, 4), so that an op which
  // accumulates into its output instead of overwriting it fails.
  Tensor output(const Shape& shape) { return input(shape, -4.0, 4.0); }
  Tensor labels(std::int64_t n, std::int64_t classes);
  // A copy of a host tensor on the backend's device.
  Tensor place(const Tensor& host);

  void keep(const std::string& name, const Tensor& t, double reduction = 1, bool exact = false);
  void keep_scalar(const std::string& name, double value, double reduction = 1);
  const std::vector<Kept>& kept() const { return kept_; }

 private:
  Backend& backend_;
  DType dtype_;
  Rng rng_;
  std::vector<Kept> kept_;
};

struct Case {
  std::string op;     // the Backend op it covers, as kernels/op_list.h names it: "conv2d_forward"
  std::string shape;  // the shapes and parameters, for failure messages
  std::uint64_t seed = 0;
  std::function<void(OpRun&)> body;
};

// Compares a case's kept outputs: the same names in the same order, each within
// tolerance(dtype, reduction) of the reference (exact ones bit for bit). Returns one line
// per failure, empty when all match.
std::vector<std::string> compare_kept(const std::vector<Kept>& expected, const std::vector<Kept>& actual, DType dtype);
// Runs `c` on both backends in `dtype` and compares; an exception from the tested backend is
// a failure line naming it.
std::vector<std::string> run_and_compare(Backend& reference, Backend& tested, const Case& c, DType dtype);

// The case lists, one per op family; each is a deterministic function of its seed.
std::vector<Case> gemm_linear_cases();
std::vector<Case> conv_cases();
std::vector<Case> conv_map_cases();
std::vector<Case> pool_cases();
// Max pooling over inputs full of ties (the pool_gradient option decides where dy goes).
std::vector<Case> pool_tie_cases();
// A convolution fused with its max pooling (backends where fuses_conv_max_pool holds).
std::vector<Case> conv_max_pool_cases();
std::vector<Case> activation_cases();
std::vector<Case> lrn_cases();
std::vector<Case> batch_norm_cases();
std::vector<Case> dropout_cases();
std::vector<Case> loss_cases();
std::vector<Case> elementwise_cases();
std::vector<Case> fused_elementwise_cases();
std::vector<Case> concat_cases();
std::vector<Case> optimizer_cases();
// The attention ops: the batched GEMM (every backend, a loop of its GEMM by default) and the other
// attention ops (softmax along the last axis, layer norm, permute: not on cuda yet).
std::vector<Case> batched_gemm_cases();
std::vector<Case> attention_cases();
std::vector<Case> fused_attention_cases();
// Every case of the lists above, in their order.
std::vector<Case> all_cases();

}  // namespace ablate::kernels::test
