// `ablate compare --with-real`, `--attribute` and `ablate bench --with-real` end to end on the
// synthetic set, against stand-in peers the test places (a shell script as each environment's
// bin/python, so the test runs everywhere): the table, the curve difference recomputed from the
// losses both sides printed, the initial weights the peer was given, the waterfall's arithmetic,
// the plots; a peer not installed, not comparable or failing is a row, never a failed command;
// every refused flag combination.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <regex>

#include "command_runner.h"
#include "bench/experiments/real_peers.h"
#include "graph/checkpoint_file.h"

namespace ablate::bench::experiments {
namespace {

using testing::CommandTest;
using testing::slurp;

// A stand-in for a peer's interpreter: `python SCRIPT ARGS...`. It logs its arguments, copies the
// initial checkpoint it is given (the curve run's as initial.ckpt, the full run's as
// full-initial.ckpt), and answers as the runner of SCRIPT would: every step's loss
// 2.5 with --no-random, then its result line (images/s 1000, accuracy 0.5, 1 MiB, CPU 1.5); in
// speed mode (no --train-images) the speed line. `behaviour` "not-comparable" or "fail" changes that.
void place_fake_peer(const std::filesystem::path& peers, const std::string& env, const std::string& behaviour = "ok") {
  const auto bin = peers / env / "bin";
  std::filesystem::create_directories(bin);
  const auto python = bin / "python";
  std::ofstream(python) << R"(#!/bin/sh
here=$(dirname "$0")/..
echo "$@" >> "$here/calls.log"
case $(basename "$1") in tensorflow_train.py) fw=tensorflow;; theano_train.py) fw=theano;; *) fw=torch;; esac
shift
behaviour=)" << behaviour << R"(
iterations=1; threads=1; norandom=0; ckpt=; data=
while [ $# -gt 0 ]; do
  case "$1" in
    --iterations) iterations=$2; shift;;
    --threads) threads=$2; shift;;
    --init-checkpoint) ckpt=$2; shift;;
    --train-images) data=$2; shift;;
    --no-random) norandom=1;;
  esac
  shift
done
if [ $behaviour = not-comparable ]; then echo "peer_not_comparable: per-sample training"; exit 3; fi
if [ $behaviour = fail ]; then echo "Traceback: boom" >&2; exit 1; fi
if [ -z "$data" ]; then echo "$fw=9.9.9 threads=$threads batch=1 images_per_s=1000.0"; exit 0; fi
if [ $norandom = 0 ] && [ -n "$ckpt" ]; then cp "$ckpt" "$here/full-initial.ckpt"; fi
if [ $norandom = 1 ]; then
  cp "$ckpt" "$here/initial.ckpt"
  i=1; while [ $i -le $iterations ]; do echo "peer_loss $i 2.5"; i=$((i+1)); done
fi
echo "peer_result $fw=9.9.9 threads=$threads batch=1 iterations=$iterations warmup=0 images_per_s=1000.0 accuracy=0.500000 peak_rss_bytes=1048576 precision=f32 cpu_util=1.50 window_images_per_s=900.0,1100.0"
)";
  std::filesystem::permissions(python, std::filesystem::perms::owner_all);
}

class RealCli : public CommandTest {
 protected:
  std::filesystem::path peers() const { return dir_ / "peers"; }
  // --disturbed-above 1000: the tests count the runner's calls, and on a loaded host the
  // account's rounds would take a disturbed sample again (one call more).
  std::string compare(const std::string& frameworks, const std::string& more) const {
    return "compare --dataset synthetic --frameworks " + frameworks + " --scale 0.002 --quiet --test-iterations 1 --with-real "
           "--disturbed-above 1000 --peers-dir " + peers().string() + " " + more;
  }
};

TEST_F(RealCli, APeerNotInstalledIsARowThatSaysHowToInstallIt) {
  auto o = ablate(compare("caffe,theano", "--curve-steps 2"));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_HAS(o.out, "caffe       PyTorch 2.x                 not installed: no " + peers().string() +
                        "/pytorch/bin/python; install it with scripts/setup-peers.sh pytorch");
  EXPECT_HAS(o.out, "theano      Theano                      not installed: no " + peers().string() +
                        "/theano/bin/python; install it with scripts/setup-peers.sh theano");
  EXPECT_HAS(o.out, "caffe: PyTorch 2.x stands in for Caffe, which does not install here");
  EXPECT_HAS(o.out, "theano      ablate openblas f64");  // ablate's row stands, with its figures
}

