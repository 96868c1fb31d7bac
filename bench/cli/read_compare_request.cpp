// `ablate compare`'s first step: every flag of the comparison checked before anything runs
// (the data set, the frameworks, the target, the budget, the report folder, which flags need
// --with-real or --attribute), so that a typo fails at once rather than in every row.
#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "bench/cli/comparison.h"
#include "bench/run/result_record.h"
#include "bench/run/cpu_disturbance.h"
#include "bench/run/run_flags.h"
#include "bench/run/run_timing.h"
#include "bench/run/text_file.h"
#include "bench/run/text_format.h"
#include "bench/run/wait_policy.h"
#include "datasets/dataset_registry.h"

namespace ablate::bench::cli {

namespace {

constexpr double kQuickBudgetS = 480;  // about 8 minutes on the 2-core machine

// --frameworks LIST: some of caffe, torch, tensorflow, theano, each once.
std::vector<std::string> read_frameworks(const run::Flags& args) {
  std::vector<std::string> frameworks = run::split_list(args.get("frameworks", "caffe,torch,tensorflow,theano"));
  if (frameworks.empty()) throw std::invalid_argument("--frameworks '': expected some of caffe, torch, tensorflow, theano");
  for (std::size_t i = 0; i < frameworks.size(); ++i) {
    const auto& known = experiments::compare_frameworks();
    if (std::find(known.begin(), known.end(), frameworks[i]) == known.end())
      throw std::invalid_argument("--frameworks " + args.get("frameworks") + ": '" + frameworks[i] +
                                  "' is not one of caffe, torch, tensorflow, theano");
    if (std::find(frameworks.begin(), frameworks.begin() + static_cast<long>(i), frameworks[i]) != frameworks.begin() + static_cast<long>(i))
      throw std::invalid_argument("--frameworks " + args.get("frameworks") + ": '" + frameworks[i] + "' is named twice");
  }
  return frameworks;
}

// A malformed number in a shared run flag fails before any run, not in every row.
void check_shared_numbers(const run::Flags& args) {
  for (const std::string& name : experiments::shared_run_flags()) {
    const run::FlagSpec* f = run::find_run_flag(name);
    if (!args.has(name) || !f) continue;
    if (f->metavar == "N" && args.get(name) != "all") run::parse_int(args.get(name), "--" + name);
    if (f->metavar == "X") run::parse_double(args.get(name), "--" + name);
  }
}

// --budget quick|full|SECONDS: the seconds the runs may take (0: full, the defaults as they are).
double read_budget_s(const std::string& budget) {
  if (budget == "quick") return kQuickBudgetS;
  if (budget == "full") return 0;
  const double s = run::parse_double(budget, "--budget");
  if (s <= 0) throw std::invalid_argument("--budget " + budget + ": expected quick, full or a positive number of seconds");
  return s;
}

// Flags that only mean something beside another: each given without it is an error.
void check_needs(const run::Flags& args, std::initializer_list<const char*> flags, bool present, const char* needed) {
  for (const char* name : flags)
    if (args.has(name) && !present)
      throw std::invalid_argument(std::string("--") + name + " belongs to " + needed + ", which is not given");
}

}  // namespace

CompareRequest read_compare_request(const run::Flags& args) {
  CompareRequest r;
  run::check_wait_policy_flag(args);  // how threads wait, disturbed runs, waiting for quiet
  r.disturbed_above = run::read_disturbed_above(args);
  r.wait_quiet = run::read_wait_quiet(args);
  r.dataset = args.get("dataset", "fashion-mnist");
  r.family = datasets::dataset_family(r.dataset, args.get("data", ""));  // throws naming an unknown data set
  r.frameworks = read_frameworks(args);
  r.target_accuracy = args.has("target-accuracy") ? args.get_double("target-accuracy", 0) : experiments::default_target(r.dataset);
  if (!(r.target_accuracy >= 0 && r.target_accuracy <= 1))
    throw std::invalid_argument("--target-accuracy " + args.get("target-accuracy") + ": expected an accuracy in [0, 1]");
  r.timing = run::parse_timing(args.get("timing", "uniform"), "--timing");
  args.get_int("seed", 1, 0);  // a malformed seed or thread count fails here, not in every row
  if (args.has("threads")) run::parse_thread_count(args.get("threads"), "--threads");
  check_shared_numbers(args);
  r.budget = args.get("budget", "quick");
  r.budget_s = read_budget_s(r.budget);
  if (args.has("out")) run::check_writable(args.get("out"));
  r.report_dir = args.get("report", "");
  if (!r.report_dir.empty()) std::filesystem::create_directories(r.report_dir);

  r.with_peers = args.has("with-peers");
  r.peer_opts = experiments::peer_options(args);  // a bad --peer-threads fails before any run
  r.with_real = args.has("with-real");
  r.attribute = args.has("attribute");
  check_needs(args, {"curve-steps", "peers-dir", "real-paths", "real-rounds", "real-seconds", "attribute"}, r.with_real,
              "--with-real");
  r.attribution_opts = experiments::attribution_options(args);
  check_needs(args, {"rounds", "attribute-seconds", "attribute-method", "attribute-warmup", "attribute-factors"},
              r.attribute, "--attribute");
  if (r.attribute && r.frameworks.size() != 1)
    throw std::invalid_argument("--attribute accounts for one framework at a time; --frameworks " +
                                args.get("frameworks", "caffe,torch,tensorflow,theano") + " names " +
                                std::to_string(r.frameworks.size()));
  return r;
}

}  // namespace ablate::bench::cli
