// Parsing of graph pass specs: "all", "all,-a,-b" or a keep-list "a,b".
#include "bench/run/pass_spec.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "bench/run/text_format.h"
#include "graph/static/passes.h"

namespace ablate::bench::run {

namespace {

bool is_pass_name(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return true;
}

}  // namespace

const std::vector<std::string>& static_pass_names() { return graph::static_graph::pass_names(); }

PassSpec parse_pass_spec(const std::string& text, const std::string& what) {
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(what + " '" + text + "': " + why +
                                 " (expected 'all', 'all,-NAME,...' or a list of passes to keep)");
  };
  const std::vector<std::string> items = split_list(text);
  if (items.empty()) throw bad("empty");
  PassSpec spec;
  spec.keep_all = items[0] == "all";
  for (std::size_t i = spec.keep_all ? 1 : 0; i < items.size(); ++i) {
    std::string name = items[i];
    if (name == "all") throw bad("'all' must come first");
    if (spec.keep_all) {
      if (name.empty() || name[0] != '-') throw bad("'" + name + "' after 'all' must be '-NAME' (a pass to drop)");
      name = name.substr(1);
    } else if (!name.empty() && name[0] == '-') {
      throw bad("'" + name + "' drops a pass but the list does not start with 'all'");
    }
    if (!is_pass_name(name)) throw bad("'" + items[i] + "' is not a pass name (lower case, digits, '_')");
    if (std::find(spec.names.begin(), spec.names.end(), name) != spec.names.end())
      throw bad("'" + name + "' is named twice");
    spec.names.push_back(name);
  }
  return spec;
}

std::vector<std::string> disabled_passes(const PassSpec& spec, const std::vector<std::string>& known,
                                         const std::string& what) {
  if (spec.keep_all) return spec.names;
  for (const auto& name : spec.names)
    if (std::find(known.begin(), known.end(), name) == known.end())
      throw std::invalid_argument(what + ": unknown pass '" + name + "' (the passes: " + join(known, ", ") + ")");
  std::vector<std::string> out;
  for (const auto& name : known)
    if (std::find(spec.names.begin(), spec.names.end(), name) == spec.names.end()) out.push_back(name);
  return out;
}

}  // namespace ablate::bench::run
