// Tests of the malloc policy (bench/run/malloc_policy.h): the dynamic strategy without its
// caching allocator malloc's and frees its tensors every step; where glibc maps those blocks
// afresh, a step faults in thousands of pages, and with `--malloc keep` a step after the first
// touches none. Each policy runs in an ablate process of its own (it is process-wide).
//
// glibc's default mmap threshold is dynamic: the first freed mapped block raises it to that
// block's size, and later whether a step maps fresh pages depends on what lies at the heap's
// top (the order of the binary's small allocations: 3,503 faults per step here, 0 in a CI
// checkout of the same commit). Both runs therefore start with the threshold held at glibc's
// initial 128 KiB (MALLOC_MMAP_THRESHOLD_, which also turns the adjustment off): the system run
// maps every large block each step, and keep must override the environment's setting.
#include "bench/run/malloc_policy.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "command_runner.h"

using namespace ablate::bench::run;

namespace {

class MallocPolicyRun : public ablate::bench::testing::CommandTest {
 protected:
  // Torch's MNIST recipe on the dynamic strategy with the caching allocator off: every tensor of
  // a step comes from malloc and goes back to it. Returns the run's record. 30 steps: the heap
  // may still grow once in the first few steps after the first (where it does depends on the
  // order of the binary's small allocations: one 4.8 MB growth more at 2026-12-05's revision),
  // which a median over 11 steps could catch.
  nlohmann::json run(const std::string& policy) {
    const auto out = dir_ / (policy + ".jsonl");
    const auto o = ablate_with_env("MALLOC_MMAP_THRESHOLD_=131072", "run --framework torch --dataset synthetic --model torch-mnist --caching-allocator off --backend eigen "
                          "--threads 1 --batch 50 --iterations 30 --test-iterations 1 --quiet --malloc " + policy +
                          " --out " + out.string());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    return nlohmann::json::parse(ablate::bench::testing::first_line(out));
  }
};

}  // namespace

TEST(MallocPolicy, ParsesItsTwoNamesAndNamesTheBadOne) {
  EXPECT_EQ(parse_malloc_policy("system", "--malloc"), MallocPolicy::system);
  EXPECT_EQ(parse_malloc_policy("keep", "--malloc"), MallocPolicy::keep);
  try {
    parse_malloc_policy("cache", "--malloc");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--malloc 'cache'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("system"), std::string::npos) << e.what();
  }
}

TEST_F(MallocPolicyRun, KeepLeavesNoPageFaultInAStepWhereTheSystemDefaultsMapFreshPages) {
  const nlohmann::json system = run("system"), keep = run("keep");
  EXPECT_EQ(system["config"]["malloc"], "system");
  EXPECT_EQ(keep["config"]["malloc"], "keep");
  const double system_median = system["metrics"]["median_minor_faults_per_step"].get<double>();
  const double keep_median = keep["metrics"]["median_minor_faults_per_step"].get<double>();
  EXPECT_EQ(keep_median, 0.0) << "a step after the first reuses pages already mapped";
  EXPECT_GT(system_median, 50.0) << "glibc, its threshold at 128 KiB, unmaps the step's large blocks and maps them again";
}
