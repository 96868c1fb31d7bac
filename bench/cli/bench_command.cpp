// `ablate bench`: training images/s of one model for every backend at each thread count,
// measured side by side in one run (rounds interleave the configurations, so a change in
// the shared machine's clock hits all of them), reported as medians of the repeats.
// With --with-pytorch, PyTorch (bench/peers/pytorch_train.py by Debian's python3-torch, or by
// --peer-python: the PyTorch 2.x environment's interpreter)
// trains the same model file with the same batch and threads in each round: the yardstick;
// with --with-real, the real frameworks too (real_peers.h: PyTorch 2.x, TensorFlow's two paths,
// Theano), each on its own synthetic data in its speed mode. The row "plan" (--backends ...,plan)
// is a backend per layer (bench/run/plan_measure.h), measured once per thread count before the
// rounds (its start-up time printed) and replayed in every round.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "bench/run/disturbance_log.h"
#include "bench/run/environment.h"
#include "bench/run/flags.h"
#include "bench/run/pass_spec.h"
#include "bench/run/plan_measure.h"
#include "bench/run/wait_policy.h"
#include "bench/run/text_format.h"
#include "bench/cli/commands.h"
#include "bench/experiments/peer_process.h"
#include "bench/experiments/peer_runner.h"
#include "bench/experiments/real_comparison.h"
#include "bench/experiments/real_peers.h"
#include "bench/experiments/sample_median.h"
#include "datasets/synthetic.h"
#include "datasets/transforms.h"
#include "graph/engine.h"
#include "kernels/backend_options.h"
#include "kernels/peak_flops.h"
#include "kernels/registry.h"
#include "models/flops.h"
#include "models/model_spec.h"

