// The threads' wait policy (bench/run/wait_policy.h): ablate's default, --wait-policy
// and the user's own OMP_WAIT_POLICY / GOMP_SPINCOUNT reach the record; the user's variables are
// never replaced (they win over the flag, said on stderr and in the record); the process is
// re-executed at most once (counted with strace), a re-executed image never executes again, the
// PyTorch yardstick it starts gets the user's environment, and the re-execution works under mpirun.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "bench/run/wait_policy.h"
#include "command_runner.h"

namespace ablate::bench::run {
namespace {

using testing::slurp;
using Json = nlohmann::json;

// Every command line of these tests starts from an environment without the user's waiting variables.
const std::string kClean = "env -u OMP_WAIT_POLICY -u GOMP_SPINCOUNT -u ABLATE_WAIT_POLICY_APPLIED ";
const std::string kTiny = " --dataset synthetic --backend reference --iterations 2 --batch 8 --test-iterations 1 --quiet";

class WaitPolicyCli : public testing::CommandTest {
 protected:
  // `prefix` (variables, a tracer) + ablate + `args`; stdout, stderr and the exit status.
  testing::Outcome with(const std::string& prefix, const std::string& args) {
    const auto out = dir_ / "out.txt", err = dir_ / "err.txt";
    const int status = std::system((kClean + prefix + " " + ABLATE_BINARY + " " + args + " >" + out.string() +
                                    " 2>" + err.string()).c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, slurp(out), slurp(err)};
  }
  // A tiny run with `prefix` and `flags`; its record's environment.
  Json environment_of(const std::string& prefix, const std::string& flags = "") {
    const std::string results = (dir_ / "r.jsonl").string();
    std::filesystem::remove(results);
    const testing::Outcome o = with(prefix, "run" + kTiny + " --out " + results + " " + flags);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    std::ifstream in(results);
    std::string line;
    std::getline(in, line);
    return line.empty() ? Json::object() : Json::parse(line)["environment"];
  }
  // How many times the traced program executed an image (strace -f -e trace=execve).
  int executions(const std::string& prefix, const std::string& args) {
    const std::string trace = (dir_ / "trace.txt").string();
    const testing::Outcome o = with(prefix + " strace -f -qq -e trace=execve -o " + trace, args);
    EXPECT_EQ(o.exit_code, 0) << o.err;
    std::ifstream in(trace);
    int count = 0;
    // A successful execve: "execve(...) = 0" on one line, or, when another thread's syscall came
    // in between, split by strace -f into "execve(... <unfinished ...>" and "<... execve resumed>) = 0".
    for (std::string line; std::getline(in, line);)
      count += (line.find("execve(") != std::string::npos || line.find("<... execve resumed>") != std::string::npos) &&
               line.find("= 0") != std::string::npos;
    return count;
  }
  bool strace_works() { return std::system("strace -qq -e trace=execve -o /dev/null true >/dev/null 2>&1") == 0; }
};

TEST(WaitPolicy, ParsesEachPolicyAndNamesItsVariables) {
  EXPECT_EQ(wait_policy_name(parse_wait_policy("spin", "--wait-policy")), "spin");
  EXPECT_TRUE(wait_policy_variables(parse_wait_policy("spin", "--wait-policy")).empty()) << "spin is libgomp's own default";
  const auto passive = wait_policy_variables(parse_wait_policy("passive", "--wait-policy"));
  ASSERT_EQ(passive.size(), 1u);
  EXPECT_EQ(passive[0], std::make_pair(std::string("OMP_WAIT_POLICY"), std::string("passive")));
  EXPECT_EQ(wait_policy_name(parse_wait_policy("bounded", "x")), "bounded:" + std::to_string(kDefaultSpinCount));
  const WaitPolicy b = parse_wait_policy("bounded:250", "x");
  EXPECT_EQ(b.spin_count, 250);
  EXPECT_EQ(wait_policy_variables(b)[0], std::make_pair(std::string("GOMP_SPINCOUNT"), std::string("250")));
  for (const char* bad : {"fast", "bounded:", "bounded:-1", "bounded:1e3", "Spin"}) {
    try {
      parse_wait_policy(bad, "--wait-policy");
      ADD_FAILURE() << bad << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("--wait-policy ") + bad), std::string::npos) << e.what();
    }
  }
}

TEST_F(WaitPolicyCli, DefaultIsBoundedAndTheUsersEnvironmentIsRestored) {
  const Json env = environment_of("");
  EXPECT_EQ(env["wait_policy"], "bounded:" + std::to_string(kDefaultSpinCount));
  EXPECT_EQ(env["wait_policy.source"], "ablate's default");
  EXPECT_EQ(env["wait_policy.variables"], "GOMP_SPINCOUNT=" + std::to_string(kDefaultSpinCount));
  EXPECT_NE(env["wait_policy.note"].get<std::string>().find("spin"), std::string::npos);
  EXPECT_EQ(env["env.GOMP_SPINCOUNT"], "") << "what the user set (nothing), not what ablate set for libgomp";
}

TEST_F(WaitPolicyCli, TheFlagReachesTheRecord) {
  Json env = environment_of("", "--wait-policy passive");
  EXPECT_EQ(env["wait_policy"], "passive");
  EXPECT_EQ(env["wait_policy.source"], "--wait-policy");
  EXPECT_EQ(env["wait_policy.variables"], "OMP_WAIT_POLICY=passive");
  env = environment_of("", "--wait-policy=bounded:77");
  EXPECT_EQ(env["wait_policy"], "bounded:77");
  EXPECT_EQ(env["wait_policy.variables"], "GOMP_SPINCOUNT=77");
  env = environment_of("", "--wait-policy spin");
  EXPECT_EQ(env["wait_policy"], "spin");
  EXPECT_EQ(env["wait_policy.variables"], "");
  const testing::Outcome bad = with("", "run" + kTiny + " --wait-policy bounded:x");
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_HAS(bad.err, "--wait-policy bounded:x: expected bounded:N");
}