TEST_F(RealCli, TheTableTheCurveDifferenceAndTheInitialWeights) {
  place_fake_peer(peers(), "tensorflow");
  auto o = ablate(compare("tensorflow", "--curve-steps 4 --report " + (dir_ / "report").string()));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  // Both paths, each with the fake's figures: images/s, the ratio to ablate's, peak RSS, CPU.
  for (const char* path : {"eigen", "onednn"}) {
    std::smatch m;
    const std::regex row(std::string("tensorflow  TensorFlow 9\\.9\\.9 \\(") + path +
                         R"(\) +0\.5000 +([-+][0-9.]+) ([0-9.e+-]+) at step ([0-9]) +1000 +([0-9.]+)( \[[0-9.]+, [0-9.]+\]( ~)?)? +1 MiB +1\.50)");
    ASSERT_TRUE(std::regex_search(o.out, m, row)) << path << "\n" << o.out;
  }
  std::smatch ablate_row;
  ASSERT_TRUE(std::regex_search(o.out, ablate_row, std::regex(R"(tensorflow  ablate eigen f32 [0-9]+ thr +([0-9.]+) +([0-9]+))")))
      << o.out;
  std::smatch eigen;
  std::regex_search(o.out, eigen, std::regex(R"(\(eigen\) +0\.5000 +([-+][0-9.]+) ([0-9.e+-]+) at step ([0-9]) +1000 +([0-9.]+))"));
  EXPECT_NEAR(std::stod(eigen[1]), 100 * (std::stod(ablate_row[1]) - 0.5), 0.006);  // points
  EXPECT_NEAR(std::stod(eigen[4]), std::stod(ablate_row[2]) / 1000, 0.006);        // ratio
  // Beside each ratio its spread over the two runs' speed windows (the fake's: 900 and 1100).
  std::smatch spread;
  ASSERT_TRUE(std::regex_search(o.out, spread, std::regex(R"(tensorflow: ratio to TensorFlow 9\.9\.9 \(eigen\): (.*))")))
      << o.out;
  EXPECT_TRUE(spread[1].str().find("per window ablate ") != std::string::npos &&
              spread[1].str().find(", real 900-1100 images/s") != std::string::npos)
      << spread[1];

  // The curve difference, recomputed from the losses of both sides (compare.json).
  const auto data = nlohmann::json::parse(slurp(dir_ / "report" / "compare.json"));
  ASSERT_EQ(data["curves"].size(), 2u);
  double largest = 0;
  int at = 0;
  const auto& curve = data["curves"][0];
  ASSERT_EQ(curve["ablate"].size(), 4u);
  for (int i = 0; i < 4; ++i) {
    const double mine = curve["ablate"][i][1], theirs = curve["peer"][i][1];
    EXPECT_EQ(theirs, 2.5);
    const double r = std::fabs(theirs - mine) / std::fabs(mine);
    if (r > largest) largest = r, at = i + 1;
  }
  EXPECT_NEAR(std::stod(eigen[2]), largest, largest * 0.051);  // printed with two digits
  EXPECT_EQ(std::stoi(eigen[3]), at);

  // The peer was given ablate's weights before step 1, and each path its own switch.
  const graph::Checkpoint initial = graph::read_checkpoint((peers() / "tensorflow" / "initial.ckpt").string());
  EXPECT_EQ(initial.meta("iteration"), "0");
  const std::string calls = slurp(peers() / "tensorflow" / "calls.log");
  EXPECT_HAS(calls, "--onednn off");
  EXPECT_HAS(calls, "--onednn on");
  EXPECT_HAS(calls, "--no-random");
  EXPECT_HAS(calls, "--inter-op-threads");
  EXPECT_EQ(std::count(calls.begin(), calls.end(), '\n'), 4);  // per path: the full run and the curve run

  // The full runs started from the weights ablate's own full run began with (each side its own
  // random draws): the checkpoint the peer got holds the curve run's initial weights, tensor by
  // tensor, the same seed's draws; and the table says so.
  const graph::Checkpoint full = graph::read_checkpoint((peers() / "tensorflow" / "full-initial.ckpt").string());
  EXPECT_EQ(full.meta("iteration"), "0");
  int parameters = 0;
  for (const auto& [name, t] : initial.tensors) {
    if (name.find('/') != std::string::npos) continue;  // optimizer state ("conv1.weight/m"), not a parameter
    ++parameters;
    const kernels::Tensor& f = full.tensor(name);
    ASSERT_EQ(f.bytes(), t.bytes()) << name;
    EXPECT_EQ(std::memcmp(f.raw_data(), t.raw_data(), t.bytes()), 0) << name;
  }
  EXPECT_GT(parameters, 0);
  EXPECT_HAS(o.out, "accuracy: the real run of tensorflow started from ablate's initial weights");
  EXPECT_EQ(data["real"][0]["from_ablate_initial_weights"], true);
  EXPECT_EQ(data["real"][0]["window_images_per_s"], nlohmann::json::array({900.0, 1100.0}));
  EXPECT_GE(data["real"][0]["ablate_window_images_per_s"].size(), 2u);
  ASSERT_TRUE(data["real"][0]["ratio_interval"].is_array());
  EXPECT_LE(data["real"][0]["ratio_interval"][0].get<double>(), data["real"][0]["ratio_interval"][1].get<double>());

  // The report: the section, and the plots where matplotlib is.
  const std::string report = slurp(dir_ / "report" / "report.md");
  EXPECT_HAS(report, "## ablate beside the real frameworks (--with-real)");
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0) {
    for (const char* png : {"compare_accuracy_vs_time.png", "compare_bars.png", "compare_loss_curves.png"}) {
      EXPECT_TRUE(std::filesystem::exists(dir_ / "report" / png)) << png << "\n" << o.out;
      EXPECT_HAS(report, std::string("![") + png + "](" + png + ")");
    }
    EXPECT_HAS(o.out, "plots written to " + (dir_ / "report").string());
  }
}