namespace ablate::bench::cli {

namespace {

// The median images/s of a row's rounds, 0 when none succeeded (a failed round is counted and
// shown beside the figure by the table, never dropped silently: sample_median.h).
double median(const std::vector<double>& v) {
  const experiments::Median m = experiments::median_of(v);
  return m.ok() ? m.value : 0;
}

struct Workload {
  models::ModelSpec spec;
  std::vector<kernels::Tensor> xs, labels;
};

Workload make_workload(const std::string& model, std::int64_t batch, kernels::DType dtype) {
  Workload w;
  w.spec = models::load_model(model);
  const auto& s = w.spec.input_shape;
  const int distinct = 4;
  auto set = datasets::make_synthetic(batch * distinct, s[0], s[1], s[2], w.spec.classes, 7);
  auto transform = datasets::scale_transform(1.0 / 255);
  for (int b = 0; b < distinct; ++b) {
    kernels::Tensor x({batch, s[0], s[1], s[2]}, dtype), y({batch}, kernels::DType::i32);
    std::vector<std::int64_t> idx(static_cast<std::size_t>(batch));
    for (std::int64_t i = 0; i < batch; ++i) {
      idx[static_cast<std::size_t>(i)] = b * batch + i;
      y.data<std::int32_t>()[i] = set.labels[static_cast<std::size_t>(b * batch + i)];
    }
    transform.apply(set, idx.data(), batch, 0, x);
    w.xs.push_back(x);
    w.labels.push_back(y);
  }
  return w;
}

// The backend of one row: `threads`, and --onednn-conv-layout on the onednn row when given.
std::unique_ptr<kernels::Backend> bench_backend(const std::string& name, int threads,
                                                const std::optional<kernels::onednn::ConvLayout>& layout) {
  kernels::BackendOptions options;
  options.threads = threads;
  if (name == "onednn") options.onednn_conv_layout = layout;
  return kernels::make_backend(name, options);
}

// The training recipe of every row: Caffe's SGD with momentum and weight decay.
graph::OptimizerConfig bench_optimizer() {
  graph::OptimizerConfig o;
  o.type = "caffe_sgd";
  o.lr.base_lr = 0.01;
  o.momentum = 0.9;
  o.weight_decay = 5e-4;
  return o;
}

// The row "plan": its backend settings, run configuration and the plan measured for them.
struct BenchPlan {
  run::RunConfig config;
  run::LayerPlan plan;
};
BenchPlan measure_bench_plan(const Workload& w, int threads, const std::string& strategy, kernels::DType dtype,
                             std::int64_t batch, const std::vector<std::string>& disabled_passes, bool blocked_layout) {
  BenchPlan p;
  run::RunConfig& c = p.config;
  c.backend.name = kernels::cpu_speed_backend_names().front();  // the fallback: ops of no layer
  c.backend.options.threads = threads;
  c.strategy = strategy;
  c.precision = dtype;
  c.batch = batch;
  c.optimizer = bench_optimizer();
  c.switches.disabled_passes = disabled_passes;
  c.switches.blocked_layout = blocked_layout;
  p.plan = run::measure_plan(c, w.spec);
  return p;
}

double measure_ablate(const Workload& w, const std::string& backend_name, int threads, const std::string& strategy,
                      kernels::DType dtype, std::int64_t batch, std::int64_t warmup, std::int64_t iterations,
                      const std::vector<std::string>& disabled_passes, bool blocked_layout,
                      const std::optional<kernels::onednn::ConvLayout>& layout, const BenchPlan* plan = nullptr) {
  auto backend = plan ? run::make_planned_backend(plan->plan, w.spec, plan->config.backend, run::ops_one_at_a_time(plan->config))
                      : bench_backend(backend_name, threads, layout);
  graph::EngineOptions options;
  options.disabled_passes = disabled_passes;  // static strategy: --passes
  options.blocked_layout = blocked_layout;    // layer-wise and dynamic strategies: --blocked-layout
  options.dtype = dtype;
  options.batch = batch;
  options.optimizer = bench_optimizer();
  auto engine = graph::make_engine(strategy, w.spec, *backend, options);
  std::size_t k = 0;
  for (std::int64_t i = 0; i < warmup; ++i, ++k) engine->train_step(w.xs[k % w.xs.size()], w.labels[k % w.xs.size()], i);
  backend->synchronize();
  auto t0 = std::chrono::steady_clock::now();
  for (std::int64_t i = 0; i < iterations; ++i, ++k)
    engine->train_step(w.xs[k % w.xs.size()], w.labels[k % w.xs.size()], warmup + i);
  backend->synchronize();
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return static_cast<double>(iterations * batch) / s;
}

// One peer of the rounds: Debian's PyTorch (--with-pytorch, the row "pytorch") or a real
// framework's path (--with-real: "pytorch-2.x", "tensorflow-eigen", "tensorflow-onednn", "theano").
struct BenchPeer {
  std::string row;
  std::function<experiments::PeerProcessOutput(const std::vector<std::string>& args)> run;
  std::string version = "?";
  std::string libraries;       // "blas mkl, oneDNN 3.13.3" when the peer's line says (blas=, onednn=)
  std::string not_comparable;  // set by the first round: the peer is left out of the others
  bool on_gpu = false;         // --peer-device cuda: no share of the CPU's peak
};

// The speed-mode arguments every peer script takes (pytorch_train.py ignores the optimizer ones:
// its speed mode is this SGD already).
std::vector<std::string> speed_arguments(const std::string& model_file, int threads, std::int64_t batch, std::int64_t warmup,
                                         std::int64_t iterations, kernels::DType dtype) {
  return {"--model", model_file, "--threads", std::to_string(threads), "--batch", std::to_string(batch), "--warmup",
          std::to_string(warmup), "--iterations", std::to_string(iterations), "--precision", kernels::dtype_name(dtype),
          "--optimizer", "caffe_sgd", "--base-lr", "0.01", "--momentum", "0.9", "--weight-decay", "0.0005"};
}

// images/s from the speed-mode line `<framework>=<version> ... images_per_s=X`; 0 when the peer
// cannot run the model (exit 3: its reason goes to not_comparable); throws on a failure.
double measure_peer(BenchPeer& peer, const std::vector<std::string>& args) {
  const experiments::PeerProcessOutput r = peer.run(args);
  const std::string& output = r.output;
  if (r.exit_code == 3 && output.find("peer_not_comparable:") != std::string::npos) {
    const auto at = output.rfind("peer_not_comparable:") + 20;
    peer.not_comparable = output.substr(at, output.find('\n', at) - at);
    peer.not_comparable.erase(0, peer.not_comparable.find_first_not_of(' '));
    return 0;
  }
  auto pos = output.rfind("images_per_s=");
  if (r.exit_code != 0 || pos == std::string::npos)
    throw std::runtime_error(peer.row + " failed (" + r.command + "):\n" + output);
  const auto line = output.rfind('\n', pos) == std::string::npos ? 0 : output.rfind('\n', pos) + 1;
  const auto eq = output.find('=', line);
  peer.version = output.substr(eq + 1, output.find_first_of(" \n", eq) - eq - 1);
  const std::string result_line = output.substr(line, output.find('\n', line) - line);
  peer.libraries.clear();
  for (const auto& [key, name] : {std::pair{"blas=", "blas "}, std::pair{"onednn=", "oneDNN "}, std::pair{"gpu=", "GPU "}})
    if (const auto at = result_line.find(std::string(" ") + key); at != std::string::npos) {
      const auto from = at + 1 + std::string(key).size();
      peer.libraries += (peer.libraries.empty() ? "" : ", ") + std::string(name) +
                        result_line.substr(from, result_line.find(' ', from) - from);
    }
  return std::stod(output.substr(pos + 13));
}

// The peers of --with-pytorch and --with-real; a real framework not installed is named and left out.
std::vector<BenchPeer> bench_peers(const run::Flags& args) {
  std::vector<BenchPeer> peers;
  if (args.has("with-pytorch")) {
    const std::string python = experiments::peer_python(args.get("peer-python", ""));
    const std::string script = args.get("peer-script", experiments::default_peer_script());
    const bool as_installed = args.has("peer-as-installed");
    const std::string device = args.get("peer-device", "cpu");
    if (device != "cpu" && device != "cuda")
      throw std::invalid_argument("--peer-device " + device + ": expected cpu or cuda");
    peers.push_back({"pytorch", [python, script, as_installed, device](std::vector<std::string> a) {
                       a.insert(a.end(), {"--device", device});
                       return experiments::run_peer_script(python, script, a, as_installed);
                     },
                     "?", "", "", device == "cuda"});
  } else if (args.has("peer-device")) {
    throw std::invalid_argument("--peer-device belongs to --with-pytorch, which is not given");
  }
  for (const char* needs_real : {"peers-dir", "real-paths"})
    if (args.has(needs_real) && !args.has("with-real"))
      throw std::invalid_argument(std::string("--") + needs_real + " belongs to --with-real, which is not given");
  if (!args.has("with-real")) return peers;
  const experiments::RealOptions real = experiments::real_options(args);  // --peers-dir, --real-paths
  const std::string dir = real.peers_dir;
  for (const std::string name : {"pytorch", "tensorflow", "theano"}) {
    const experiments::RealPeer& peer = experiments::real_peer(name);
    if (const std::string missing = experiments::peer_missing(peer, dir); !missing.empty()) {
      std::printf("%s: not installed (%s)\n", peer.title.c_str(), missing.c_str());
      continue;
    }
    for (const experiments::PeerPath& path : experiments::chosen_paths(peer, real.paths))
      peers.push_back({name == "pytorch" ? "pytorch-2.x" : path.name.empty() ? name : name + "-" + path.name,
                       [&peer, path, dir](const std::vector<std::string>& a) {
                         return experiments::run_real_peer(peer, path, dir, a);
                       },
                       "?", "", ""});
  }
  return peers;
}

// End-to-end share of the machine's peak: each row's median images/s times the model's
// FLOPs per training image (models/flops.h: convolutions and fully connected layers, 3 x forward)
// over the FMA probe's FLOP/s at that thread count (kernels/peak_flops.h): the higher of its
// readings before and after the rounds (higher_peak), both shown where they differ by over 10%.
void print_peak_shares(const std::vector<std::string>& rows, const std::vector<int>& thread_counts,
                       const std::map<std::pair<std::string, int>, std::vector<double>>& samples, double flops_per_image,
                       const kernels::PeakFlops& before, const kernels::PeakFlops& after) {
  const kernels::PeakFlops peak = kernels::higher_peak(before, after);
  std::printf("share of the FMA probe's peak (%.2f MFLOP per training image; probe %s: %.0f GFLOP/s on 1 thread, %.0f on 2):\n",
              flops_per_image / 1e6, peak.isa.c_str(), peak.gflops_1t, peak.gflops_2t);
  for (const auto& row : rows) {
    std::string line;
    for (int t : thread_counts) {
      const auto it = samples.find({row, t});
      if (it == samples.end() || it->second.empty() || median(it->second) <= 0) continue;  // not run or not comparable
      line += run::fmt("  %12.0f%%", 100 * median(it->second) * flops_per_image / peak.flops_for(t));
    }
    if (!line.empty()) std::printf("%-18s%s\n", row.c_str(), line.c_str());
  }
  auto apart = [](double a, double b) { return std::max(a, b) > 1.1 * std::min(a, b); };
  if (apart(before.gflops_1t, after.gflops_1t) || apart(before.gflops_2t, after.gflops_2t))
    std::printf("(the probe read %.0f / %.0f GFLOP/s on 1 / 2 threads before the rounds and %.0f / %.0f after: the "
                "higher is taken: the lower was slowed, by another load or a lower clock)\n",
                before.gflops_1t, before.gflops_2t, after.gflops_1t, after.gflops_2t);
  if (peak.gflops_2t < 1.5 * peak.gflops_1t)
    std::printf("(the probe's 2 threads reached only %.2fx of 1: another load held a core, so the 2-thread shares are unreliable)\n",
                peak.gflops_2t / peak.gflops_1t);
}

int bench_main(const run::Flags& args) {
  run::check_wait_policy_flag(args);  // how threads wait, disturbed rounds, waiting for quiet
  run::DisturbanceLog disturbances(run::read_disturbed_above(args));
  const double wait_quiet = run::read_wait_quiet(args);
  std::string model = args.get("model", "lenet");
  std::int64_t batch = args.get_int("batch", 64, 1);
  std::int64_t warmup = args.get_int("warmup", 3, 0);
  std::int64_t iterations = args.get_int("iterations", 30, 1);
  std::int64_t repeats = args.get_int("repeats", 5, 1);
  std::string strategy = args.get("strategy", "layerwise");
  // --passes (static only): each pass's effect on time, as `ablate run --passes`.
  const std::string passes = args.get("passes", "all");
  if (args.has("passes") && strategy != "static")
    throw std::invalid_argument("--passes " + passes + ": the graph passes are the static strategy's; --strategy is " + strategy);
  const std::vector<std::string> disabled_passes =
      run::disabled_passes(run::parse_pass_spec(passes, "--passes"), run::static_pass_names(), "--passes");
  for (const std::string& name : disabled_passes)  // before any timing
    if (std::find(run::static_pass_names().begin(), run::static_pass_names().end(), name) == run::static_pass_names().end())
      throw std::invalid_argument("--passes " + passes + ": unknown pass '" + name + "' (the passes: " +
                                  run::join(run::static_pass_names(), ", ") + ")");
  kernels::DType dtype = kernels::parse_dtype(args.get("precision", "f32"));
  // --blocked-layout (layer-wise and dynamic): channel-blocked activations, as `ablate run --blocked-layout`.
  const bool blocked_layout = args.has("blocked-layout") && run::parse_switch(args.get("blocked-layout"), "--blocked-layout");
  if (blocked_layout && strategy != "layerwise" && strategy != "dynamic")
    throw std::invalid_argument("--blocked-layout on: the layer-wise and dynamic strategies' switch; --strategy is " +
                                strategy + " (the static strategy's is its blocked_layout pass, --passes)");
  // --huge-pages: every row's tensors (and the plan's measurement) under one allocator policy.
  const kernels::HugePages huge_pages = kernels::parse_huge_pages(args.get("huge-pages", "system"), "--huge-pages");
  kernels::set_host_huge_pages(huge_pages);
  std::vector<std::string> backends;
  if (args.has("backends")) {
    backends = run::split_list(args.get("backends"), true);
  } else {
    for (const auto& b : kernels::backend_names()) {  // every backend this machine can run
      try {
        kernels::make_backend(b, 1);
        backends.push_back(b);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "skipping backend %s: %s\n", b.c_str(), e.what());
      }
    }
  }
  std::vector<int> thread_counts;
  for (const auto& t : run::split_list(args.get("threads", "1,2"), true)) {
    thread_counts.push_back(run::parse_thread_count(t, "--threads"));
    run::warn_if_oversubscribed(thread_counts.back(), "--threads");
  }
  for (const auto& b : backends)
    if (b != "plan") kernels::make_backend(b, 1);  // an unknown name fails before any timing
  std::optional<kernels::onednn::ConvLayout> layout;  // --onednn-conv-layout: the onednn row's convolution layout
  if (args.has("onednn-conv-layout")) {
    layout = kernels::parse_conv_layout(args.get("onednn-conv-layout"));
    if (std::find(backends.begin(), backends.end(), "onednn") == backends.end())
      throw std::invalid_argument("--onednn-conv-layout " + args.get("onednn-conv-layout") +
                                  ": an option of the onednn backend, which --backends does not list");
  }
  std::vector<BenchPeer> peers = bench_peers(args);
  const std::unique_ptr<experiments::TempDir> peer_dir =
      peers.empty() ? nullptr : std::make_unique<experiments::TempDir>("ablate-bench-peer");
  const std::string peer_model = peers.empty() ? "" : experiments::model_file_for_peer(model, peer_dir->path());

