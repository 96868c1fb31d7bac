// The per-layer plan's key and file (declared in layer_plan.h): what a cached plan must match,
// and the text file a plan is written to, read from and replayed.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "bench/run/layer_plan.h"
#include "bench/run/text_file.h"
#include "bench/run/text_format.h"

namespace ablate::bench::run {

namespace {

// The key's fields by name, in the file's order.
std::vector<std::pair<std::string, std::string>> key_fields(const PlanKey& k) {
  return {{"cpu_model", k.cpu_model}, {"threads", std::to_string(k.threads)}, {"model", k.model},
          {"shapes", k.shapes},       {"dtype", k.dtype},                     {"strategy", k.strategy},
          {"passes", k.passes},       {"threading", k.threading},             {"version", k.version}};
}

}  // namespace

std::string plan_key_difference(const PlanKey& plan, const PlanKey& run) {
  std::vector<std::string> differences;
  const auto a = key_fields(plan), b = key_fields(run);
  for (std::size_t i = 0; i < a.size(); ++i)
    if (a[i].second != b[i].second)
      differences.push_back(a[i].first + " '" + a[i].second + "' in the plan, '" + b[i].second + "' in this run");
  return join(differences, "; ");
}

void write_plan_file(const LayerPlan& plan, const std::string& path) {
  std::ostringstream out;
  out << "# ablate layer plan (docs/plan.md): the backend of each layer, timed on this key\n";
  out << "ablate-plan 1\n";
  for (const auto& [name, value] : key_fields(plan.key)) out << name << " " << value << "\n";
  out << "rounds " << plan.rounds << "\n";
  out << "fallback " << plan.fallback.label() << "\n";
  if (!plan.candidates.empty()) {
    out << "candidates";
    for (const PlanChoice& c : plan.candidates) out << " " << c.label();
    out << "\n";
  }
  char buffer[32];
  for (const LayerPlan::Row& r : plan.rows) {
    out << "layer " << r.layer << " " << r.choice.label();
    for (double s : r.seconds) {
      std::snprintf(buffer, sizeof buffer, " %.6g", s);
      out << buffer;
    }
    out << "\n";
  }
  write_text_file(path, out.str(), "plan");
}

LayerPlan read_plan_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("plan file '" + path + "': cannot be read");
  LayerPlan plan;
  std::string line;
  int number = 0;
  bool header = false, has_fallback = false;
  std::map<std::string, bool> seen;
  auto fail = [&](const std::string& what) {
    throw std::invalid_argument(path + ":" + std::to_string(number) + ": " + what);
  };
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    const std::size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos || line[first] == '#') continue;
    std::istringstream words(line.substr(first));
    std::string key;
    words >> key;
    std::string rest;
    std::getline(words >> std::ws, rest);
    if (!header) {
      if (key != "ablate-plan") fail("expected the header 'ablate-plan 1', got '" + line + "'");
      if (rest != "1") fail("plan format '" + rest + "' is not known (this ablate reads format 1)");
      header = true;
      continue;
    }
    if (key != "layer" && seen[key]) fail("'" + key + "' given twice");
    seen[key] = true;
    const std::string where = path + ":" + std::to_string(number);
    if (key == "cpu_model") plan.key.cpu_model = rest;
    else if (key == "model") plan.key.model = rest;
    else if (key == "shapes") plan.key.shapes = rest;
    else if (key == "dtype") plan.key.dtype = rest;
    else if (key == "strategy") plan.key.strategy = rest;
    else if (key == "threading") plan.key.threading = rest;
    else if (key == "passes") plan.key.passes = rest;
    else if (key == "version") plan.key.version = rest;
    else if (key == "threads" || key == "rounds") {
      int value = 0;
      try {
        std::size_t used = 0;
        value = std::stoi(rest, &used);
        if (used != rest.size()) throw std::invalid_argument(rest);
      } catch (const std::exception&) {
        fail(key + " '" + rest + "': expected a whole number");
      }
      if (value < (key == "threads" ? 1 : 0)) fail(key + " " + rest + ": expected a count of at least " + (key == "threads" ? "1" : "0"));
      (key == "threads" ? plan.key.threads : plan.rounds) = value;
    } else if (key == "fallback") {
      plan.fallback = parse_plan_choice(rest, where);
      has_fallback = true;
    } else if (key == "candidates") {
      std::istringstream items(rest);
      for (std::string item; items >> item;) plan.candidates.push_back(parse_plan_choice(item, where));
    } else if (key == "layer") {
      std::istringstream items(rest);
      LayerPlan::Row row;
      std::string choice;
      if (!(items >> row.layer >> choice)) fail("expected 'layer NAME BACKEND[/LOWERING[/THREADING]] [seconds...]', got '" + line + "'");
      if (plan.row(row.layer)) fail("layer '" + row.layer + "' planned twice");
      row.choice = parse_plan_choice(choice, where);
      for (std::string s; items >> s;) {
        try {
          std::size_t used = 0;
          row.seconds.push_back(std::stod(s, &used));
          if (used != s.size() || !(row.seconds.back() >= 0)) throw std::invalid_argument(s);
        } catch (const std::exception&) {
          fail("layer '" + row.layer + "': time '" + s + "' is not a number of seconds");
        }
      }
      if (!row.seconds.empty() && row.seconds.size() != plan.candidates.size())
        fail("layer '" + row.layer + "' has " + std::to_string(row.seconds.size()) + " times but the plan names " +
             std::to_string(plan.candidates.size()) + " candidates (give one time per candidate, or none)");
      plan.rows.push_back(std::move(row));
    } else {
      fail("unknown entry '" + key + "' (known: cpu_model, threads, model, shapes, dtype, strategy, passes, threading, version, "
           "rounds, fallback, candidates, layer)");
    }
  }
  auto fail_file = [&](const std::string& what) { throw std::invalid_argument(path + ": " + what); };
  if (!header) fail_file("empty plan file: expected the header 'ablate-plan 1'");
  if (!has_fallback) fail_file("no 'fallback' entry: the backend for ops of no layer is needed");
  if (plan.rows.empty()) fail_file("no 'layer' entry: a plan names at least one layer");
  return plan;
}

std::optional<LayerPlan> load_cached_plan(const std::string& path, const PlanKey& key, std::string& why) {
  if (!std::filesystem::exists(path)) {
    why = "no cached plan at " + path;
    return std::nullopt;
  }
  LayerPlan plan;
  try {
    plan = read_plan_file(path);
  } catch (const std::exception& e) {
    why = std::string("cached plan not used: ") + e.what();
    return std::nullopt;
  }
  const std::string difference = plan_key_difference(plan.key, key);
  if (!difference.empty()) {
    why = "cached plan " + path + " not used: " + difference;
    return std::nullopt;
  }
  why.clear();
  return plan;
}

}  // namespace ablate::bench::run