TEST_F(RealCli, RealPathsRunsOnlyTheNamedPathAndLeavesOnePathPeersAlone) {
  place_fake_peer(peers(), "tensorflow");
  place_fake_peer(peers(), "theano");
  auto o = ablate(compare("tensorflow,theano", "--curve-steps 2 --real-paths onednn"));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_HAS(o.out, "TensorFlow 9.9.9 (onednn)");
  EXPECT_EQ(o.out.find("(eigen)"), std::string::npos) << o.out;
  const std::string tf_calls = slurp(peers() / "tensorflow" / "calls.log");
  EXPECT_EQ(tf_calls.find("--onednn off"), std::string::npos) << tf_calls;
  EXPECT_EQ(std::count(tf_calls.begin(), tf_calls.end(), '\n'), 2);  // the full run and the curve run, one path
  const std::string theano_calls = slurp(peers() / "theano" / "calls.log");
  EXPECT_EQ(std::count(theano_calls.begin(), theano_calls.end(), '\n'), 2);  // Theano's one path still runs
}

// --real-rounds: each round the real path, then ablate, each in a process of its own; the ratio
// is the mean of the rounds' (the fake answers 1000 images/s), in the notes and compare.json.
TEST_F(RealCli, RealRoundsInterleaveThePathWithAblateAndGiveTheMeanOfTheRoundsRatios) {
  place_fake_peer(peers(), "tensorflow");
  auto o = ablate(compare("tensorflow", "--curve-steps 0 --real-paths onednn --real-rounds 3 --real-seconds 0.2 --report " +
                                            (dir_ / "report").string()));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::vector<double> ablate_rates;
  const std::regex round(R"(interleaved round ([0-9])/3: real [^,]*\(onednn\) 1000, ablate ([0-9]+) \(images/s\))");
  for (auto it = std::sregex_iterator(o.out.begin(), o.out.end(), round); it != std::sregex_iterator(); ++it)
    ablate_rates.push_back(std::stod((*it)[2]));
  ASSERT_EQ(ablate_rates.size(), 3u) << o.out;
  const std::string calls = slurp(peers() / "tensorflow" / "calls.log");
  EXPECT_EQ(std::count(calls.begin(), calls.end(), '\n'), 4);  // the full run and three rounds
  double mean = 0;
  for (double a : ablate_rates) mean += a / 1000 / 3;
  const auto data = nlohmann::json::parse(slurp(dir_ / "report" / "compare.json"));
  ASSERT_EQ(data["real"].size(), 1u);
  const auto& inter = data["real"][0]["interleaved"];
  ASSERT_TRUE(inter.is_object()) << data["real"][0].dump();
  EXPECT_EQ(inter["rounds"], 3);
  EXPECT_EQ(inter["failed"], 0);
  // The printed rates are rounded to whole images/s: each round's ratio within 0.5 / 1000.
  EXPECT_NEAR(inter["ratio"].get<double>(), mean, 0.5 / 1000 + 1e-12);
  EXPECT_NEAR(inter["real_images_per_s"].get<double>(), 1000, 1e-9);
  ASSERT_TRUE(inter["interval"].is_array()) << inter.dump();
  EXPECT_LE(inter["interval"][0].get<double>(), inter["ratio"].get<double>());
  EXPECT_GE(inter["interval"][1].get<double>(), inter["ratio"].get<double>());
  EXPECT_HAS(o.out, "tensorflow: ratio to TensorFlow 9.9.9 (onednn), interleaved: ");
  EXPECT_HAS(o.out, " over 3 interleaved rounds (rounds ");
}

