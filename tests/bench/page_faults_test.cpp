// Tests of the training steps' page-fault counts (bench/run/page_faults.h): the counter sees
// the first touch of fresh pages, leaves out a paused part, and a run records sane figures.
#include "bench/run/page_faults.h"

#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmath>

#include "bench/run/result_record.h"
#include "bench/run/results_reader.h"
#include "bench/run/training_loop.h"
#include "tiny_run.h"

using namespace ablate::bench::run;
namespace tiny = ablate::bench::tiny;

namespace {
// Maps `pages` fresh anonymous pages and writes one byte in each: one minor fault per page.
void touch_fresh_pages(std::int64_t pages) {
  const std::size_t page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  const std::size_t bytes = static_cast<std::size_t>(pages) * page;
  void* p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(p, MAP_FAILED);
  for (std::size_t i = 0; i < bytes; i += page) static_cast<volatile char*>(p)[i] = 1;
  ::munmap(p, bytes);
}
}  // namespace

TEST(PageFaults, EachFreshPageTouchedIsAMinorFault) {
  const FaultCount before = process_faults();
  touch_fresh_pages(512);
  const FaultCount after = process_faults();
  EXPECT_GE(after.minor - before.minor, 512);
  EXPECT_EQ(after.major, before.major) << "anonymous memory never reads the disk";
}

TEST(PageFaults, StepsCountApartFromTheFirstAndThePausedPart) {
  StepFaults f;
  f.begin();
  touch_fresh_pages(400);  // the first step allocates
  f.end();
  for (int step = 0; step < 2; ++step) {
    f.begin();
    touch_fresh_pages(100);
    f.pause();
    touch_fresh_pages(1000);  // an untimed evaluation inside the step
    f.resume();
    f.end();
  }
  EXPECT_EQ(f.steps(), 3);
  EXPECT_GE(f.first_step_minor(), 400);
  EXPECT_GE(f.minor_per_step(), 100.0);
  EXPECT_LT(f.minor_per_step(), 1000.0) << "the paused part is left out";
  EXPECT_EQ(f.minor(), f.first_step_minor() + static_cast<std::int64_t>(std::lround(2 * f.minor_per_step())));
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

TEST(PageFaults, ARunRecordsItsStepsFaults) {
  RunConfig c = tiny::tiny_config();
  c.iterations = 6;
  RunResult r = train_and_test(c, tiny::tiny_data());
  ASSERT_EQ(r.status, "completed") << r.error;
  const nlohmann::json record = parse_json(to_json_line(r));
  const nlohmann::json& per_step = field(record, "metrics.minor_faults_per_step");
  ASSERT_TRUE(per_step.is_number()) << record["metrics"].dump();
  const double v = per_step.get<double>();
  EXPECT_TRUE(std::isfinite(v));
  EXPECT_GE(v, 0.0);
  // A tiny model's step touches well under 64 MiB of fresh pages, even on a busy allocator.
  EXPECT_LT(v, 16384.0);
  for (const char* key : {"metrics.minor_faults", "metrics.minor_faults_first_step", "metrics.major_faults"})
    EXPECT_TRUE(field(record, key).is_number_integer()) << key;
  const std::int64_t all = field(record, "metrics.minor_faults").get<std::int64_t>();
  const std::int64_t first = field(record, "metrics.minor_faults_first_step").get<std::int64_t>();
  EXPECT_GE(first, 0);
  EXPECT_EQ(all, first + static_cast<std::int64_t>(std::lround(5 * v))) << "6 steps: the first and 5 more";
  EXPECT_GE(field(record, "metrics.major_faults").get<std::int64_t>(), 0);
}
