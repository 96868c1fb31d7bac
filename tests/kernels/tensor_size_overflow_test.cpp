// Element and byte counts that do not fit (found by fuzz/model_spec_fuzzer: the product of a
// shape overflowed int64): shape_numel must throw naming the shape, and a Tensor whose bytes
// would wrap size_t must not be created (it used to allocate 64 bytes for 2^61 doubles).
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>
#include <string>

#include "kernels/tensor.h"

namespace ablate::kernels {
namespace {

TEST(TensorSizeOverflow, ShapeNumelPastInt64Throws) {
  const Shape shape = {std::int64_t{1} << 32, std::int64_t{1} << 32};
  try {
    shape_numel(shape);
    ADD_FAILURE() << "no error for " << shape_string(shape);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("[4294967296, 4294967296] has more than 2^63 - 1 elements"),
              std::string::npos)
        << e.what();
  }
  const std::int64_t big = std::int64_t{1} << 31;
  EXPECT_EQ(shape_numel({big, big}), std::int64_t{1} << 62);
  EXPECT_THROW(shape_numel({big, big, 2}), std::invalid_argument);  // 2^63
}

TEST(TensorSizeOverflow, ZeroDimensionStillGivesZero) {
  EXPECT_EQ(shape_numel({0, std::int64_t{1} << 62, 4}), 0);
}

TEST(TensorSizeOverflow, BytesPastSizeTAreRefused) {
  for (DType dtype : {DType::f64, DType::f32}) {
    try {
      Tensor t({std::int64_t{1} << 61, 2}, dtype);
      ADD_FAILURE() << "created " << t.describe();
    } catch (const std::length_error& e) {
      EXPECT_NE(std::string(e.what()).find("[2305843009213693952, 2] would need more than 2^63 bytes"),
                std::string::npos)
          << e.what();
    }
  }
}

}  // namespace
}  // namespace ablate::kernels
