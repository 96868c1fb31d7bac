// Tests that the result record carries the engine's report, the resolved strategy switches,
// both timings, time-to-accuracy (null when never reached), early stopping and the static
// strategy's thread budget.
#include "bench/run/result_record.h"

#include <gtest/gtest.h>

#include <cmath>

#include "bench/run/results_reader.h"
#include "bench/run/training_loop.h"
#include "tiny_run.h"

using namespace ablate::bench::run;
namespace tiny = ablate::bench::tiny;

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)

TEST(ResultRecord, CarriesTheEngineReportCountersAndSettings) {
  RunResult r;
  r.engine.counters = {{"cache_hits", 1200}, {"cache_misses", 3}, {"hit_rate", 0.75}, {"peak_bytes", 123456789012.0}};
  r.engine.settings = {{"passes_run", "cse,dce"}, {"executor", "parallel"}};
  std::string line = to_json_line(r);
  EXPECT_CONTAINS(line, "\"engine\":{\"counters\":{\"cache_hits\":1200,\"cache_misses\":3,\"hit_rate\":0.75,"
                        "\"peak_bytes\":123456789012},\"settings\":{\"passes_run\":\"cse,dce\",\"executor\":\"parallel\"}}");
}

TEST(ResultRecord, NeverReachedTargetAndNoValidationAreNull) {
  RunResult r;
  r.metrics.time_to_accuracy.target = 0.9;
  std::string line = to_json_line(r);
  EXPECT_CONTAINS(line, "\"time_to_accuracy\":{\"target\":0.9,\"iteration\":null,\"train_time_s\":null,"
                        "\"framework_train_time_s\":null,\"accuracy\":null}");
  EXPECT_CONTAINS(line, "\"early_stopping\":null");
  EXPECT_CONTAINS(line, "\"framework\":null") << "no framework timing computed";
  EXPECT_CONTAINS(line, "\"target_accuracy\":null") << "config: no target";
}

TEST(ResultRecord, ARunRecordsResolvedSwitchesTimingsAndEarlyStopping) {
  RunConfig c = tiny::tiny_config();
  c.iterations = 10;
  c.validation_count = 50;
  c.validation_interval = 5;
  c.patience = 100;
  c.target_accuracy = 0.01;
  c.switches.weight_average_decay = 0;
  c.unused_options = {"per_sample"};
  RunResult r = train_and_test(c, tiny::tiny_data());
  ASSERT_EQ(r.status, "completed") << r.error;
  std::string line = to_json_line(r);
  for (const char* key :
       {"\"engine\":{\"counters\":{", "\"settings\":{", "\"caching_allocator\":\"true\"", "\"per_sample\":\"false\"",
        "\"disabled_passes\":\"\"", "\"executor\":\"sequential\"", "\"inter_op_threads\":\"1\"",
        "\"unused_options\":\"per_sample\"", "\"weight_average_decay\":\"0\"", "\"timing\":\"uniform\"",
        "\"timing_rule\":\"caffe:", "\"timings\":{\"uniform\":{\"train_time_s\":", "\"framework\":{\"train_time_s\":",
        "\"segments\":{\"train_s\":", "\"time_to_accuracy\":{\"target\":0.01,\"iteration\":", "\"early_stopping\":{",
        "\"best_validation_error\":", "\"test_accuracy_at_best\":", "\"validation_error\":", "\"validation_count\":50",
        "\"patience\":100", "\"length_scale\":1", "\"test_passes\":"})
    EXPECT_CONTAINS(line, key);
  EXPECT_EQ(line.find("\"iteration\":null"), std::string::npos) << "a 0.01 target is reached by the first test";
}

TEST(ResultRecord, IsOneLineOfJsonThatReadsBackExactly) {
  RunResult r;
  r.status = "failed";
  r.error = "file \"a\\b\"\nline 2\t\x01 and a byte that is not UTF-8: \xff";
  r.metrics.accuracy = std::nan("");
  r.metrics.train_time_s = 0.1 + 0.2;  // 0.30000000000000004: needs 17 digits
  r.curve = {{1, 1.0 / 3.0, INFINITY, {}, {}, {}}};
  const std::string line = to_json_line(r);
  EXPECT_EQ(line.find('\n'), std::string::npos) << "one line";
  EXPECT_EQ(line.rfind("{\"status\":\"failed\",\"error\":", 0), 0u) << line.substr(0, 80);
  const nlohmann::json back = parse_json(line);
  EXPECT_EQ(back["error"].get<std::string>(),
            "file \"a\\b\"\nline 2\t\x01 and a byte that is not UTF-8: \xef\xbf\xbd")  // U+FFFD for the stray byte
      << "escapes round-trip";
  EXPECT_TRUE(field(back, "metrics.accuracy").is_null()) << "NaN is written as null";
  EXPECT_TRUE(back["curve"][0]["loss"].is_null()) << "inf is written as null";
  EXPECT_EQ(number_of(field(back, "metrics.train_time_s")), 0.1 + 0.2) << "doubles round-trip exactly";
  EXPECT_EQ(back["curve"][0]["elapsed_s"].get<double>(), 1.0 / 3.0);
  EXPECT_EQ(back["curve"][0]["iteration"].get<std::int64_t>(), 1);
  EXPECT_TRUE(back["curve"][0]["iteration"].is_number_integer()) << "counts are written whole";
}

// The static executor's pool as cut to the run's --threads, in `resolved`.
TEST(ResultRecord, AStaticRunRecordsItsThreadBudget) {
  RunConfig c = tiny::tiny_config();
  c.strategy = "static";
  c.iterations = 2;
  c.backend.options.threads = 2;
  c.switches.executor = ablate::graph::ExecutorKind::parallel;
  c.switches.inter_op_threads = 2;
  RunResult r = train_and_test(c, tiny::tiny_data());
  ASSERT_EQ(r.status, "completed") << r.error;
  EXPECT_EQ(r.resolved.at("inter_op_threads"), "2") << "as asked";
  EXPECT_EQ(r.resolved.at("inter_op_threads_applied"), "1");
  EXPECT_EQ(r.resolved.at("thread_budget"), "2 cores: 1 inter-op x 2 intra-op threads");
}