  Workload w = make_workload(model, batch, dtype);
  const double flops_per_image = models::model_flops(w.spec, batch).training_step() / static_cast<double>(batch);
  const kernels::PeakFlops peak = kernels::measure_peak_flops();  // before the rounds (and again after them)
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  std::printf("%s training images/s, batch %lld, %s strategy%s, %s; median of %lld rounds of %lld iterations "
              "(after %lld warm-up)\nOPENBLAS_CORETYPE=%s\n",
              w.spec.name.c_str(), static_cast<long long>(batch), strategy.c_str(),
              strategy == "static" ? (" (passes " + passes + ")").c_str() : "", kernels::dtype_name(dtype),
              static_cast<long long>(repeats), static_cast<long long>(iterations), static_cast<long long>(warmup),
              coretype ? coretype : "(unset)");
  std::printf("compiled for: %s\n", run::compiled_for().c_str());
  if (!coretype && (std::find(backends.begin(), backends.end(), "openblas") != backends.end() ||
                    std::find(backends.begin(), backends.end(), "plan") != backends.end()))
    if (const std::string warning = run::openblas_core_warning(); !warning.empty()) std::printf("warning: %s\n", warning.c_str());
  const run::WaitPolicyChoice wait = run::wait_policy_choice();
  std::printf("threads wait: %s (%s)\n", wait.policy.c_str(), wait.source.c_str());
  std::printf("huge pages: %s (kernel's transparent huge pages: %s)\n", kernels::huge_pages_name(huge_pages),
              kernels::transparent_huge_pages_mode().c_str());
  if (layout) std::printf("onednn convolution layout: %s\n", kernels::onednn::conv_layout_name(*layout));
  std::fflush(stdout);

