// Tensor: shapes, views that share storage, clone, conversions, the counting allocator and
// 64-byte alignment.
#include <gtest/gtest.h>

#include <cstdint>
#include <stdexcept>

#include "kernels/tensor.h"

namespace ablate::kernels {
namespace {

TEST(Tensor, ShapeDtypeAndZeroFill) {
  Tensor t({2, 3, 4}, DType::f64);
  EXPECT_EQ(t.ndim(), 3);
  EXPECT_EQ(t.numel(), 24);
  EXPECT_EQ(t.bytes(), 24u * 8);
  EXPECT_EQ(t.dim(-1), 4);
  EXPECT_EQ(t.dim(0), 2);
  EXPECT_THROW(t.dim(3), std::out_of_range);
  EXPECT_EQ(t.describe(), "f64[2, 3, 4]");
  for (std::int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(t.at(i), 0.0);
  EXPECT_THROW(t.data<float>(), std::invalid_argument);
  EXPECT_THROW(Tensor({2, -1}), std::invalid_argument);
  EXPECT_TRUE(Tensor().empty());
}

TEST(Tensor, DtypeNames) {
  for (DType d : {DType::f32, DType::f64, DType::i32, DType::u8}) EXPECT_EQ(parse_dtype(dtype_name(d)), d);
  EXPECT_EQ(dtype_size(DType::u8), 1u);
  EXPECT_THROW(parse_dtype("f16"), std::invalid_argument);
}

TEST(Tensor, ReshapeAndSliceAreViewsOfOneStorage) {
  Tensor t({4, 3});
  for (std::int64_t i = 0; i < 12; ++i) t.set(i, double(i));
  Tensor flat = t.reshaped({12});
  EXPECT_TRUE(flat.same_storage(t));
  flat.set(5, -1.0);
  EXPECT_EQ(t.at(5), -1.0);
  EXPECT_THROW(t.reshaped({5}), std::invalid_argument);

  Tensor rows = t.slice0(1, 3);
  EXPECT_EQ(rows.shape(), (Shape{2, 3}));
  EXPECT_EQ(rows.at(0), 3.0);
  rows.set(1, 100.0);
  EXPECT_EQ(t.at(4), 100.0);
  EXPECT_THROW(t.slice0(2, 5), std::out_of_range);
  EXPECT_THROW(t.slice0(3, 2), std::out_of_range);

  Tensor copy = t;  // a copy shares storage too
  EXPECT_TRUE(copy.same_storage(t));
}

TEST(Tensor, CloneIsDeep) {
  Tensor t({3}, DType::i32);
  t.set(0, 7);
  Tensor c = t.clone();
  EXPECT_FALSE(c.same_storage(t));
  c.set(0, 8);
  EXPECT_EQ(t.at(0), 7.0);
  EXPECT_EQ(c.dtype(), DType::i32);
  EXPECT_TRUE(Tensor().clone().empty());
  // A clone of a slice copies only the slice.
  Tensor big({4, 2});
  for (std::int64_t i = 0; i < 8; ++i) big.set(i, double(i));
  Tensor part = big.slice0(2, 4).clone();
  EXPECT_EQ(part.numel(), 4);
  EXPECT_EQ(part.at(0), 4.0);
}

TEST(Tensor, CopyFromConverts) {
  Tensor f({4}, DType::f32);
  for (std::int64_t i = 0; i < 4; ++i) f.set(i, 1.75 * double(i) - 2.0);  // -2, -0.25, 1.5, 3.25
  Tensor d({2, 2}, DType::f64);
  d.copy_from(f);
  EXPECT_EQ(d.at(1), -0.25);
  Tensor n({4}, DType::i32);
  n.copy_from(f);  // truncates toward zero
  EXPECT_EQ(n.at(0), -2.0);
  EXPECT_EQ(n.at(1), 0.0);
  EXPECT_EQ(n.at(3), 3.0);
  Tensor u({4}, DType::u8);
  u.copy_from(n.reshaped({4}));
  EXPECT_EQ(u.at(3), 3.0);
  Tensor back({4}, DType::f32);
  back.copy_from(u);
  EXPECT_EQ(back.at(3), 3.0);
  // f64 -> f32 rounds to nearest.
  Tensor precise({1}, DType::f64);
  precise.set(0, 0.1);
  Tensor rounded({1}, DType::f32);
  rounded.copy_from(precise);
  EXPECT_EQ(rounded.data<float>()[0], 0.1f);
  EXPECT_THROW(rounded.copy_from(f), std::invalid_argument);
}

TEST(Tensor, AllocatorCountsLiveAndPeakBytes) {
  Allocator& a = cpu_allocator();
  a.reset_peak();
  AllocatorStats before = a.stats();
  {
    Tensor t({1000}, DType::f32);  // 4000 bytes
    AllocatorStats during = a.stats();
    EXPECT_EQ(during.live_bytes, before.live_bytes + 4000);
    EXPECT_EQ(during.allocations, before.allocations + 1);
    EXPECT_GE(during.peak_bytes, before.live_bytes + 4000);
    {
      Tensor view = t.reshaped({10, 100});  // a view allocates nothing
      Tensor u({250}, DType::f64);          // 2000 bytes
      EXPECT_EQ(a.stats().live_bytes, before.live_bytes + 6000);
      EXPECT_EQ(a.stats().allocations, before.allocations + 2);
    }
    AllocatorStats after_inner = a.stats();
    EXPECT_EQ(after_inner.live_bytes, before.live_bytes + 4000);
    EXPECT_EQ(after_inner.deallocations, before.deallocations + 1);
    EXPECT_GE(after_inner.peak_bytes, before.live_bytes + 6000);
  }
  AllocatorStats after = a.stats();
  EXPECT_EQ(after.live_bytes, before.live_bytes);
  EXPECT_EQ(after.deallocations, before.deallocations + 2);
  EXPECT_GE(after.peak_bytes, before.live_bytes + 6000);
  a.reset_peak();
  EXPECT_EQ(a.stats().peak_bytes, a.stats().live_bytes);
}

TEST(Tensor, StorageIsAligned) {
  for (std::int64_t n : {1, 3, 17, 1000, 4097}) {
    Tensor t({n}, DType::u8);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.raw_data()) % 64, 0u) << n;
  }
}

TEST(Tensor, CheckSameShapeNamesTheInput) {
  Tensor a({2, 3}), b({3, 2});
  try {
    check_same_shape(a, b, "conv1 top");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("conv1 top"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("[3, 2]"), std::string::npos);
  }
  EXPECT_NO_THROW(check_same_shape(a, a.clone(), "same"));
}

}  // namespace
}  // namespace ablate::kernels