// A path whose full run could not reproduce the recipe is not timed in rounds: it would only
// fail again.
TEST_F(RealCli, RealRoundsLeaveOutAPathWhoseFullRunDidNotComplete) {
  place_fake_peer(peers(), "tensorflow", "not-comparable");
  auto o = ablate(compare("tensorflow", "--curve-steps 0 --real-paths onednn --real-rounds 2 --real-seconds 0.2"));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const std::string calls = slurp(peers() / "tensorflow" / "calls.log");
  EXPECT_EQ(std::count(calls.begin(), calls.end(), '\n'), 1) << calls;  // the full run alone
  EXPECT_EQ(o.out.find("interleaved"), std::string::npos) << o.out;
}

TEST_F(RealCli, RealPathsOrderChoosesTheAccountsReference) {
  place_fake_peer(peers(), "tensorflow");
  auto o = ablate(compare("tensorflow", "--curve-steps 0 --attribute --attribute-method greedy --attribute-factors precision --rounds 1 "
                                        "--attribute-seconds 0.2 --real-paths onednn,eigen "
                                        "--report " + (dir_ / "report").string()));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  const auto data = nlohmann::json::parse(slurp(dir_ / "report" / "compare.json"));
  ASSERT_EQ(data["waterfalls"].size(), 1u);
  EXPECT_EQ(data["waterfalls"][0]["real_title"], "TensorFlow 9.9.9 (onednn)") << data["waterfalls"][0].dump();
}

TEST_F(RealCli, SeedsRunTheComparisonOncePerSeedAndSummariseTheAccuracies) {
  place_fake_peer(peers(), "theano");
  auto o = ablate(compare("theano", "--curve-steps 0 --seeds 3,1 --report " + (dir_ / "report").string()));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  // Each seed's own comparison: ablate's accuracy in its table, the peer given that seed.
  std::vector<double> mine;
  const std::regex ablate_row(R"(theano      ablate openblas f64 [0-9]+ thr +([0-9.]+) )");
  for (std::sregex_iterator m(o.out.begin(), o.out.end(), ablate_row), end; m != end; ++m) mine.push_back(std::stod((*m)[1]));
  ASSERT_EQ(mine.size(), 2u) << o.out;
  const std::string calls = slurp(peers() / "theano" / "calls.log");
  EXPECT_HAS(calls, "--seed 3");
  EXPECT_HAS(calls, "--seed 1");
  // The summary: per seed in the order given, the fake's 0.5, the points and their mean.
  std::smatch head, points;
  ASSERT_TRUE(std::regex_search(o.out, head, std::regex("final test accuracy over seeds 3, 1 .*\n.* seed 3 +seed 1 +mean +largest"))) << o.out;
  ASSERT_TRUE(std::regex_search(o.out, points, std::regex(R"(\n +points +([-+][0-9.]+) +([-+][0-9.]+) +([-+][0-9.]+) +([-+][0-9.]+)\n)")))
      << o.out;
  for (int s = 0; s < 2; ++s) EXPECT_NEAR(std::stod(points[s + 1]), 100 * (mine[s] - 0.5), 0.006) << s;
  EXPECT_NEAR(std::stod(points[3]), 50 * (mine[0] + mine[1] - 1), 0.006);
  EXPECT_HAS(o.out, "Theano 9.9.9                    0.5000    0.5000    0.5000");
  for (const char* seed : {"seed-3", "seed-1"}) EXPECT_TRUE(std::filesystem::exists(dir_ / "report" / seed / "report.md")) << seed;
  const std::string report = slurp(dir_ / "report" / "report.md");
  EXPECT_HAS(report, "| theano | Theano 9.9.9 | 0.5000 | 0.5000 | 0.5000 | |");
  EXPECT_HAS(report, "[seed 1](seed-1/report.md)");
  EXPECT_HAS(slurp(dir_ / "report" / "index.html"), "<a href=\"seed-1/report.md\">seed 1</a>");  // the same, as a page
}