  std::map<int, BenchPlan> plans;  // the row "plan": one per thread count, measured before the rounds
  if (std::find(backends.begin(), backends.end(), "plan") != backends.end())
    for (int t : thread_counts) {
      plans[t] = measure_bench_plan(w, t, strategy, dtype, batch, disabled_passes, blocked_layout);
      std::printf("plan at %d thread(s), measured in %.2f s (start-up, outside the rounds):\n%s", t,
                  plans[t].plan.measure_seconds, plans[t].plan.table().c_str());
      std::fflush(stdout);
    }

  std::map<std::pair<std::string, int>, std::vector<double>> samples;
  for (std::int64_t r = 0; r < repeats; ++r) {
    const std::string round = " round " + std::to_string(r + 1);  // quiet wait, disturbance per measurement
    if (wait_quiet > 0) {
      std::printf("round %lld: %s\n", static_cast<long long>(r + 1),
                  run::quiet_wait_text(run::wait_for_quiet(wait_quiet, run::disturbed_above()), wait_quiet).c_str());
      std::fflush(stdout);
    }
    for (const auto& b : backends) {
      double single = -1;  // a backend that ignores the thread setting (reference) is measured once
      for (int t : thread_counts) {
        const bool ignores_threads = b != "plan" && kernels::make_backend(b, t)->threads() != t;
        if (ignores_threads && single >= 0) {
          samples[{b, t}].push_back(single);
          continue;
        }
        double ips = run::measured_with(disturbances, b + " " + std::to_string(t) + " thr" + round, [&] {
          return measure_ablate(w, b, t, strategy, dtype, batch, warmup, iterations, disabled_passes, blocked_layout, layout,
                                b == "plan" ? &plans.at(t) : nullptr);
        });
        if (ignores_threads) single = ips;
        samples[{b, t}].push_back(ips);
      }
    }
    for (BenchPeer& peer : peers)
      for (int t : thread_counts)
        if (peer.not_comparable.empty())
          samples[{peer.row, t}].push_back(run::measured_with(disturbances, peer.row + " " + std::to_string(t) + " thr" + round, [&] {
            return measure_peer(peer, speed_arguments(peer_model, t, batch, warmup, iterations, dtype));
          }));
    std::fprintf(stderr, "round %lld/%lld done\n", static_cast<long long>(r + 1), static_cast<long long>(repeats));
  }

