// `ablate bench`: training images/s of one model for every backend at each thread count,
// measured side by side in one run (rounds interleave the configurations, so a change in
// the shared machine's clock hits all of them), reported as medians of the repeats.
// With --with-pytorch, PyTorch (Debian's python3-torch, bench/peers/pytorch_train.py)
// trains the same model file with the same batch and threads in each round: the yardstick.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <stdexcept>

#include "bench/run/disturbance_log.h"
#include "bench/run/flags.h"
#include "bench/run/wait_policy.h"
#include "bench/run/text_format.h"
#include "bench/cli/commands.h"
#include "bench/experiments/peer_process.h"
#include "datasets/synthetic.h"
#include "datasets/transforms.h"
#include "graph/engine.h"
#include "kernels/registry.h"
#include "models/model_spec.h"

namespace ablate::bench::cli {

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
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

double measure_ablate(const Workload& w, const std::string& backend_name, int threads, const std::string& strategy,
                      kernels::DType dtype, std::int64_t batch, std::int64_t warmup, std::int64_t iterations) {
  auto backend = kernels::make_backend(backend_name, threads);
  graph::EngineOptions options;
  options.dtype = dtype;
  options.batch = batch;
  options.optimizer.type = "caffe_sgd";
  options.optimizer.lr.base_lr = 0.01;
  options.optimizer.momentum = 0.9;
  options.optimizer.weight_decay = 5e-4;
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

double measure_pytorch(const std::string& script, const std::string& model_file, int threads, std::int64_t batch,
                       std::int64_t warmup, std::int64_t iterations, bool as_installed, std::string& version) {
  experiments::PeerProcessOutput r = experiments::run_peer_script(script,
                                        {"--model", model_file, "--threads", std::to_string(threads), "--batch",
                                         std::to_string(batch), "--warmup", std::to_string(warmup), "--iterations",
                                         std::to_string(iterations)},
                                        as_installed);
  const std::string& output = r.output;
  auto pos = output.rfind("images_per_s=");
  if (r.exit_code != 0 || pos == std::string::npos)
    throw std::runtime_error("PyTorch yardstick failed (" + r.command + "):\n" + output);
  auto vpos = output.find("torch=");
  if (vpos != std::string::npos) version = output.substr(vpos + 6, output.find_first_of(" \n", vpos) - vpos - 6);
  return std::stod(output.substr(pos + 13));
}

int bench_main(const run::Flags& args) {
  run::check_wait_policy_flag(args);  // issue 21: how threads wait, disturbed rounds, waiting for quiet
  run::DisturbanceLog disturbances(run::read_disturbed_above(args));
  const double wait_quiet = run::read_wait_quiet(args);
  std::string model = args.get("model", "lenet");
  std::int64_t batch = args.get_int("batch", 64, 1);
  std::int64_t warmup = args.get_int("warmup", 3, 0);
  std::int64_t iterations = args.get_int("iterations", 30, 1);
  std::int64_t repeats = args.get_int("repeats", 5, 1);
  std::string strategy = args.get("strategy", "layerwise");
  kernels::DType dtype = kernels::parse_dtype(args.get("precision", "f32"));
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
    auto n = run::parse_int(t, "--threads");
    if (n < 1) throw std::invalid_argument("--threads " + t + ": expected positive counts");
    thread_counts.push_back(static_cast<int>(n));
  }
  for (const auto& b : backends) kernels::make_backend(b, 1);  // an unknown name fails before any timing
  bool with_pytorch = args.has("with-pytorch");
  std::string script = args.get("peer-script", experiments::default_peer_script());
  std::string peer_model = with_pytorch ? experiments::model_file_for_peer(model) : "";

  Workload w = make_workload(model, batch, dtype);
  const char* coretype = std::getenv("OPENBLAS_CORETYPE");
  std::printf("%s training images/s, batch %lld, %s strategy, %s; median of %lld rounds of %lld iterations "
              "(after %lld warm-up)\nOPENBLAS_CORETYPE=%s\n",
              w.spec.name.c_str(), static_cast<long long>(batch), strategy.c_str(), kernels::dtype_name(dtype),
              static_cast<long long>(repeats), static_cast<long long>(iterations), static_cast<long long>(warmup),
              coretype ? coretype : "(unset)");
  const run::WaitPolicyChoice wait = run::wait_policy_choice();  // issue 21
  std::printf("threads wait: %s (%s)\n", wait.policy.c_str(), wait.source.c_str());
  std::fflush(stdout);

  std::map<std::pair<std::string, int>, std::vector<double>> samples;
  std::string torch_version = "?";
  for (std::int64_t r = 0; r < repeats; ++r) {
    const std::string round = " round " + std::to_string(r + 1);  // issue 21: quiet wait, disturbance per measurement
    if (wait_quiet > 0) {
      std::printf("round %lld: %s\n", static_cast<long long>(r + 1),
                  run::quiet_wait_text(run::wait_for_quiet(wait_quiet, run::disturbed_above()), wait_quiet).c_str());
      std::fflush(stdout);
    }
    for (const auto& b : backends) {
      double single = -1;  // a backend that ignores the thread setting (reference) is measured once
      for (int t : thread_counts) {
        bool ignores_threads = kernels::make_backend(b, t)->threads() != t;
        if (ignores_threads && single >= 0) {
          samples[{b, t}].push_back(single);
          continue;
        }
        double ips = run::measured_with(disturbances, b + " " + std::to_string(t) + " thr" + round, [&] {
          return measure_ablate(w, b, t, strategy, dtype, batch, warmup, iterations);
        });
        if (ignores_threads) single = ips;
        samples[{b, t}].push_back(ips);
      }
    }
    if (with_pytorch)
      for (int t : thread_counts)
        samples[{"pytorch", t}].push_back(run::measured_with(disturbances, "pytorch " + std::to_string(t) + " thr" + round, [&] {
          return measure_pytorch(script, peer_model, t, batch, warmup, iterations, args.has("peer-as-installed"),
                                 torch_version);
        }));
    std::fprintf(stderr, "round %lld/%lld done\n", static_cast<long long>(r + 1), static_cast<long long>(repeats));
  }

  std::printf("%-12s", "backend");
  for (int t : thread_counts) std::printf("  %9d thr", t);
  std::printf("\n");
  std::vector<std::string> rows = backends;
  if (with_pytorch) rows.push_back("pytorch");
  std::string best_ablate, best_torch;
  double best_ablate_ips = 0, best_torch_ips = 0;
  for (const auto& row : rows) {
    std::printf("%-12s", row.c_str());
    for (int t : thread_counts) {
      double m = median(samples[{row, t}]);
      std::printf("  %13.0f", m);
      std::string label = row + " at " + std::to_string(t) + " thread(s)";
      if (row == "pytorch" && m > best_torch_ips) best_torch_ips = m, best_torch = label;
      if (row != "pytorch" && m > best_ablate_ips) best_ablate_ips = m, best_ablate = label;
    }
    std::printf("\n");
  }
  std::printf("fastest ablate: %s, %.0f images/s\n", best_ablate.c_str(), best_ablate_ips);
  if (with_pytorch)
    std::printf("fastest pytorch (torch %s, %s): %s, %.0f images/s\nratio ablate/pytorch: %.2f\n",
                torch_version.c_str(), args.has("peer-as-installed") ? "as installed" : experiments::kPeerBestEnv,
                best_torch.c_str(), best_torch_ips, best_ablate_ips / best_torch_ips);
  std::printf("%s\n", disturbances.summary().c_str());  // issue 21
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
              {"backends", "LIST", "comma-separated backends (default: all built)"},
              {"threads", "LIST", "comma-separated thread counts (default 1,2)"},
              {"strategy", "NAME", "execution strategy (default layerwise)"},
              {"precision", "f32|f64", "default f32"},
              {"warmup", "N", "untimed iterations before each measurement (default 3)"},
              {"iterations", "N", "timed iterations per measurement (default 30)"},
              {"repeats", "N", "rounds; the median is reported (default 5)"},
              {"with-pytorch", "", "also train the model with PyTorch (/usr/bin/python3, python3-torch) each round"},
              {"peer-as-installed", "",
               "run PyTorch as installed (default: its best found setting, OPENBLAS_NUM_THREADS=1 and glibc malloc kept)"},
              {"peer-script", "FILE", "the PyTorch script (default: the source tree's bench/peers/pytorch_train.py)"},
              run::wait_policy_flag(),  // issue 21
              run::disturbed_above_flag(),
              run::wait_quiet_flag(),
          },
          bench_main};
}

}  // namespace ablate::bench::cli
