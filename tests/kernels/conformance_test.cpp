// Backend conformance: every op of kernels/backend.h on every backend other than reference,
// in f32 and f64, against the reference backend over the seeded random cases of
// conformance_*_cases.cpp (odd sizes, strides 1-3, asymmetric padding, connection tables,
// the three pooling conventions with max and avg, batch 1 and > 1, in-place activations and
// GELU, batch normalisation of [N,C] and [N,C,H,W] with and without scale and shift).
//
// Tolerance: for each output element, err = |out - ref| / max(1, |ref|); a case passes when
// max err <= base * sqrt(L), L the number of terms summed into the element (C*KH*KW for a
// convolution, K for gemm, N*H*W for batch normalisation, 1 for pointwise ops), base 1e-5 for f32 and 1e-11 for f64.
// Dropout masks, copies and argmax indices must match exactly. Workspaces are private to a
// backend: outputs and gradients are compared, never workspaces.
//
// Each backend runs at 1 and at 2 threads: the parallel loops split work differently.
// Backends: every backend with its default options runs every op family. Lowerings: each
// convolution lowering and threading model a backend takes (kernels/cpu/conv_lowering.h) runs
// the convolution and GEMM families. PoolGradients: every backend with pool_gradient all runs
// pooling with and without ties against the reference under the same setting.
//
// A backend whose factory still throws "not built yet" is skipped with that message (its
// tests run as soon as it lands); any other factory error fails.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <sstream>
#include <tuple>

#include "conformance.h"
#include "kernels/registry.h"

namespace ablate::kernels::test {
namespace {

// One configuration of a backend: its name, its options (threads aside) and a label for the
// test's name.
struct Variant {
  std::string backend;
  BackendOptions options;
  std::string label;
};
void PrintTo(const Variant& v, std::ostream* out) { *out << v.label; }

using Param = std::tuple<Variant, DType, int>;  // backend variant, dtype, threads

class ConformanceBase : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override {
    const auto& [variant, dtype, threads] = GetParam();
    const std::string& name = variant.backend;
    BackendOptions reference_options;
    reference_options.pool_gradient = variant.options.pool_gradient;  // the same semantics on both sides
    reference_ = make_backend("reference", reference_options);
    try {
      BackendOptions options = variant.options;
      options.threads = threads;
      tested_ = make_backend(name, options);
    } catch (const std::exception& e) {
      std::string what = e.what();
      if (what.find("not built yet") != std::string::npos)
        GTEST_SKIP() << "backend '" << name << "' is not built yet (" << what
                     << "); its conformance tests run once it lands";
      if (what.find("no CUDA device found") != std::string::npos)
        GTEST_SKIP() << "no CUDA device: GPU tests skipped (" << what << ")";
      FAIL() << "make_backend(\"" << name << "\") threw: " << what;
    }
    if (dtype == DType::f64) {
      try {  // a backend without f64 says so on the smallest op
        Tensor a({1, 1}, DType::f64), c({1, 1}, DType::f64);
        tested_->gemm(false, false, 1.0, a, a, 0.0, c);
      } catch (const std::exception& e) {
        GTEST_SKIP() << "backend '" << name << "' does not run f64: " << e.what();
      }
    }
  }

  // Runs every case; reports each failing case with its op, shape and output.
  void check(const std::vector<Case>& cases) {
    const auto& [variant, dtype, threads] = GetParam();
    ASSERT_FALSE(cases.empty());
    int failed = 0;
    for (const Case& c : cases) {
      for (const std::string& failure : run_and_compare(*reference_, *tested_, c, dtype)) {
        ++failed;
        ADD_FAILURE() << variant.label << " " << dtype_name(dtype) << " " << threads << " thread(s) " << c.op << " ("
                      << c.shape << ", seed " << c.seed << "): " << failure;
      }
    }
    RecordProperty("cases", static_cast<int>(cases.size()));
    EXPECT_EQ(failed, 0) << failed << " of " << cases.size() << " cases failed";
  }

