// Caffe's SGDSolver on a tiny net (inner product 3 -> 2 + SoftmaxWithLoss): the first three
// updates and losses of the layer-wise engine against the same steps computed by hand here
// (softmax regression written out, then h = m h + lr lr_mult (g + wd decay_mult w); w -= h
// with Caffe's inv learning-rate policy).
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph_test_util.h"
#include "kernels/registry.h"

namespace ablate::graph {
namespace {

constexpr int kIn = 3, kOut = 2, kBatch = 2;

const char* kTinyNet =
    "model tiny_softmax\n"
    "input 3 1 1\n"
    "classes 2\n"
    "layer ip inner_product outputs=2 weight_init=gaussian:0.5 bias_init=gaussian:0.5 bias_lr_mult=2 "
    "bias_decay_mult=0\n"
    "layer loss softmax_loss\n";

// Batch s: x[n][i] and labels[n].
double input(int s, int n, int i) { return 0.5 * (i + 1) * (n == 0 ? 1 : -1) + 0.25 * s - 0.1 * i * n; }
int label(int s, int n) { return (s + n) % 2; }

TEST(CaffeSolver, FirstThreeUpdatesOfATinyNetMatchHandComputedSteps) {
  auto backend = kernels::make_backend("reference");
  models::ModelSpec spec = testing::parse(kTinyNet);
  EngineOptions options;
  options.dtype = kernels::DType::f64;
  options.batch = kBatch;
  options.seed = 7;
  options.optimizer.type = "caffe_sgd";
  options.optimizer.lr.policy = "inv";
  options.optimizer.lr.base_lr = 0.1;
  options.optimizer.lr.gamma = 0.5;
  options.optimizer.lr.power = 0.75;
  options.optimizer.momentum = 0.9;
  options.optimizer.weight_decay = 0.05;
  auto engine = make_engine("layerwise", spec, *backend, options);
  auto params = engine->parameters();
  ASSERT_EQ(params.size(), 2u);
  double W[kOut][kIn], b[kOut], hW[kOut][kIn] = {}, hb[kOut] = {};
  for (int o = 0; o < kOut; ++o) {
    b[o] = params[1]->value.at(o);
    for (int i = 0; i < kIn; ++i) W[o][i] = params[0]->value.at(o * kIn + i);
  }
  ASSERT_NE(W[0][0], W[0][1]) << "the initial weights should be random";

  for (int s = 0; s < 3; ++s) {
    kernels::Tensor x({kBatch, kIn, 1, 1}, kernels::DType::f64), y({kBatch}, kernels::DType::i32);
    for (int n = 0; n < kBatch; ++n) {
      y.set(n, label(s, n));
      for (int i = 0; i < kIn; ++i) x.set(n * kIn + i, input(s, n, i));
    }
    // By hand: softmax regression loss and gradient, mean over the batch.
    double gW[kOut][kIn] = {}, gb[kOut] = {}, loss = 0;
    for (int n = 0; n < kBatch; ++n) {
      double z[kOut], zmax = -1e300, total = 0;
      for (int o = 0; o < kOut; ++o) {
        z[o] = b[o];
        for (int i = 0; i < kIn; ++i) z[o] += W[o][i] * input(s, n, i);
        zmax = std::max(zmax, z[o]);
      }
      for (int o = 0; o < kOut; ++o) total += std::exp(z[o] - zmax);
      for (int o = 0; o < kOut; ++o) {
        const double p = std::exp(z[o] - zmax) / total;
        if (o == label(s, n)) loss -= std::log(p) / kBatch;
        const double dz = (p - (o == label(s, n) ? 1.0 : 0.0)) / kBatch;
        gb[o] += dz;
        for (int i = 0; i < kIn; ++i) gW[o][i] += dz * input(s, n, i);
      }
    }
    const double lr = 0.1 * std::pow(1 + 0.5 * s, -0.75);
    for (int o = 0; o < kOut; ++o) {
      for (int i = 0; i < kIn; ++i) {
        hW[o][i] = 0.9 * hW[o][i] + lr * 1.0 * (gW[o][i] + 0.05 * 1.0 * W[o][i]);
        W[o][i] -= hW[o][i];
      }
      hb[o] = 0.9 * hb[o] + lr * 2.0 * (gb[o] + 0.05 * 0.0 * b[o]);
      b[o] -= hb[o];
    }

    const double engine_loss = engine->train_step(x, y, s);
    EXPECT_NEAR(engine_loss, loss, 1e-13) << "step " << s;
    for (int o = 0; o < kOut; ++o) {
      EXPECT_NEAR(params[1]->value.at(o), b[o], 1e-13) << "step " << s << " bias " << o;
      for (int i = 0; i < kIn; ++i)
        EXPECT_NEAR(params[0]->value.at(o * kIn + i), W[o][i], 1e-13) << "step " << s << " weight " << o << "," << i;
    }
  }
}

}  // namespace
}  // namespace ablate::graph
