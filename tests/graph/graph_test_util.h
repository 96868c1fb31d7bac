// Helpers of the graph tests: small model texts, seeded batches, synthetic data as engine
// input, and an error-message matcher.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

#include <gtest/gtest.h>

#include "datasets/image_set.h"
#include "graph/optim/divergence_error.h"
#include "kernels/tensor.h"
#include "models/model_spec.h"

namespace ablate::graph::testing {

// A LeNet-like model on a 1x12x12 input with 3 classes:
//   conv1 3x3/4 -> pool1 max 2/2 (Caffe ceil) -> conv2 3x3/4 -> pool2 max 2/2 -> ip1 8 ->
//   relu1 -> ip2 3 -> softmax_loss
// Every weight and bias starts from a seeded gaussian, so the gradients are non-trivial.
inline std::string tiny_lenet_text() {
  return "model tiny_lenet\n"
         "input 1 12 12\n"
         "classes 3\n"
         "layer conv1 convolution outputs=4 kernel=3 weight_init=gaussian:0.4 bias_init=gaussian:0.1\n"
         "layer pool1 pooling mode=max kernel=2 stride=2 padding=caffe_ceil\n"
         "layer conv2 convolution outputs=4 kernel=3 weight_init=gaussian:0.3 bias_init=gaussian:0.1\n"
         "layer pool2 pooling mode=max kernel=2 stride=2 padding=caffe_ceil\n"
         "layer ip1 inner_product outputs=8 weight_init=gaussian:0.3 bias_init=gaussian:0.1 bias_lr_mult=2\n"
         "layer relu1 relu\n"
         "layer ip2 inner_product outputs=3 weight_init=gaussian:0.3 bias_init=gaussian:0.1 bias_lr_mult=2\n"
         "layer loss softmax_loss\n";
}

// `text` with the first occurrence of `from` replaced by `to` (fails the test if absent).
inline std::string replaced(std::string text, const std::string& from, const std::string& to) {
  auto at = text.find(from);
  EXPECT_NE(at, std::string::npos) << "'" << from << "' not in the model text";
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

inline models::ModelSpec parse(const std::string& text, const std::string& name = "test.model") {
  return models::parse_model(text, name);
}

// x [n, C, H, W] uniform in [-1, 1) and labels i32 [n] uniform in [0, classes).
struct Batch {
  kernels::Tensor x, labels;
};
inline Batch random_batch(const models::ModelSpec& spec, std::int64_t n, kernels::DType dtype, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Batch b{kernels::Tensor({n, spec.input_shape[0], spec.input_shape[1], spec.input_shape[2]}, dtype),
          kernels::Tensor({n}, kernels::DType::i32)};
  for (std::int64_t i = 0; i < b.x.numel(); ++i) b.x.set(i, u(rng));
  for (std::int64_t i = 0; i < n; ++i) b.labels.set(i, static_cast<double>(rng() % spec.classes));
  return b;
}

// Images [begin, begin + n) of `set`, scaled by `scale`, as an engine batch.
inline Batch image_batch(const datasets::ImageSet& set, std::int64_t begin, std::int64_t n, double scale,
                         kernels::DType dtype = kernels::DType::f32) {
  Batch b{kernels::Tensor({n, set.channels, set.height, set.width}, dtype), kernels::Tensor({n}, kernels::DType::i32)};
  const std::int64_t size = set.image_size();
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t src = (begin + i) % set.count();
    for (std::int64_t j = 0; j < size; ++j) b.x.set(i * size + j, set.image(src)[j] * scale);
    b.labels.set(i, set.labels[static_cast<std::size_t>(src)]);
  }
  return b;
}

// Expects `call` to throw E whose message contains every one of `parts`.
template <class E>
void expect_error(const std::function<void()>& call, std::initializer_list<std::string> parts) {
  try {
    call();
    ADD_FAILURE() << "no exception; expected one mentioning '" << *parts.begin() << "'";
  } catch (const E& e) {
    const std::string message = e.what();
    for (const auto& part : parts) EXPECT_NE(message.find(part), std::string::npos) << "message: " << message;
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type: " << e.what();
  }
}

// The batch errors every engine gives (graph/batch_check.h) on a 1x12x12 model with batch 4:
// a label out of range, a wrong input shape, an empty batch, too few or non-i32 labels, a
// negative iteration; after them a good step still works.
template <class EngineT>
void expect_bad_batches_rejected(EngineT& engine, Batch batch) {
  batch.labels.set(2, -1);
  expect_error<std::invalid_argument>([&] { engine.evaluate(batch.x, batch.labels); }, {"evaluate", "label -1"});
  batch.labels.set(2, 0);
  kernels::Tensor wrong_shape({4, 1, 10, 12});
  expect_error<std::invalid_argument>([&] { engine.train_step(wrong_shape, batch.labels, 0); },
                                      {"[4, 1, 10, 12]", "[N, 1, 12, 12]"});
  kernels::Tensor empty_batch({0, 1, 12, 12});
  kernels::Tensor no_labels({0}, kernels::DType::i32);
  expect_error<std::invalid_argument>([&] { engine.train_step(empty_batch, no_labels, 0); }, {"N >= 1"});
  kernels::Tensor short_labels({3}, kernels::DType::i32);
  expect_error<std::invalid_argument>([&] { engine.train_step(batch.x, short_labels, 0); },
                                      {"labels i32[3]", "i32[4]"});
  kernels::Tensor float_labels({4}, kernels::DType::f32);
  expect_error<std::invalid_argument>([&] { engine.train_step(batch.x, float_labels, 0); }, {"f32[4]"});
  expect_error<std::invalid_argument>([&] { engine.train_step(batch.x, batch.labels, -1); }, {"iteration -1"});
  EXPECT_TRUE(std::isfinite(engine.train_step(batch.x, batch.labels, 0)));
}

// A NaN or infinite loss (every strategy checks it before its update, check_finite_loss):
// after one good step, a NaN in ip2's weights makes the loss NaN and the step throws
// DivergenceError naming the iteration, with no parameter updated; +-inf weights as well.
template <class EngineT>
void expect_nan_loss_stops_before_the_update(EngineT& engine, const Batch& batch) {
  EXPECT_TRUE(std::isfinite(engine.train_step(batch.x, batch.labels, 0)));
  auto params = engine.parameters();
  auto& ip2_weight = *params[params.size() - 2];
  ASSERT_EQ(ip2_weight.name, "ip2.weight");
  ip2_weight.value.set(0, std::numeric_limits<double>::quiet_NaN());
  const auto before = params[0]->value.clone();
  expect_error<DivergenceError>([&] { engine.train_step(batch.x, batch.labels, 123); }, {"loss is nan at iteration 123"});
  for (std::int64_t i = 0; i < before.numel(); ++i) ASSERT_EQ(params[0]->value.at(i), before.at(i)) << "value " << i;
  ip2_weight.value.set(0, std::numeric_limits<double>::infinity());
  ip2_weight.value.set(1, -std::numeric_limits<double>::infinity());
  expect_error<DivergenceError>([&] { engine.train_step(batch.x, batch.labels, 124); }, {"at iteration 124"});
}

}  // namespace ablate::graph::testing
