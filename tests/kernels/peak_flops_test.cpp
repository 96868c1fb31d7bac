// The FMA probe's readings (kernels/peak_flops.h): of two readings around a measurement the
// higher at each thread count is kept (another load only slows the probe), readings of two codes
// are refused, and flops_for scales the 2-thread reading.
#include <gtest/gtest.h>

#include <stdexcept>

#include "kernels/peak_flops.h"

namespace ablate::kernels {
namespace {

TEST(PeakFlops, TheHigherReadingAtEachThreadCountIsKept) {
  const PeakFlops before{"avx512", 200.0, 300.0}, after{"avx512", 180.0, 400.0};
  const PeakFlops peak = higher_peak(before, after);
  EXPECT_EQ(peak.isa, "avx512");
  EXPECT_EQ(peak.gflops_1t, 200.0);
  EXPECT_EQ(peak.gflops_2t, 400.0);
  EXPECT_EQ(higher_peak(after, before).gflops_2t, 400.0);
  EXPECT_DOUBLE_EQ(peak.flops_for(1), 200e9);
  EXPECT_DOUBLE_EQ(peak.flops_for(4), 800e9);
  EXPECT_THROW(higher_peak(before, PeakFlops{"avx2", 1.0, 2.0}), std::invalid_argument);
}

}  // namespace
}  // namespace ablate::kernels