  std::printf("%-18s", "backend");
  for (int t : thread_counts) std::printf("  %9d thr", t);
  std::printf("\n");
  std::vector<std::string> rows = backends;
  for (const BenchPeer& peer : peers) rows.push_back(peer.row);
  std::map<std::string, std::pair<double, std::string>> best;  // row kind ("ablate" or a peer's row) -> fastest
  for (const auto& row : rows) {
    const auto peer = std::find_if(peers.begin(), peers.end(), [&](const BenchPeer& p) { return p.row == row; });
    std::printf("%-18s", row.c_str());
    if (peer != peers.end() && !peer->not_comparable.empty()) {
      std::printf("  not comparable: %s\n", peer->not_comparable.c_str());
      continue;
    }
    const std::string kind = peer == peers.end() ? "ablate" : row;
    for (int t : thread_counts) {
      const experiments::Median md = experiments::median_of(samples[{row, t}]);
      const double m = md.ok() ? md.value : 0;
      std::printf("  %13s", experiments::median_text(md).c_str());
      if (m > best[kind].first) best[kind] = {m, row + " at " + std::to_string(t) + " thread(s)"};
    }
    std::printf("\n");
  }
  const auto& [best_ablate_ips, best_ablate] = best["ablate"];
  std::printf("fastest ablate: %s, %.0f images/s\n", best_ablate.c_str(), best_ablate_ips);
  for (const BenchPeer& peer : peers) {
    const auto& [ips, where] = best[peer.row];
    if (ips <= 0) continue;
    const std::string libraries = peer.libraries.empty() ? "" : ", " + peer.libraries;
    if (peer.row == "pytorch")  // the yardstick (--peer-python, Debian's by default), as before --with-real
      std::printf("fastest pytorch (torch %s%s, %s, %s): %s, %.0f images/s\nratio ablate/pytorch: %.2f\n",
                  peer.version.c_str(), libraries.c_str(), experiments::peer_python(args.get("peer-python", "")).c_str(),
                  args.has("peer-as-installed") ? "as installed" : experiments::kPeerBestEnv, where.c_str(), ips,
                  best_ablate_ips / ips);
    else
      std::printf("fastest %s (%s%s): %s, %.0f images/s; ratio ablate/%s: %.2f\n", peer.row.c_str(), peer.version.c_str(),
                  libraries.c_str(), where.c_str(), ips, peer.row.c_str(), best_ablate_ips / ips);
  }
  std::vector<std::string> cpu_rows;  // the FMA probe's peak is the CPU's: GPU rows have no share of it
  for (const auto& row : rows)
    if (row != "cuda" && std::none_of(peers.begin(), peers.end(), [&](const BenchPeer& p) { return p.row == row && p.on_gpu; }))
      cpu_rows.push_back(row);
  print_peak_shares(cpu_rows, thread_counts, samples, flops_per_image, peak, kernels::measure_peak_flops());
  std::printf("%s\n", disturbances.summary().c_str());  // rounds other processes disturbed
  return 0;
}

}  // namespace

