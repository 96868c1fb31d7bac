// The `stepvalues` list of Caffe's multistep learning-rate policy ("5000,7000,8000"):
// parsed once here for both validate() and learning_rate().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ablate::graph {

// Comma-separated non-negative iterations in strictly increasing order (Caffe requires
// increasing step values); spaces around entries are allowed. Throws std::invalid_argument
// naming the list and the bad entry.
std::vector<std::int64_t> parse_step_values(const std::string& text);

}  // namespace ablate::graph
