// The CPU backends' batch normalisation (kernels/cpu/batch_norm.cpp) splits channels over
// threads, each channel's sums in one fixed order: on a shape large enough to split (64
// channels of 2048 values), 1, 2 and 3 threads give bit-identical statistics, outputs and
// gradients, which match the reference.
#include <gtest/gtest.h>

#include <vector>

#include "kernels/registry.h"
#include "test_tensors.h"

namespace ablate::kernels::test {
namespace {

// y, mean, var of the training forward and dx, dgamma, dbeta of the backward.
std::vector<Tensor> run(Backend& b, int threads) {
  b.set_threads(threads);
  Rng rng(5151);
  const Shape xs{8, 64, 16, 16}, cs{64};
  Tensor x = random_tensor(xs, DType::f32, rng, -1.0, 3.0), dy = random_tensor(xs, DType::f32, rng);
  Tensor gamma = random_tensor(cs, DType::f32, rng, 0.5, 2.0), beta = random_tensor(cs, DType::f32, rng);
  std::vector<Tensor> out = {Tensor(xs, DType::f32), Tensor(cs, DType::f32), Tensor(cs, DType::f32),
                             Tensor(xs, DType::f32), Tensor(cs, DType::f32), Tensor(cs, DType::f32)};
  b.batch_norm_forward_training(x, gamma, beta, 1e-5, out[0], out[1], out[2]);
  b.batch_norm_backward(x, dy, gamma, out[1], out[2], 1e-5, out[3], out[4], out[5]);
  return out;
}

TEST(CpuBatchNorm, SameBitsAtAnyThreadCountAndTheReferenceValues) {
  const char* names[] = {"y", "mean", "var", "dx", "dgamma", "dbeta"};
  auto reference = make_backend("reference");
  const std::vector<Tensor> expected = run(*reference, 1);
  for (const char* backend : {"eigen", "openblas", "onednn"}) {
    auto b = make_backend(backend);
    const std::vector<Tensor> one = run(*b, 1);
    for (std::size_t i = 0; i < one.size(); ++i)
      EXPECT_TRUE(all_near(one[i], expected[i], tolerance(DType::f32, 8 * 16 * 16))) << backend << " " << names[i];
    for (int threads : {2, 3}) {
      const std::vector<Tensor> many = run(*b, threads);
      for (std::size_t i = 0; i < one.size(); ++i)
        EXPECT_TRUE(all_near(many[i], one[i], 0.0)) << backend << " " << threads << " threads: " << names[i];
    }
  }
}

}  // namespace
}  // namespace ablate::kernels::test