TEST_F(RealCli, ANotComparableOrFailingPeerIsARowNotAFailure) {
  place_fake_peer(peers(), "pytorch", "not-comparable");
  place_fake_peer(peers(), "theano", "fail");
  auto o = ablate(compare("caffe,theano", "--curve-steps 2"));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_HAS(o.out, "caffe: PyTorch 2.x not comparable: per-sample training");
  EXPECT_HAS(o.out, "theano: Theano failed: the Theano runner exited with status 1");
  EXPECT_HAS(o.out, "Traceback: boom");
  // Not comparable: the curve run is not tried (it would say the same).
  const std::string calls = slurp(peers() / "pytorch" / "calls.log");
  EXPECT_EQ(std::count(calls.begin(), calls.end(), '\n'), 1);
}

TEST_F(RealCli, TheGreedyAttributionAddsUpAndIsDrawn) {
  place_fake_peer(peers(), "pytorch");
  // The switches' ends given (strategy=dynamic, backend=eigen): chosen by measurement, a busy
  // host could find caffe's own values fastest and leave nothing to switch.
  auto o = ablate(compare("caffe", "--curve-steps 0 --attribute --attribute-method greedy --attribute-factors strategy=dynamic,backend=eigen "
                                   "--rounds 1 --attribute-seconds 0.2 "
                                   "--report " + (dir_ / "report").string()));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_HAS(o.out, "The account of the difference: caffe on synthetic");
  EXPECT_HAS(o.out, "real PyTorch 2.x 9.9.9");
  EXPECT_HAS(o.out, "left unexplained");
  const auto data = nlohmann::json::parse(slurp(dir_ / "report" / "compare.json"));
  ASSERT_EQ(data["waterfalls"].size(), 1u);
  const auto& w = data["waterfalls"][0];
  EXPECT_EQ(w["problem"], "");
  // The real time is the comparison's steps at the fake's 1000 images/s (20 steps of batch 64).
  EXPECT_DOUBLE_EQ(w["real_s"].get<double>(), 20.0 * 64 / 1000);
  EXPECT_DOUBLE_EQ(w["left_s"].get<double>(), w["ablate_s"].get<double>() - w["real_s"].get<double>());
  double last = w["ablate_s"];
  for (const auto& s : w["steps"]) last = s["seconds"];
  EXPECT_DOUBLE_EQ(w["gap_s"].get<double>(), last - w["real_s"].get<double>());
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0) {
    EXPECT_TRUE(std::filesystem::exists(dir_ / "report" / "attribution_caffe.png")) << o.out;
  }
  EXPECT_HAS(slurp(dir_ / "report" / "report.md"), "| ablate with caffe's own factors (left unexplained) |");
}