TEST_F(WaitPolicyCli, TheUsersVariablesWinOverTheDefaultAndTheFlag) {
  Json env = environment_of("GOMP_SPINCOUNT=1234");
  EXPECT_EQ(env["wait_policy"], "GOMP_SPINCOUNT=1234");
  EXPECT_EQ(env["wait_policy.source"], "user environment");
  EXPECT_EQ(env["env.GOMP_SPINCOUNT"], "1234");
  env = environment_of("OMP_WAIT_POLICY=active", "--wait-policy passive");
  EXPECT_EQ(env["wait_policy"], "OMP_WAIT_POLICY=active");
  EXPECT_NE(env["wait_policy.note"].get<std::string>().find("--wait-policy passive ignored"), std::string::npos)
      << env["wait_policy.note"];
  const testing::Outcome o = with("GOMP_SPINCOUNT=5", "run" + kTiny + " --wait-policy passive");
  EXPECT_HAS(o.err, "--wait-policy passive ignored: the environment sets GOMP_SPINCOUNT=5");
  EXPECT_HAS(o.out, "threads wait      GOMP_SPINCOUNT=5 (user environment)");
}

TEST_F(WaitPolicyCli, ReexecutesAtMostOnce) {
  if (!strace_works()) GTEST_SKIP() << "strace is missing or may not trace here (scripts/setup.sh installs it)";
  EXPECT_EQ(executions("", "run" + kTiny), 2) << "the start and one re-execution for the default";
  EXPECT_EQ(executions("", "run" + kTiny + " --wait-policy passive"), 2);
  EXPECT_EQ(executions("", "run" + kTiny + " --wait-policy spin"), 1) << "spin sets nothing: no re-execution";
  EXPECT_EQ(executions("GOMP_SPINCOUNT=10", "run" + kTiny), 1) << "the user's variables: nothing to set";
  EXPECT_EQ(executions("", "list"), 1) << "commands that do not train keep libgomp's default";
  // An image that finds the marker (a re-executed one, or a forged marker) never executes again.
  const std::string marker = std::string(kWaitPolicyMarker) + "='bounded:9|ablate'\\''s default|GOMP_SPINCOUNT=9' ";
  EXPECT_EQ(executions(marker + "GOMP_SPINCOUNT=9", "run" + kTiny), 1);
  EXPECT_EQ(executions(marker, "run" + kTiny), 1) << "a marker without its variable";
}

TEST_F(WaitPolicyCli, AMarkerIsTrustedOnlyWithItsVariables) {
  const std::string marker = std::string(kWaitPolicyMarker) + "='bounded:9|ablate'\\''s default|GOMP_SPINCOUNT=9' ";
  Json env = environment_of(marker + "GOMP_SPINCOUNT=9");
  EXPECT_EQ(env["wait_policy"], "bounded:9");
  EXPECT_EQ(env["env.GOMP_SPINCOUNT"], "") << "the variable ablate set is removed after start-up";
  env = environment_of(marker + "GOMP_SPINCOUNT=10");
  EXPECT_EQ(env["wait_policy.source"], "not chosen");
  EXPECT_NE(env["wait_policy.note"].get<std::string>().find("malformed"), std::string::npos) << env["wait_policy.note"];
}

TEST_F(WaitPolicyCli, TheYardstickGetsTheUsersEnvironment) {
  // A stand-in for pytorch_train.py: writes the waiting variables it sees, prints a speed.
  const auto script = dir_ / "peer.py", seen = dir_ / "seen.txt";
  std::ofstream(script) << "import os\nopen(" << seen << ", 'w').write(repr([os.environ.get(k) for k in "
                        << "('GOMP_SPINCOUNT', 'OMP_WAIT_POLICY', 'ABLATE_WAIT_POLICY_APPLIED')]))\n"
                        << "print('torch=stand-in threads=1 batch=8 images_per_s=10.0')\n";
  const testing::Outcome o = with("", "bench --backends reference --threads 1 --repeats 1 --iterations 1 --warmup 0 "
                                      "--batch 8 --with-pytorch --peer-script " + script.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_HAS(o.out, "threads wait: bounded:");
  EXPECT_EQ(slurp(seen), "[None, None, None]") << "ablate's own choice must not leak into the yardstick";
}

TEST_F(WaitPolicyCli, ReexecutionWorksUnderMpirun) {
#ifndef ABLATE_HAVE_MPI
  GTEST_SKIP() << "this build has no MPI";
#else
  if (std::system("command -v mpirun >/dev/null 2>&1") != 0) GTEST_SKIP() << "mpirun is not installed (openmpi-bin)";
  const std::string results = (dir_ / "mpi.jsonl").string();
  const testing::Outcome o =
      with("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 mpirun -np 2 --oversubscribe",
           "run --distributed --threads 1" + kTiny + " --out " + results);
  ASSERT_EQ(o.exit_code, 0) << o.out << o.err;
  std::ifstream in(results);
  std::string line;
  std::getline(in, line);
  ASSERT_FALSE(line.empty()) << o.out << o.err;
  const Json record = Json::parse(line);
  EXPECT_EQ(record["resolved"]["ranks"], "2");
  EXPECT_EQ(record["environment"]["wait_policy"], "bounded:" + std::to_string(kDefaultSpinCount));
  EXPECT_EQ(record["environment"]["wait_policy.source"], "ablate's default");
#endif
}

}  // namespace
}  // namespace ablate::bench::run
