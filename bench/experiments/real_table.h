// The table `ablate compare --with-real` prints after the study's table, and its report section:
// per framework, ablate's row and beside it each real path's
//   accuracy | difference in points (ablate - real) | the curve's largest relative difference
//   over the first N steps | training images/s | ratio ablate/real | peak RSS | mean CPU
// A peer not installed is one line with the command that installs it; one that cannot
// reproduce the recipe says which feature; PyTorch standing in for Caffe or Torch7 says so.
#pragma once

#include <string>
#include <vector>

#include "bench/experiments/real_comparison.h"

namespace ablate::bench::experiments {

std::string real_text(const std::vector<RealComparison>& comparisons);
std::string real_markdown(const std::vector<RealComparison>& comparisons);

}  // namespace ablate::bench::experiments