TEST_F(RealCli, TheShapleyAttributionSumsToTheGapWithTheSameWarmupOnBothSidesAndIsDrawn) {
  place_fake_peer(peers(), "pytorch");
  // The ends given, as above: a measured choice on a busy host found caffe's own values fastest
  // (layer-wise, per_image_gemm) and left no factor to account for.
  auto o = ablate(compare("caffe", "--curve-steps 0 --attribute --attribute-factors strategy=dynamic,conv-lowering=omp_per_image --rounds 2 "
                                   "--attribute-seconds 0.05 --attribute-warmup 2 --report " + (dir_ / "report").string()));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_HAS(o.out, "The account of the difference (Shapley): caffe on synthetic");
  EXPECT_HAS(o.out, "after 2 untimed warm-up steps on each side");
  EXPECT_HAS(o.out, "left unexplained (own factors - real)");
  // The real runner's measurements skip the same 2 untimed steps as ablate's.
  const std::string calls = slurp(peers() / "pytorch" / "calls.log");
  EXPECT_EQ(std::count(calls.begin(), calls.end(), '\n'), 3) << calls;  // the full run, then one per round
  EXPECT_NE(calls.find("--warmup 2 "), std::string::npos) << calls;
  const auto data = nlohmann::json::parse(slurp(dir_ / "report" / "attribution_caffe.json"));
  ASSERT_EQ(data["problem"], "") << data.dump();
  const auto& s = data["metrics"][0]["shapley"];
  EXPECT_DOUBLE_EQ(s["real"].get<double>(), 20.0 * 64 / 1000);  // 20 steps of batch 64 at the fake's 1000 images/s
  double sum = 0;
  for (const auto& v : s["values"]) sum += v["value"].get<double>();
  EXPECT_NEAR(sum, s["to"].get<double>() - s["from"].get<double>(), 1e-9);
  EXPECT_NEAR(s["left"].get<double>() + sum, s["gap"].get<double>(), 1e-9);
  if (std::system("/usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1") == 0) {
    EXPECT_TRUE(std::filesystem::exists(dir_ / "report" / "attribution_caffe_time_shapley.png")) << o.out;
  }
  EXPECT_HAS(slurp(dir_ / "report" / "report.md"), "| left unexplained (own factors - real) |");
}

// --attribute-factors NAME=VALUE fixes the switch's end instead of choosing it, and the list's
// order is the account's: the same end configuration in another order is the same account.
TEST_F(RealCli, GivenSwitchesKeepTheirValuesAndTheirOrder) {
  place_fake_peer(peers(), "pytorch");
  auto o = ablate(compare("caffe", "--curve-steps 0 --attribute --attribute-factors conv-lowering=omp_per_image,strategy=static "
                                   "--rounds 2 --attribute-seconds 0.05 --report " + (dir_ / "report").string()));
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_EQ(o.out.find("strategy=dynamic"), std::string::npos) << "a given switch is not chosen among its values\n" << o.out;
  const auto data = nlohmann::json::parse(slurp(dir_ / "report" / "attribution_caffe.json"));
  ASSERT_EQ(data["factors"].size(), 2u) << data.dump();
  EXPECT_EQ(data["factors"][0]["key"], "conv lowering");
  EXPECT_EQ(data["factors"][0]["levels"][1], "omp_per_image");
  EXPECT_EQ(data["factors"][1]["key"], "strategy");
  EXPECT_EQ(data["factors"][1]["levels"], nlohmann::json::array({"layerwise", "static"}));
  for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
           {"strategy=", "'strategy=' gives no value after '='"},
           {"strategy,conv-lowering,strategy=static", "factor 'strategy' is named twice"},
           {"backend=nonesuch", "backend=nonesuch: expected one of"}}) {
    auto bad = ablate(compare("caffe", "--curve-steps 0 --attribute --attribute-seconds 0.05 --attribute-factors " + flags));
    EXPECT_NE(bad.exit_code, 0) << flags;
    EXPECT_HAS(bad.err, message);
  }
}

