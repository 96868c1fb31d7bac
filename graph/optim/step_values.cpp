// Parses Caffe's multistep `stepvalues` list.
#include "graph/optim/step_values.h"

#include <stdexcept>

namespace ablate::graph {

namespace {
std::string trim(const std::string& s) {
  auto begin = s.find_first_not_of(" \t");
  if (begin == std::string::npos) return "";
  auto end = s.find_last_not_of(" \t");
  return s.substr(begin, end - begin + 1);
}
}  // namespace

std::vector<std::int64_t> parse_step_values(const std::string& text) {
  std::vector<std::int64_t> values;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t comma = text.find(',', start);
    if (comma == std::string::npos) comma = text.size();
    std::string entry = trim(text.substr(start, comma - start));
    std::size_t used = 0;
    std::int64_t value = -1;
    try {
      value = std::stoll(entry, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (entry.empty() || used != entry.size() || value < 0)
      throw std::invalid_argument("lr stepvalues '" + text + "': entry '" + entry +
                                  "' is not a non-negative iteration count");
    if (!values.empty() && value <= values.back())
      throw std::invalid_argument("lr stepvalues '" + text + "': " + std::to_string(value) +
                                  " does not exceed the previous value " + std::to_string(values.back()) +
                                  "; expected strictly increasing iterations");
    values.push_back(value);
    start = comma + 1;
  }
  return values;
}

}  // namespace ablate::graph