  // The fused convolution + max pooling, where the backend has it.
  void check_conv_max_pool() {
    if (!tested_->fuses_conv_max_pool(Pool2dParams{}))
      GTEST_SKIP() << tested_->name() << " does not fuse a convolution with its max pooling (the host backends do)";
    check(conv_max_pool_cases());
  }

  std::unique_ptr<Backend> reference_, tested_;
};

class Conformance : public ConformanceBase {};
TEST_P(Conformance, GemmAndLinear) { check(gemm_linear_cases()); }
TEST_P(Conformance, Conv2d) { check(conv_cases()); }
TEST_P(Conformance, Conv2dMap) { check(conv_map_cases()); }
TEST_P(Conformance, Pool2d) { check(pool_cases()); }
TEST_P(Conformance, Pool2dWithTies) { check(pool_tie_cases()); }
TEST_P(Conformance, Activations) { check(activation_cases()); }
TEST_P(Conformance, Lrn) { check(lrn_cases()); }
TEST_P(Conformance, BatchNorm) { check(batch_norm_cases()); }
TEST_P(Conformance, Dropout) { check(dropout_cases()); }
TEST_P(Conformance, Losses) { check(loss_cases()); }
TEST_P(Conformance, ElementwiseAndBias) { check(elementwise_cases()); }
TEST_P(Conformance, FusedElementwise) { check(fused_elementwise_cases()); }
TEST_P(Conformance, Concat) { check(concat_cases()); }
TEST_P(Conformance, Optimizers) { check(optimizer_cases()); }
TEST_P(Conformance, BatchedGemm) { check(batched_gemm_cases()); }
TEST_P(Conformance, Attention) { check(attention_cases()); }
TEST_P(Conformance, FusedAttention) {
  if (tested_->name() == "cuda") GTEST_SKIP() << "fused attention is not on cuda (the CPU backends and reference have it)";
  check(fused_attention_cases());
}

TEST_P(Conformance, Conv2dMaxPool) { check_conv_max_pool(); }

class LoweringConformance : public ConformanceBase {};
TEST_P(LoweringConformance, Conv2d) { check(conv_cases()); }
TEST_P(LoweringConformance, Conv2dMaxPool) { check_conv_max_pool(); }
TEST_P(LoweringConformance, GemmAndLinear) { check(gemm_linear_cases()); }

class PoolGradientConformance : public ConformanceBase {};
TEST_P(PoolGradientConformance, Pool2d) { check(pool_cases()); }
TEST_P(PoolGradientConformance, Pool2dWithTies) { check(pool_tie_cases()); }

std::vector<std::string> tested_backends() {
  std::vector<std::string> names;
  for (const std::string& name : backend_names())
    if (name != "reference") names.push_back(name);
  return names;
}

std::vector<Variant> default_variants() {
  std::vector<Variant> out;
  for (const std::string& name : tested_backends()) out.push_back({name, {}, name});
  return out;
}

// Every (lowering, threading) pair each backend takes, the default pair aside.
std::vector<Variant> lowering_variants() {
  std::vector<Variant> out;
  for (const std::string& name : tested_backends()) {
    const auto lowerings = conv_lowerings_of(name);
    for (std::size_t i = 0; i < lowerings.size(); ++i)
      for (cpu::Threading t : cpu::threadings_of(lowerings[i])) {
        if (i == 0 && t == cpu::threadings_of(lowerings[i]).front()) continue;  // the default: Backends covers it
        Variant v{name, {}, name + "_" + cpu::conv_lowering_name(lowerings[i]) + "_" + cpu::threading_name(t)};
        v.options.conv_lowering = lowerings[i];
        v.options.threading = t;
        out.push_back(v);
      }
  }
  return out;
}

std::vector<Variant> pool_gradient_variants() {
  std::vector<Variant> out;
  for (const std::string& name : tested_backends()) {
    Variant v{name, {}, name + "_pool_gradient_all"};
    v.options.pool_gradient = PoolGradient::all;
    out.push_back(v);
  }
  return out;
}

std::string param_name(const ::testing::TestParamInfo<Param>& info) {
  return std::get<0>(info.param).label + "_" + dtype_name(std::get<1>(info.param)) + "_t" +
         std::to_string(std::get<2>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Backends, Conformance,
                         ::testing::Combine(::testing::ValuesIn(default_variants()),
                                            ::testing::Values(DType::f32, DType::f64), ::testing::Values(1, 2)),
                         param_name);
INSTANTIATE_TEST_SUITE_P(Lowerings, LoweringConformance,
                         ::testing::Combine(::testing::ValuesIn(lowering_variants()),
                                            ::testing::Values(DType::f32, DType::f64), ::testing::Values(1, 2)),
                         param_name);
INSTANTIATE_TEST_SUITE_P(PoolGradients, PoolGradientConformance,
                         ::testing::Combine(::testing::ValuesIn(pool_gradient_variants()),
                                            ::testing::Values(DType::f32, DType::f64), ::testing::Values(1, 2)),
                         param_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(Conformance);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(LoweringConformance);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(PoolGradientConformance);

// The harness itself must be able to fail: a perturbed, a NaN and a renamed output are
// caught, and an exact output tolerates no difference at all.
TEST(ConformanceHarness, DetectsDifferences) {
  auto kept = [](double v, bool exact = false, const char* name = "y") {
    Tensor t({3}, DType::f64);
    t.data<double>()[0] = 1.0;
    t.data<double>()[1] = v;
    t.data<double>()[2] = -2.0;
    return std::vector<Kept>{{name, t, 4.0, exact}};
  };
  EXPECT_TRUE(compare_kept(kept(0.5), kept(0.5 + 1e-6), DType::f32).empty());  // 1e-6 < 2e-5
  EXPECT_EQ(compare_kept(kept(0.5), kept(0.5 + 1e-4), DType::f32).size(), 1u);
  EXPECT_EQ(compare_kept(kept(0.5), kept(0.5 + 1e-6), DType::f64).size(), 1u);
  EXPECT_EQ(compare_kept(kept(0.5), kept(std::nan("")), DType::f32).size(), 1u);
  EXPECT_EQ(compare_kept(kept(0.5, true), kept(0.5 + 1e-12, true), DType::f64).size(), 1u);
  EXPECT_EQ(compare_kept(kept(0.5), kept(0.5, false, "dx"), DType::f32).size(), 1u);
  EXPECT_EQ(compare_kept(kept(0.5), {}, DType::f32).size(), 1u);
  // Relative to max(1, |ref|): 1e-5 off 1000 is fine, 1e-5 off 0.001 is absolute.
  EXPECT_TRUE(compare_kept(kept(1000.0), kept(1000.0 + 1e-2), DType::f32).empty());
}

// Every case runs on the reference itself and matches itself exactly: the case lists build
// valid shapes for every op, and each keeps at least one output.
TEST(ConformanceHarness, EveryCaseRunsOnTheReference) {
  auto reference = make_backend("reference");
  for (const Case& c : all_cases()) {
    OpRun first(*reference, DType::f32, c.seed), second(*reference, DType::f32, c.seed);
    ASSERT_NO_THROW(c.body(first)) << c.op << " (" << c.shape << ")";
    c.body(second);
    EXPECT_FALSE(first.kept().empty()) << c.op << " (" << c.shape << ")";
    for (std::size_t i = 0; i < first.kept().size(); ++i)
      EXPECT_TRUE(all_near(second.kept()[i].value, first.kept()[i].value, 0.0)) << c.op << " (" << c.shape << ")";
  }
}

}  // namespace
}  // namespace ablate::kernels::test