TEST_F(RealCli, AFailedRealSampleIsShownNotDropped) {
  place_fake_peer(peers(), "pytorch", "fail");
  auto o = ablate(compare("caffe", "--curve-steps 0 --attribute --attribute-factors strategy --rounds 2 --attribute-seconds 0.05"));
  EXPECT_HAS(o.out, "FAILED sample: real PyTorch 2.x round 1");
  EXPECT_HAS(o.out, "FAILED sample: real PyTorch 2.x round 2");
  EXPECT_HAS(o.out, "no account: the real PyTorch 2.x could not be measured");
  auto bad = ablate(compare("caffe", "--curve-steps 0 --attribute --attribute-factors colour"));
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_HAS(bad.err, "--attribute-factors colour: unknown factor 'colour'");
  auto method = ablate(compare("caffe", "--curve-steps 0 --attribute --attribute-method random"));
  EXPECT_NE(method.exit_code, 0);
  EXPECT_HAS(method.err, "--attribute-method random: expected shapley");
}

TEST_F(RealCli, RefusedCombinationsNameTheFlag) {
  const std::string base = "compare --dataset synthetic --scale 0.002 --frameworks caffe ";
  struct Case {
    std::string flags, message;
  };
  for (const Case& c : std::vector<Case>{
           {"--curve-steps 3", "--curve-steps belongs to --with-real, which is not given"},
           {"--attribute", "--attribute belongs to --with-real, which is not given"},
           {"--with-real --rounds 2", "--rounds belongs to --attribute, which is not given"},
           {"--with-real --attribute --frameworks caffe,theano", "--attribute accounts for one framework at a time"},
           {"--with-real --curve-steps -1", "--curve-steps -1"},
           {"--real-paths onednn", "--real-paths belongs to --with-real, which is not given"},
           {"--real-rounds 2", "--real-rounds belongs to --with-real, which is not given"},
           {"--with-real --real-rounds -1", "--real-rounds -1"},
           {"--with-real --real-rounds 2 --real-seconds 0", "--real-seconds 0: expected at least 0.1 seconds"},
           {"--seeds 1,1", "--seeds 1,1: seed 1 is named twice"},
           {"--seeds 1,-2", "--seeds 1,-2: seed -2 is negative"},
           {"--seeds 1,x", "--seeds 1,x"},
           {"--seeds ,", "--seeds ',': expected a list of seeds"},
           {"--seed 2 --seeds 1,2", "--seed 2 with --seeds 1,2: give one of them"},
           {"--with-real --real-paths mkl", "--real-paths 'mkl': unknown path 'mkl'; expected eigen, onednn"},
           {"--with-real --real-paths onednn,onednn", "--real-paths 'onednn,onednn': path 'onednn' is named twice"},
           {"--with-real --real-paths ,", "--real-paths ',': names no path; expected eigen, onednn"},
           {"--with-real --attribute --attribute-seconds 0", "--attribute-seconds 0: expected a positive number of seconds"},
           {"--test-iterations x", "--test-iterations x"},
           {"--lr abc", "--lr abc"},
       }) {
    auto o = ablate(base + c.flags);
    EXPECT_NE(o.exit_code, 0) << c.flags;
    EXPECT_HAS(o.err, c.message);
    EXPECT_EQ(o.out.find("[1/1]"), std::string::npos) << c.flags << ": a run started\n" << o.out;
  }
}

TEST_F(RealCli, SharedRunFlagsReachEveryRowAndItsCommand) {
  auto o = ablate("compare --dataset synthetic --frameworks caffe,theano --scale 0.002 --quiet --test-iterations 1 "
                  "--test-batch 50 --precision f64 --no-random");
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_HAS(o.out, "ablate run --framework caffe --dataset synthetic --scale 0.002 --target-accuracy 0.9 --precision f64 "
                    "--test-batch 50 --test-iterations 1 --no-random");
  EXPECT_HAS(o.out, "theano      completed");  // the synthetic set's 6,000 images: Theano's validation capped
  EXPECT_HAS(o.out, "validation_count capped from 10000 to 1000");
}

