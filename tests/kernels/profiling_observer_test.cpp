// The profiling observer: same results with it as without, one span per op call with the op's
// FLOPs (an op an implementation runs inside another is not a second span), none for a call
// the contract rejects, and a Chrome trace file that holds every span.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/profiling_observer.h"
#include "kernels/registry.h"

namespace ablate::kernels {
namespace {

Tensor filled(Shape shape, double start) {
  Tensor t(std::move(shape), DType::f64);
  for (std::int64_t i = 0; i < t.numel(); ++i) t.set(i, start + 0.01 * static_cast<double>(i % 17));
  return t;
}

TEST(ProfilingObserver, SameResultsAndOneSpanPerOpWithFlops) {
  auto backend = make_backend("reference");
  const Tensor x = filled({2, 3, 6, 6}, -0.3), w = filled({4, 3, 3, 3}, 0.1), b = filled({4}, 0.2);
  Tensor y1({2, 4, 4, 4}, DType::f64), y2({2, 4, 4, 4}, DType::f64);
  Conv2dParams p;
  backend->conv2d_forward(x, w, b, y1, p);  // before the observer: no span

  TraceRecorder recorder;
  ProfilingObserver profiler(recorder, *backend);
  backend->set_observer(&profiler);
  backend->conv2d_forward(x, w, b, y2, p);
  for (std::int64_t i = 0; i < y1.numel(); ++i) ASSERT_EQ(y1.at(i), y2.at(i));

  const Tensor a = filled({5, 7}, 0.5), bm = filled({7, 3}, -0.5);
  Tensor c({5, 3}, DType::f64);
  backend->gemm(false, false, 1.0, a, bm, 0.0, c);
  const double s = backend->sum(c);
  Tensor wrong({4, 3}, DType::f64);
  EXPECT_THROW(backend->gemm(false, false, 1.0, a, bm, 0.0, wrong), std::invalid_argument);  // rejected: no span
  backend->set_observer(nullptr);
  EXPECT_EQ(s, backend->sum(c));  // after the observer: no span

  const auto totals = recorder.totals("op");
  ASSERT_EQ(totals.size(), 3u);
  EXPECT_EQ(totals.at("conv2d_forward").calls, 1);
  EXPECT_DOUBLE_EQ(totals.at("conv2d_forward").flops, 2.0 * 2 * 4 * 3 * 3 * 3 * 4 * 4);  // 2 N K C KH KW OH OW
  EXPECT_EQ(totals.at("gemm").calls, 1);
  EXPECT_DOUBLE_EQ(totals.at("gemm").flops, 2.0 * 5 * 3 * 7);                            // 2 M N K
  EXPECT_EQ(totals.at("sum").calls, 1);
  EXPECT_EQ(totals.at("sum").flops, 0);
  for (const auto& e : recorder.events()) EXPECT_GE(e.duration_us, 0);
}

// Every backend: the linear layer is one span with 2 N I O FLOPs, whatever the backend runs
// inside it (a GEMM, a bias op), in each direction.
TEST(ProfilingObserver, OneSpanPerCallOnEveryBackend) {
  for (const std::string& name : backend_names()) {
    std::unique_ptr<Backend> backend;
    try {
      backend = make_backend(name);
    } catch (const std::runtime_error& e) {  // no CUDA device here
      continue;
    }
    TraceRecorder recorder;
    ProfilingObserver profiler(recorder, *backend);
    backend->set_observer(&profiler);
    const Tensor x = filled({3, 5}, 0.1), w = filled({4, 5}, -0.2), bias = filled({4}, 0.3), dy = filled({3, 4}, 0.4);
    Tensor y({3, 4}, DType::f64), dx({3, 5}, DType::f64), dw({4, 5}, DType::f64), dbias({4}, DType::f64);
    if (backend->device() != Device::cpu) {
      for (Tensor* t : {&y, &dx, &dw, &dbias}) *t = Tensor(t->shape(), DType::f64, &backend->allocator());
    }
    backend->linear_forward(x, w, bias, y);
    backend->linear_backward_data(dy, w, dx);
    backend->linear_backward_weights(x, dy, dw, dbias);
    const auto totals = recorder.totals("op");
    EXPECT_EQ(totals.size(), 3u) << name;
    for (const char* op : {"linear_forward", "linear_backward_data", "linear_backward_weights"}) {
      ASSERT_TRUE(totals.count(op)) << name << " " << op;
      EXPECT_EQ(totals.at(op).calls, 1) << name << " " << op;
      EXPECT_DOUBLE_EQ(totals.at(op).flops, 2.0 * 3 * 5 * 4) << name << " " << op;
    }
  }
}

TEST(TraceRecorder, WritesEveryEventAsChromeTraceJson) {
  TraceRecorder recorder;
  { TraceRecorder::Span step(recorder, "step 1", "step"); }
  recorder.add("conv2d_forward", "op", 1.5, 2.25, 1000);
  const std::string path = ::testing::TempDir() + "/ablate_trace_test.json";
  recorder.write_chrome_trace(path);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = text.str();
  EXPECT_EQ(json.rfind("{\"displayTimeUnit\": \"ms\", \"traceEvents\": [", 0), 0u);
  EXPECT_NE(json.find("\"name\": \"step 1\", \"cat\": \"step\", \"ph\": \"X\""), std::string::npos) << json;
  EXPECT_NE(json.find("\"ts\": 1.500, \"dur\": 2.250"), std::string::npos) << json;
  EXPECT_NE(json.find("\"args\": {\"flops\": 1000}"), std::string::npos) << json;
  EXPECT_EQ(json.substr(json.size() - 3), "]}\n");
  std::remove(path.c_str());
}

TEST(TraceRecorder, CoverageIsTheUnionOfTheSpansInsideEachStep) {
  TraceRecorder recorder;
  recorder.add("step 1", "step", 100, 100);      // [100, 200)
  recorder.add("fetch", "data", 100, 10);        // [100, 110)
  recorder.add("a", "op", 120, 40);              // [120, 160)
  recorder.add("b", "op", 150, 20);              // [150, 170): overlaps a (another thread)
  recorder.add("c", "op", 190, 30);              // [190, 220): half outside the step
  recorder.add("step 2", "step", 300, 50);       // [300, 350): nothing inside
  recorder.add("late", "op", 400, 10);           // outside every step
  const std::vector<double> c = recorder.coverage();
  ASSERT_EQ(c.size(), 2u);
  EXPECT_DOUBLE_EQ(c[0], (10 + 50 + 10) / 100.0);  // fetch, a union b, the inside part of c
  EXPECT_DOUBLE_EQ(c[1], 0.0);
}

TEST(TraceRecorder, UnwritablePathIsAClearError) {
  TraceRecorder recorder;
  try {
    recorder.write_chrome_trace("/nonexistent-dir/trace.json");
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/trace.json"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ablate::kernels
