// The median of repeated measurements in which a sample may have failed. A failed sample is
// NaN (kFailedSample) and is counted, never dropped: the median is taken over the samples that
// succeeded, and the count of failures travels with it so that every table can show it
// ("1234 (1 of 3 failed)"); when every sample failed the median is NaN, shown as a gap.
// Shared by `ablate bench` (its rounds) and `ablate compare --attribute` (its interleaved rounds).
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <vector>

namespace ablate::bench::experiments {

inline constexpr double kFailedSample = std::numeric_limits<double>::quiet_NaN();

struct Median {
  double value = kFailedSample;  // NaN when no sample succeeded
  std::size_t samples = 0, failed = 0;
  bool ok() const { return failed < samples; }
};

// Samples that are NaN, infinite or (with `positive`) not above 0 count as failed.
Median median_of(const std::vector<double>& samples, bool positive = true);

// "1234" with printf `format`, "1234 (1 of 3 failed)", or "failed (3 of 3)"; "-" with no sample.
std::string median_text(const Median& m, const char* format = "%.0f");

}  // namespace ablate::bench::experiments
