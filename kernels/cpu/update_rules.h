// The optimizers' per-element update rules (kernels/op_params.h) over one range of elements,
// shared by the update ops (optimizer_updates.cpp: the whole parameter, split over the
// threads) and the weight gradient folded into its update (linear_update.cpp: one band of
// rows at a time, while the band's gradient is in cache):
//   Caffe SGD (sgd_solver.cpp):  g += wd w;  h = momentum h + lr g;  w -= h
//   Torch optim.sgd:             g += wd w;  v = first ? g : momentum v + (1 - dampening) g;
//                                step = nesterov ? g + momentum v : v;  w -= lr step
//                                (momentum 0: step = g, v untouched)
//   TF AdamOptimizer:            lr_t = lr sqrt(1 - b2^t) / (1 - b1^t);  m = b1 m + (1 - b1) g;
//                                v = b2 v + (1 - b2) g^2;  w -= lr_t m / (sqrt(v) + eps)
// Each loop takes its pointers as __restrict parameters and its constants as locals: through a
// lambda's captures GCC reloaded the constants every element and ran the scalar loop (Adam over
// TF MNIST's fc1 weights: 10.0 ms, a sixth of a training step; bench/micro/update_bench.cpp).
// Adam's sqrt vectorises only without errno (-fno-math-errno on the files that include this).
// Each loop goes a cache line at a time and asks for the lines it will write kWriteAhead bytes
// ahead (write_ahead): see there.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <type_traits>
#include <variant>

#include "kernels/op_params.h"

namespace ablate::kernels::cpu {

// A weight is read by both threads in the forward and the data gradient (each image, or each
// column of the product, needs all of it), so its lines sit in the other core's cache when the
// update writes them: each store then waits for a request for ownership to invalidate that
// copy, issued only when the store reaches the cache, a few at a time. Asked for ahead with a
// prefetch for write (PREFETCHW), they overlap. LeNet's ip1 (Caffe SGD over 400 k weights and
// their history, 2 threads, Emerald Rapids Xeon): the rule's pass 270 -> 80 us a thread (8 to 64
// lines ahead alike; without the forward before it, 85 us without the prefetch).
constexpr std::int64_t kWriteAhead = 4096;
template <class T> constexpr std::int64_t kLine = 64 / static_cast<std::int64_t>(sizeof(T));

// Prefetches for write the element kWriteAhead bytes past i of each array (where [0, n) reaches it).
template <class T, class... P>
inline void write_ahead(std::int64_t i, std::int64_t n, P*... written) {
  constexpr std::int64_t ahead = kWriteAhead / static_cast<std::int64_t>(sizeof(T));
  if (i + ahead < n) (__builtin_prefetch(written + i + ahead, 1), ...);
}

// One rule's constants in the parameter's precision T, from the op's parameters.
template <class T>
struct CaffeSgdRule {
  T lr, momentum, decay;
  explicit CaffeSgdRule(const CaffeSgdParams& p)
      : lr(static_cast<T>(p.lr)), momentum(static_cast<T>(p.momentum)), decay(static_cast<T>(p.weight_decay)) {}
  // Elements [0, n) of w, g and the history h.
  void apply(T* __restrict w, T* __restrict g, T* __restrict h, std::int64_t n) const {
    const T rate = lr, mom = momentum, wd = decay;
    for (std::int64_t i0 = 0; i0 < n; i0 += kLine<T>) {
      write_ahead<T>(i0, n, w, h);
      for (std::int64_t i = i0, end = std::min(n, i0 + kLine<T>); i < end; ++i) {
        g[i] += wd * w[i];
        h[i] = mom * h[i] + rate * g[i];
        w[i] -= h[i];
      }
    }
  }
};

template <class T>
struct TorchSgdRule {
  T lr, momentum, decay, kept;
  bool first, nesterov, use_buffer;
  explicit TorchSgdRule(const TorchSgdParams& p)
      : lr(static_cast<T>(p.lr)), momentum(static_cast<T>(p.momentum)), decay(static_cast<T>(p.weight_decay)),
        kept(static_cast<T>(1.0 - p.dampening)), first(p.first_step), nesterov(p.nesterov), use_buffer(p.momentum != 0) {}
  // Elements [0, n) of w, g and the velocity v.
  void apply(T* __restrict w, T* __restrict g, T* __restrict v, std::int64_t n) const {
    const T rate = lr, mom = momentum, wd = decay, keep = kept;
    if (!use_buffer) {  // momentum 0 (the Torch presets): Torch7 uses the gradient itself, no buffer
      for (std::int64_t i0 = 0; i0 < n; i0 += kLine<T>) {
        write_ahead<T>(i0, n, w);
        for (std::int64_t i = i0, end = std::min(n, i0 + kLine<T>); i < end; ++i) {
          g[i] += wd * w[i];
          w[i] -= rate * g[i];
        }
      }
      return;
    }
    const bool start = first, look_ahead = nesterov;
    for (std::int64_t i0 = 0; i0 < n; i0 += kLine<T>) {
      write_ahead<T>(i0, n, w, v);
      for (std::int64_t i = i0, end = std::min(n, i0 + kLine<T>); i < end; ++i) {
        g[i] += wd * w[i];
        v[i] = start ? g[i] : mom * v[i] + keep * g[i];
        w[i] -= rate * (look_ahead ? g[i] + mom * v[i] : v[i]);
      }
    }
  }
};

template <class T>
struct AdamRule {
  T rate, beta1, beta2, epsilon;
  explicit AdamRule(const AdamParams& p)
      : rate(static_cast<T>(p.lr * std::sqrt(1.0 - std::pow(p.beta2, static_cast<double>(p.t))) /
                            (1.0 - std::pow(p.beta1, static_cast<double>(p.t))))),
        beta1(static_cast<T>(p.beta1)), beta2(static_cast<T>(p.beta2)), epsilon(static_cast<T>(p.epsilon)) {}
  // Elements [0, n) of w, g and the moments m and v.
  void apply(T* __restrict w, const T* __restrict g, T* __restrict m, T* __restrict v, std::int64_t n) const {
    const T lr_t = rate, b1 = beta1, b2 = beta2, eps = epsilon;
    for (std::int64_t i0 = 0; i0 < n; i0 += kLine<T>) {
      write_ahead<T>(i0, n, w, m, v);
      for (std::int64_t i = i0, end = std::min(n, i0 + kLine<T>); i < end; ++i) {
        m[i] = b1 * m[i] + (T(1) - b1) * g[i];
        v[i] = b2 * v[i] + (T(1) - b2) * g[i] * g[i];
        w[i] -= lr_t * m[i] / (std::sqrt(v[i]) + eps);
      }
    }
  }
};

// The rule of p applied to elements [offset, offset + n) of w and its state tensors' data
// (`state`: history, velocity, or m and v), with the gradient g of those elements alone.
template <class T>
void apply_update_rule(const UpdateParams& p, T* w, T* g, T* const* state, std::int64_t offset, std::int64_t n) {
  std::visit(
      [&](const auto& params) {
        using P = std::decay_t<decltype(params)>;
        if constexpr (std::is_same_v<P, CaffeSgdParams>) CaffeSgdRule<T>(params).apply(w + offset, g, state[0] + offset, n);
        else if constexpr (std::is_same_v<P, TorchSgdParams>) TorchSgdRule<T>(params).apply(w + offset, g, state[0] + offset, n);
        else AdamRule<T>(params).apply(w + offset, g, state[0] + offset, state[1] + offset, n);
      },
      p);
}

}  // namespace ablate::kernels::cpu