Command bench_command() {
  return {"bench",
          "training images/s of a model for every backend and thread count, side by side",
          "Training images/s of a model for every backend at each thread count, medians of repeats,\n"
          "rounds interleaved so that all configurations share the machine's state. Synthetic data.",
          {
              {"model", "NAME|FILE", "model (default lenet)"},
              {"batch", "N", "batch size (default 64)"},
              {"backends", "LIST", "comma-separated backends (default: all built); 'plan': a backend per layer, "
                                   "measured before the rounds (docs/plan.md)"},
              {"threads", "LIST", "comma-separated thread counts (default 1,2)"},
              {"strategy", "NAME", "execution strategy (default layerwise)"},
              {"passes", "SPEC", "static strategy's graph passes: all (default), all,-conv_activation_fusion, or a list to keep"},
              {"blocked-layout", "on|off", "layer-wise and dynamic strategies: channel-blocked activations between the "
                                           "layers run blocked (as ablate run; default off)"},
              {"onednn-conv-layout", "NAME", "the onednn row's convolution layout: autotune (default), plain, nhwc or blocked"},
              {"precision", "f32|f64", "default f32"},
              {"huge-pages", "system|madvise", "ablate's host tensors as malloc gives them (default) or, from 2 MiB, on transparent "
                                              "huge pages (kernels/huge_pages.h)"},
              {"warmup", "N", "untimed iterations before each measurement (default 3)"},
              {"iterations", "N", "timed iterations per measurement (default 30)"},
              {"repeats", "N", "rounds; the median is reported (default 5)"},
              {"with-pytorch", "", "also train the model with PyTorch (/usr/bin/python3, python3-torch) each round"},
              {"peer-python", "PYTHON", "the interpreter that runs PyTorch with --with-pytorch (default /usr/bin/python3, "
                                        "Debian's torch 1.13; PyTorch 2.x: $ABLATE_PEERS_DIR/pytorch/bin/python)"},
              {"with-real", "", "also the real frameworks each round, where installed (scripts/setup-peers.sh): PyTorch 2.x, "
                                "TensorFlow on its Eigen and oneDNN paths, Theano; a model a framework's runner lacks is "
                                "'not comparable'"},
              {"peers-dir", "DIR", "the real frameworks' environments (default: $ABLATE_PEERS_DIR, else the source tree's .peers)"},
              {"real-paths", "LIST", "--with-real: TensorFlow's paths to run, eigen,onednn (default: both)"},
              {"peer-as-installed", "",
               "run PyTorch as installed (default: its best found setting, OPENBLAS_NUM_THREADS=1 and glibc malloc kept)"},
              {"peer-script", "FILE", "the PyTorch script (default: the source tree's bench/peers/pytorch_train.py)"},
              {"peer-device", "cpu|cuda", "--with-pytorch: where PyTorch trains (default cpu; cuda: the yardstick for "
                                          "the cuda row, torch's first GPU)"},
              run::wait_policy_flag(),
              run::disturbed_above_flag(),
              run::wait_quiet_flag(),
          },
          bench_main};
}

}  // namespace ablate::bench::cli
