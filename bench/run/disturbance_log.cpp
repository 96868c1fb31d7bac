// The disturbed measurements of a benchmark command and the line that names them (disturbance_log.h).
#include "bench/run/disturbance_log.h"

#include <algorithm>

#include "bench/run/text_format.h"

namespace ablate::bench::run {

void DisturbanceLog::add(const std::string& what, const Disturbance& d) { entries_.push_back({what, d}); }

int DisturbanceLog::disturbed() const {
  return static_cast<int>(std::count_if(entries_.begin(), entries_.end(),
                                        [&](const Entry& e) { return is_disturbed(e.d, threshold_); }));
}

std::string DisturbanceLog::summary() const {
  const std::string limit = number(threshold_) + " cores";
  std::vector<std::string> named;
  double most_others = 0, most_steal = 0;
  bool known = false;
  for (const Entry& e : entries_) {
    known = known || e.d.known;
    most_others = std::max(most_others, e.d.others_cores);
    most_steal = std::max(most_steal, e.d.steal_cores);
    if (is_disturbed(e.d, threshold_))
      named.push_back(e.what + " (others " + fmt("%.2f", e.d.others_cores) + " cores, steal " +
                      fmt("%.2f", e.d.steal_cores) + ")");
  }
  if (!known) return "others' CPU unknown (/proc/stat unreadable): no measurement can be flagged as disturbed";
  if (named.empty())
    return "no measurement disturbed: others used at most " + fmt("%.2f", most_others) + " cores (threshold " + limit +
           "), steal at most " + fmt("%.2f", most_steal);
  return "DISTURBED (others above " + limit + "): " + std::to_string(named.size()) + " of " +
         std::to_string(entries_.size()) + " measurements: " + join(named, ", ");
}

}  // namespace ablate::bench::run
