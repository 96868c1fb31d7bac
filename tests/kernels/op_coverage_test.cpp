// The op list (kernels/op_list.h) against the conformance cases: every Backend op has at least
// one case, every case names an op of the list, and each case really calls the op it names
// (seen by an observer on the reference backend). A new op without a conformance case fails here.
// Likewise the activation list (kernels/activation_list.h): every named Activation is listed
// and has forward and backward cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>

#include "conformance.h"
#include "kernels/activation_list.h"
#include "kernels/op_list.h"
#include "kernels/registry.h"

namespace ablate::kernels::test {
namespace {

// The ops an observed backend was asked to run.
class OpRecorder final : public OpObserver {
 public:
  void begin(OpCall& call) override { ops.insert(call.op); }
  void end(const OpCall&, bool) override {}
  std::set<Op> ops;
};

TEST(OpCoverage, EveryOpHasAConformanceCase) {
  std::map<std::string, int> cases_per_op;
  for (const Case& c : all_cases()) {
    EXPECT_TRUE(find_op(c.op).has_value()) << "case '" << c.op << " (" << c.shape
                                           << ")' names no op of kernels/op_list.h";
    ++cases_per_op[c.op];
  }
  for (const char* op : kOpNames)
    EXPECT_GT(cases_per_op[op], 0) << "Backend op '" << op << "' has no conformance case in tests/kernels/conformance_*_cases.cpp";
}

TEST(OpCoverage, EachCaseCallsTheOpItNames) {
  auto reference = make_backend("reference");
  for (const Case& c : all_cases()) {
    const auto op = find_op(c.op);
    if (!op) continue;  // reported by EveryOpHasAConformanceCase
    OpRecorder recorder;
    reference->set_observer(&recorder);
    OpRun run(*reference, DType::f64, c.seed);
    c.body(run);
    reference->set_observer(nullptr);
    EXPECT_TRUE(recorder.ops.count(*op)) << "case '" << c.op << " (" << c.shape << ")' never calls " << c.op;
  }
}

// Every Activation value with a name (activation_name gives "?" past the last) is in
// kActivations, and each has cases of its forward and backward ops named after it.
TEST(OpCoverage, EveryActivationIsListedAndHasConformanceCases) {
  std::size_t named = 0;
  for (int k = 0; std::string(activation_name(static_cast<Activation>(k))) != "?"; ++k, ++named) {
    const Activation a = static_cast<Activation>(k);
    EXPECT_NE(std::find(kActivations.begin(), kActivations.end(), a), kActivations.end())
        << "activation '" << activation_name(a) << "' is missing from kernels/activation_list.h";
  }
  EXPECT_EQ(named, kActivations.size());
  const std::vector<Case> cases = all_cases();
  for (Activation a : kActivations) {
    const std::string forward = is_gelu(a) ? "gelu_forward" : "activation_forward";
    const std::string backward = is_gelu(a) ? "gelu_backward" : "activation_backward";
    const std::string prefix = std::string(activation_name(a)) + " ";
    for (const std::string& op : {forward, backward})
      EXPECT_TRUE(std::any_of(cases.begin(), cases.end(),
                              [&](const Case& c) { return c.op == op && c.shape.rfind(prefix, 0) == 0; }))
          << "activation '" << activation_name(a) << "' has no " << op << " conformance case";
  }
}

// The list itself: names are unique, and find_op inverts op_name.
TEST(OpCoverage, TheListNamesEachOpOnce) {
  std::set<std::string> names(kOpNames.begin(), kOpNames.end());
  EXPECT_EQ(names.size(), kOpNames.size());
  for (int i = 0; i < kOpCount; ++i) {
    const Op op = static_cast<Op>(i);
    ASSERT_TRUE(find_op(op_name(op)).has_value()) << op_name(op);
    EXPECT_EQ(*find_op(op_name(op)), op);
  }
  EXPECT_FALSE(find_op("not_an_op").has_value());
}

}  // namespace
}  // namespace ablate::kernels::test
