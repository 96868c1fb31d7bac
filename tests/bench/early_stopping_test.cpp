// Tests of Theano's patience loop on scripted validation errors, against values worked out
// by hand from the LeNet5 tutorial's rules (see bench/early_stopping.h).
#include "bench/run/early_stopping.h"

#include <gtest/gtest.h>

#include <map>

using namespace ablate::bench::run;

namespace {

struct Outcome {
  std::int64_t stop_iter = -1;  // 0-based iteration after which training stopped; -1: ran out
  std::vector<std::int64_t> new_bests;
};

// The tutorial's loop: validate when (iter + 1) % frequency == 0, then check the patience.
Outcome drive(EarlyStopping& s, const std::map<std::int64_t, double>& errors, std::int64_t frequency,
              std::int64_t max_iters) {
  Outcome o;
  for (std::int64_t iter = 0; iter < max_iters; ++iter) {
    if ((iter + 1) % frequency == 0) {
      auto it = errors.find(iter);
      double error = it == errors.end() ? 1.0 : it->second;
      if (s.validated(iter, error)) o.new_bests.push_back(iter);
    }
    if (s.should_stop(iter)) {
      o.stop_iter = iter;
      return o;
    }
  }
  return o;
}

}  // namespace

TEST(EarlyStopping, PatienceGrowsOnClearImprovementsOnly) {
  EarlyStopping s({1000, 2, 0.995});
  // iter 99: 0.5 first best (< inf), patience max(1000, 198) = 1000
  // iter 199: 0.4 < 0.5 * 0.995: patience max(1000, 398) = 1000
  // iter 599: 0.3 < 0.4 * 0.995: patience max(1000, 1198) = 1198
  // iter 699: 0.2999 is a new best but not below 0.3 * 0.995 = 0.2985: patience stays 1198
  // iter 799: 0.31 is no best
  Outcome o = drive(s, {{99, 0.5}, {199, 0.4}, {299, 0.45}, {399, 0.4}, {499, 0.41}, {599, 0.3}, {699, 0.2999},
                        {799, 0.31}, {899, 0.35}, {999, 0.5}, {1099, 0.5}},
                    100, 5000);
  EXPECT_EQ(o.new_bests, (std::vector<std::int64_t>{99, 199, 599, 699}));
  EXPECT_EQ(o.stop_iter, 1198) << "stops once patience <= iter";
  EXPECT_DOUBLE_EQ(s.patience(), 1198);
  EXPECT_DOUBLE_EQ(s.best_error(), 0.2999);
  EXPECT_EQ(s.best_iteration(), 699);
}

TEST(EarlyStopping, AnEqualErrorIsNoNewBest) {
  EarlyStopping s({100, 2, 0.995});
  EXPECT_TRUE(s.validated(9, 0.2));
  EXPECT_FALSE(s.validated(19, 0.2));
  EXPECT_EQ(s.best_iteration(), 9);
}

TEST(EarlyStopping, KeepsImprovingAndStopsAtTwiceTheLastClearBest) {
  EarlyStopping s({50, 2, 0.995});
  std::map<std::int64_t, double> errors;
  double e = 0.9;
  for (std::int64_t iter = 9; iter < 200; iter += 10, e *= 0.9) errors[iter] = iter <= 89 ? e : 0.5;
  // Bests at 9..89 (each clear); the last, at 89, sets patience max(50, 178) = 178.
  Outcome o = drive(s, errors, 10, 1000);
  EXPECT_EQ(o.new_bests.back(), 89);
  EXPECT_EQ(o.stop_iter, 178);
}

TEST(EarlyStopping, ZeroPatienceNeverStopsButTracksTheBest) {
  EarlyStopping s({0, 2, 0.995});
  EXPECT_FALSE(s.enabled());
  Outcome o = drive(s, {{9, 0.3}, {19, 0.2}, {29, 0.25}}, 10, 400);
  EXPECT_EQ(o.stop_iter, -1);
  EXPECT_DOUBLE_EQ(s.best_error(), 0.2);
  EXPECT_EQ(s.best_iteration(), 19);
}

TEST(EarlyStopping, NoValidationYetMeansNoBest) {
  EarlyStopping s({10, 2, 0.995});
  EXPECT_FALSE(s.has_best());
  EXPECT_FALSE(s.should_stop(9));
  EXPECT_TRUE(s.should_stop(10)) << "patience 10 <= iteration 10";
}
