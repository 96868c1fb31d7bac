// Tests of the malloc policy (bench/run/malloc_policy.h) and of the steps' median page faults:
// with glibc's defaults the dynamic strategy without its caching allocator maps fresh pages in
// every step (its tensors are malloc'd and freed each step); with `--malloc keep` a step after
// the first touches none. Each policy runs in an ablate process of its own (it is process-wide).
#include "bench/run/malloc_policy.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "bench/run/page_faults.h"
#include "command_runner.h"

using namespace ablate::bench::run;

namespace {

void touch_fresh_pages(std::int64_t pages) {
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t bytes = static_cast<std::size_t>(pages) * page;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  for (std::size_t i = 0; i < bytes; i += page) static_cast<volatile char*>(p)[i] = 1;
  ::munmap(p, bytes);
}

class MallocPolicyRun : public ablate::bench::testing::CommandTest {
 protected:
  // Torch's MNIST recipe on the dynamic strategy with the caching allocator off: every tensor of
  // a step comes from malloc and goes back to it. Returns the record's metrics.
  nlohmann::json run(const std::string& policy) {
    const auto out = dir_ / (policy + ".jsonl");
    const auto o = ablate("run --framework torch --dataset synthetic --model torch-mnist --caching-allocator off --backend eigen "
                          "--threads 1 --batch 50 --iterations 12 --test-iterations 1 --quiet --malloc " + policy +
                          " --out " + out.string());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    std::ifstream in(out);
    std::string line;
    std::getline(in, line);
    return nlohmann::json::parse(line);
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

TEST(PageFaults, TheMedianStepLeavesOutAWarmUpTail) {
  StepFaults f;
  for (int step = 0; step < 7; ++step) {
    f.begin();
    touch_fresh_pages(step == 0 ? 400 : step == 1 ? 2000 : 20);  // the first step, a tail, then the steady state
    f.end();
  }
  EXPECT_GE(f.minor_per_step(), (2000.0 + 5 * 20) / 6);
  EXPECT_GE(f.median_minor_per_step(), 20.0);
  EXPECT_LT(f.median_minor_per_step(), 200.0) << "the one step of the tail moves the mean, not the median";
}

TEST_F(MallocPolicyRun, KeepLeavesNoPageFaultInAStepWhereTheSystemDefaultsMapFreshPages) {
  const nlohmann::json system = run("system"), keep = run("keep");
  EXPECT_EQ(system["config"]["malloc"], "system");
  EXPECT_EQ(keep["config"]["malloc"], "keep");
  const double system_median = system["metrics"]["median_minor_faults_per_step"].get<double>();
  const double keep_median = keep["metrics"]["median_minor_faults_per_step"].get<double>();
  EXPECT_EQ(keep_median, 0.0) << "a step after the first reuses pages already mapped";
  EXPECT_GT(system_median, 50.0) << "glibc gives the step's large blocks back and maps them again";
}