TEST_F(RealCli, BenchTakesTheRealFrameworksIntoItsRounds) {
  place_fake_peer(peers(), "pytorch");
  place_fake_peer(peers(), "tensorflow");
  place_fake_peer(peers(), "theano", "not-comparable");
  auto o = ablate("bench --model lenet --backends reference --threads 1 --repeats 2 --iterations 2 --warmup 0 --with-real "
                  "--peers-dir " + peers().string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  for (const char* row : {"pytorch-2.x", "tensorflow-eigen", "tensorflow-onednn"})
    EXPECT_TRUE(std::regex_search(o.out, std::regex(std::string(row) + " +1000\n"))) << row << "\n" << o.out;
  EXPECT_HAS(o.out, "theano              not comparable: per-sample training");
  EXPECT_HAS(o.out, "fastest tensorflow-eigen (9.9.9): tensorflow-eigen at 1 thread(s), 1000 images/s; ratio ablate/tensorflow-eigen:");
  const std::string calls = slurp(peers() / "theano" / "calls.log");
  EXPECT_EQ(std::count(calls.begin(), calls.end(), '\n'), 1);  // left out after the first round
}

TEST_F(RealCli, BenchRunsOnlyTheNamedRealPaths) {
  place_fake_peer(peers(), "tensorflow");
  auto o = ablate("bench --model lenet --backends reference --threads 1 --repeats 1 --iterations 1 --warmup 0 --with-real "
                  "--real-paths eigen --peers-dir " + peers().string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_TRUE(std::regex_search(o.out, std::regex("tensorflow-eigen +1000\n"))) << o.out;
  EXPECT_EQ(o.out.find("tensorflow-onednn"), std::string::npos) << o.out;
}

TEST_F(RealCli, BenchRefusesRealFlagsWithoutWithRealOrWithABadPath) {
  const std::string base = "bench --model lenet --backends reference --threads 1 --repeats 1 --iterations 1 --warmup 0 ";
  for (const auto& [flags, message] : std::vector<std::pair<std::string, std::string>>{
           {"--real-paths onednn", "--real-paths belongs to --with-real, which is not given"},
           {"--with-real --real-paths mkl", "--real-paths 'mkl': unknown path 'mkl'; expected eigen, onednn"}}) {
    auto o = ablate(base + flags);
    EXPECT_NE(o.exit_code, 0) << flags;
    EXPECT_HAS(o.err, message);
  }
}

TEST_F(RealCli, BenchNamesARealFrameworkNotInstalled) {
  auto o = ablate("bench --model lenet --backends reference --threads 1 --repeats 1 --iterations 1 --warmup 0 --with-real "
                  "--peers-dir " + peers().string());
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  EXPECT_HAS(o.out, "TensorFlow: not installed (no " + peers().string() +
                        "/tensorflow/bin/python; install it with scripts/setup-peers.sh tensorflow)");
}


// The real frameworks themselves, where scripts/setup-peers.sh made their environments (in
// $ABLATE_PEERS_DIR or the source tree's .peers): a few steps from ablate's initial weights with
// the random parts off follow ablate's curve (Theano in f64 to the last bits on this data; f32
// TensorFlow and PyTorch to f32 rounding), and the real run's accuracy is a fraction.
class RealFrameworks : public testing::CommandTest {
 protected:
  void expect_curve_within(const std::string& framework, const std::string& peer, double tolerance, int rows) {
    const std::string missing = peer_missing(real_peer(peer), default_peers_dir());
    if (!missing.empty()) GTEST_SKIP() << peer << " is not installed: " << missing;
    auto o = ablate("compare --dataset synthetic --frameworks " + framework +
                    " --scale 0.002 --quiet --test-iterations 1 --with-real --curve-steps 3");
    ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
    const std::regex row(framework + R"( +\S.*? +(0\.[0-9]{4}|1\.0000) +[-+][0-9.]+ ([0-9.e+-]+) at step [1-3] +[0-9]+ )");
    int found = 0;
    for (std::sregex_iterator m(o.out.begin(), o.out.end(), row), end; m != end; ++m, ++found)
      EXPECT_LE(std::stod((*m)[2]), tolerance) << (*m)[0];
    EXPECT_EQ(found, rows) << o.out;
  }
};

TEST_F(RealFrameworks, TheanoFollowsAblatesCurve) { expect_curve_within("theano", "theano", 1e-9, 1); }
TEST_F(RealFrameworks, TensorFlowFollowsAblatesCurveOnBothPaths) { expect_curve_within("tensorflow", "tensorflow", 1e-4, 2); }
TEST_F(RealFrameworks, PyTorchStandingInForCaffeFollowsAblatesCurve) { expect_curve_within("caffe", "pytorch", 1e-4, 1); }

}  // namespace
}  // namespace ablate::bench::experiments
