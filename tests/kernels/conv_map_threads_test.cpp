// The CPU backends' connection-table convolution (kernels/cpu/conv_map.cpp) is deterministic:
// on the Torch CIFAR-10 second-layer shape (stride 1: the flat loops) and on a strided, padded
// variant (the row loops), where all three ops split their work over threads, 1, 2 and 3
// threads give bit-identical outputs (each element is one thread's sum in table order).
// Also: a bad table is a clear error naming the row and column.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/registry.h"
#include "test_tensors.h"

namespace ablate::kernels::test {
namespace {

struct Outputs {
  Tensor y, dx, dw, dbias;
};

// 16 -> 64 planes, fan_in 4, 5x5 over 14x14 (or 15x15 with stride 2 and padding 2, when
// `strided`), batch 4, table rows in random order.
Outputs run(Backend& b, int threads, bool strided) {
  b.set_threads(threads);
  Rng rng(77);
  const std::int64_t N = 4, C = 16, K = 64, fan_in = 4, T = K * fan_in;
  Tensor table({T, 2}, DType::i32);
  std::vector<std::int32_t> perm(static_cast<std::size_t>(C));
  std::iota(perm.begin(), perm.end(), 0);
  for (std::int64_t t = 0; t < T; ++t) {
    if (t % C == 0) std::shuffle(perm.begin(), perm.end(), rng);
    table.data<std::int32_t>()[2 * t] = perm[static_cast<std::size_t>(t % C)];
    table.data<std::int32_t>()[2 * t + 1] = static_cast<std::int32_t>((t * 37) % K);  // a permutation of rows
  }
  const std::int64_t in = strided ? 15 : 14, out_size = strided ? 8 : 10;
  const Conv2dParams p = strided ? Conv2dParams{2, 2, 2, 2, 2, 2} : Conv2dParams{};
  Tensor x = random_tensor({N, C, in, in}, DType::f32, rng), w = random_tensor({T, 5, 5}, DType::f32, rng);
  Tensor bias = random_tensor({K}, DType::f32, rng), dy = random_tensor({N, K, out_size, out_size}, DType::f32, rng);
  Outputs out{Tensor({N, K, out_size, out_size}, DType::f32), Tensor({N, C, in, in}, DType::f32),
              Tensor({T, 5, 5}, DType::f32), Tensor({K}, DType::f32)};
  b.conv2d_map_forward(x, w, bias, table, out.y, p);
  b.conv2d_map_backward_data(dy, w, table, out.dx, p);
  b.conv2d_map_backward_weights(x, dy, table, out.dw, out.dbias, p);
  return out;
}

TEST(CpuConvMap, SameBitsAtAnyThreadCount) {
  for (const char* name : {"eigen", "openblas", "onednn"})
    for (bool strided : {false, true}) {
      auto b = make_backend(name);
      const Outputs one = run(*b, 1, strided);
      for (int threads : {2, 3}) {
        const Outputs many = run(*b, threads, strided);
        const std::string what = std::string(name) + (strided ? " strided" : "") + " at " + std::to_string(threads) + " threads";
        EXPECT_TRUE(all_near(many.y, one.y, 0.0)) << what << ": y";
        EXPECT_TRUE(all_near(many.dx, one.dx, 0.0)) << what << ": dx";
        EXPECT_TRUE(all_near(many.dw, one.dw, 0.0)) << what << ": dw";
        EXPECT_TRUE(all_near(many.dbias, one.dbias, 0.0)) << what << ": dbias";
      }
    }
}

TEST(CpuConvMap, ABadTableNamesRowAndColumn) {
  auto b = make_backend("openblas");
  Tensor x({1, 2, 4, 4}, DType::f32), w({2, 3, 3}, DType::f32), y({1, 3, 2, 2}, DType::f32);
  Tensor table({2, 2}, DType::i32);
  const std::int32_t rows[] = {0, 0, 1, 3};  // output plane 3 of 3
  std::copy(rows, rows + 4, table.data<std::int32_t>());
  try {
    b->conv2d_map_forward(x, w, Tensor(), table, y, Conv2dParams{});
    FAIL() << "no error for output plane 3 of 3";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "openblas conv2d_map_forward: table row 1 has output plane 3, expected one in [0, 3)"),
              std::string::npos)
        << e.what();
  }
  Tensor f32_table({2, 2}, DType::f32);
  EXPECT_THROW(b->conv2d_map_forward(x, w, Tensor(), f32_table, y, Conv2dParams{}), std::invalid_argument);
}

}  // namespace
}  // namespace ablate::kernels::test
