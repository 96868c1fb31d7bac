// `ablate run --huge-pages`: the policy reaches the allocator and the record (config.huge_pages,
// metrics.huge_page_bytes, environment.transparent_huge_pages); a bad value is refused naming the flag.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "command_runner.h"
#include "kernels/huge_pages.h"

namespace {

class HugePagesRun : public ablate::bench::testing::CommandTest {
 protected:
  nlohmann::json run(const std::string& policy) {
    const auto out = dir_ / (policy + ".jsonl");
    // The TF MNIST CNN: its fc1 weight (3136 x 1024, 12.25 MiB) and Adam's slots are blocks of
    // several MiB.
    const auto o = ablate("run --framework tensorflow --dataset synthetic --batch 8 --iterations 2 --test-iterations 1 "
                          "--threads 1 --quiet --huge-pages " + policy + " --out " + out.string());
    EXPECT_EQ(o.exit_code, 0) << o.err;
    return nlohmann::json::parse(ablate::bench::testing::first_line(out));
  }
};

}  // namespace

TEST_F(HugePagesRun, RecordsThePolicyAndTheProcesssHugePages) {
  const nlohmann::json r = run("madvise");
  EXPECT_EQ(r["config"]["huge_pages"], "madvise");
  EXPECT_EQ(r["environment"]["transparent_huge_pages"], ablate::kernels::transparent_huge_pages_mode());
  // How much the kernel backs with huge pages depends on its free memory (tests/kernels/
  // huge_pages_test.cpp checks that the marked mapping is eligible); the record holds the reading.
  EXPECT_EQ(r["metrics"]["huge_page_bytes"].get<std::int64_t>() >= 0, ablate::kernels::process_huge_page_bytes() >= 0);
  EXPECT_EQ(run("system")["config"]["huge_pages"], "system");
}

TEST_F(HugePagesRun, RefusesAnUnknownPolicyNamingTheFlag) {
  const auto o = ablate("run --framework caffe --dataset synthetic --iterations 1 --quiet --huge-pages always");
  EXPECT_NE(o.exit_code, 0);
  EXPECT_NE(o.err.find("--huge-pages 'always'"), std::string::npos) << o.err;
}
