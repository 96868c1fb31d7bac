// Grid expansion, identities and arguments of sweep points (see sweep_grid.h).
#include "bench/experiments/sweep_grid.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "bench/run/run_config.h"
#include "bench/run/run_flags.h"
#include "bench/run/text_format.h"

namespace ablate::bench::experiments {

SweepFactor parse_vary(const std::string& text) {
  auto eq = text.find('=');
  if (eq == std::string::npos || eq == 0)
    throw std::invalid_argument("--vary " + text + ": expected KEY=V1,V2,... (e.g. batch=16,64,256)");
  SweepFactor f;
  f.key = text.substr(0, eq);
  if (f.key.rfind("--", 0) == 0) f.key = f.key.substr(2);
  if (f.key == "out" || f.key == "quiet" || !run::find_run_flag(f.key))
    throw std::invalid_argument("--vary " + text + ": '" + f.key +
                                "' is not a run flag that can vary (see ablate run --help; not out or quiet)");
  for (const std::string& v : run::split_list(text.substr(eq + 1))) {
    if (v.empty()) throw std::invalid_argument("--vary " + text + ": an empty value in the list");
    if (std::find(f.values.begin(), f.values.end(), v) != f.values.end())
      throw std::invalid_argument("--vary " + text + ": '" + v + "' is listed twice");
    f.values.push_back(v);
  }
  if (f.values.empty()) throw std::invalid_argument("--vary " + text + ": expected at least one value after '='");
  return f;
}

void check_spec(const SweepSpec& spec) {
  if (spec.repeats < 1) throw std::invalid_argument("--repeats " + std::to_string(spec.repeats) + ": expected at least 1");
  for (std::size_t i = 0; i < spec.factors.size(); ++i) {
    const auto& k = spec.factors[i].key;
    for (std::size_t j = 0; j < i; ++j)
      if (spec.factors[j].key == k) throw std::invalid_argument("--vary " + k + "=...: the factor '" + k + "' is varied twice");
    if (spec.base.count(k))
      throw std::invalid_argument("--vary " + k + "=...: also given as --" + k + " " + spec.base.at(k) + " (give one)");
  }
}

std::vector<SweepPoint> expand(const SweepSpec& spec) {
  std::vector<std::map<std::string, std::string>> grid{{}};
  for (const auto& f : spec.factors) {
    std::vector<std::map<std::string, std::string>> next;
    for (const auto& partial : grid)
      for (const auto& v : f.values) {
        auto p = partial;
        p[f.key] = v;
        next.push_back(std::move(p));
      }
    grid = std::move(next);
  }
  std::vector<SweepPoint> out;
  for (const auto& values : grid)
    for (int r = 0; r < spec.repeats; ++r) out.push_back({values, r});
  return out;
}

std::string base_key(const SweepSpec& spec) {
  std::string key = spec.label;
  for (const auto& [k, v] : spec.base) key += " " + k + "=" + v;
  if (spec.max_iterations > 0) key += " max_iterations=" + std::to_string(spec.max_iterations);
  return key;
}

std::string point_text(const std::map<std::string, std::string>& values) {
  if (values.empty()) return "(defaults)";
  std::string s;
  for (const auto& [k, v] : values) s += (s.empty() ? "" : " ") + k + "=" + v;
  return s;
}

run::Flags point_args(const SweepSpec& spec, const SweepPoint& point) {
  run::Flags a;
  for (const auto& [k, v] : spec.base) a.set(k, v);
  for (const auto& [k, v] : point.values) {
    const run::FlagSpec* o = run::find_run_flag(k);
    if (o && o->metavar.empty()) {  // a flag without a value: on or off
      if (run::parse_switch(v, "--vary " + k)) a.set(k, "true");
      else a.erase(k);
    } else {
      a.set(k, v);
    }
  }
  return a;
}

}  // namespace ablate::bench::experiments
