// The fused elementwise chain (Backend::fused_elementwise, ChainStep in op_params.h) as one
// pass over memory: the elements are cut into blocks of kBlock that stay in L1; each block is
// read from input 0 once, every step runs over the block in turn (a plain loop per step, which
// the compiler vectorizes), the steps' operands are read once each, and the block is written to
// `out` once: the block is `out`'s own elements when no other operand shares its memory (a copy
// of input 0 into it, none when `out` is input 0), else a private buffer copied back. An unfused chain of S steps reads and writes the whole tensor S times instead.
// Theano compiled a fused Composite into one C loop per element; the block interpreter gets the
// same memory traffic without a compiler at run time. Each step rounds as the shared op it
// replaces (activation_math.h, elementwise.cpp, bias.cpp): the same numbers as the unfused chain.
#include <algorithm>

#include "kernels/cpu/activation_math.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {
namespace {

constexpr std::int64_t kBlock = 512;

// One chain over elements [begin, end) of [N, C, inner], a block at a time.
template <class T> struct ChainRun {
  const std::vector<const Tensor*>& inputs;
  const std::vector<ChainStep>& steps;
  std::int64_t channels, inner;
  T* out;

  const T* operand(const ChainStep& s) const { return inputs[static_cast<std::size_t>(s.operand)]->data<T>(); }

  void step(const ChainStep& s, T* r, std::int64_t at, std::int64_t len) const {
    switch (s.op) {
      case ChainOp::bias_add: {
        const T* b = operand(s);
        std::int64_t c = (at / inner) % channels, k = at % inner;  // channel and place of element `at`
        if (inner == 1) {  // [N, C]: a row's channels lie side by side, and so do their biases
          for (std::int64_t j = 0; j < len;) {
            const std::int64_t run = std::min(len - j, channels - c);
            for (std::int64_t q = 0; q < run; ++q) r[j + q] += b[c + q];
            j += run;
            c = 0;
          }
          break;
        }
        for (std::int64_t j = 0; j < len;) {
          const std::int64_t run = std::min(len - j, inner - k);
          const T v = b[c];
          for (std::int64_t q = 0; q < run; ++q) r[j + q] += v;
          j += run;
          k = 0;
          c = c + 1 == channels ? 0 : c + 1;
        }
        break;
      }
      case ChainOp::activation:
        for_activation<T>(s.activation, [&](auto f) {
          for (std::int64_t j = 0; j < len; ++j) r[j] = f(r[j]);
        });
        break;
      case ChainOp::activation_grad: {
        const T* y = operand(s) + at;
        for_activation_grad<T>(s.activation, [&](auto f) {
          for (std::int64_t j = 0; j < len; ++j) r[j] = f(y[j], r[j]);
        });
        break;
      }
      case ChainOp::mul: {
        const T* e = operand(s) + at;
        for (std::int64_t j = 0; j < len; ++j) r[j] = r[j] * e[j];
        break;
      }
      case ChainOp::add: {
        const T* e = operand(s) + at;
        for (std::int64_t j = 0; j < len; ++j) r[j] = r[j] + e[j];
        break;
      }
      case ChainOp::scale: {
        const T a = static_cast<T>(s.alpha);
        for (std::int64_t j = 0; j < len; ++j) r[j] *= a;
        break;
      }
    }
  }

  // in_out: the block runs in `out` itself (input 0 copied there first, unless `out` is input 0),
  // which saves the copy back; else in a private L1 block, copied in and out.
  void operator()(std::int64_t begin, std::int64_t end, bool in_out) const {
    alignas(64) T block[kBlock];
    const T* x = inputs[0]->data<T>();
    for (std::int64_t at = begin; at < end; at += kBlock) {
      const std::int64_t len = std::min(kBlock, end - at);
      T* r = in_out ? out + at : block;
      if (r != x + at) std::copy_n(x + at, len, r);
      for (const ChainStep& s : steps) step(s, r, at, len);
      if (!in_out) std::copy_n(r, len, out + at);
    }
  }
};

// Whether the chain may run in `out`: no operand but input 0 shares bytes with it (a step reading
// operand k at element i after an earlier block of `out` was written would see new values).
bool out_is_private(const std::vector<const Tensor*>& inputs, const Tensor& out) {
  const auto* o = static_cast<const char*>(out.raw_data());
  for (std::size_t k = 1; k < inputs.size(); ++k) {
    const auto* p = static_cast<const char*>(inputs[k]->raw_data());
    if (p < o + out.bytes() && o < p + inputs[k]->bytes()) return false;
  }
  return true;
}

}  // namespace

void CpuBackend::fused_elementwise_impl(const std::vector<const Tensor*>& inputs, const std::vector<ChainStep>& steps,
                                        Tensor& out) {
  const Tensor& first = *inputs[0];
  if (first.numel() == 0) return;
  const std::int64_t channels = first.ndim() >= 2 ? first.dim(1) : 1;
  const std::int64_t inner = first.numel() / ((first.ndim() >= 1 ? first.dim(0) : 1) * channels);
  dispatch_float(first.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const ChainRun<T> run{inputs, steps, channels, inner, out.data<T>()};
    const bool in_out = out_is_private(inputs, out);
    parallel_for(loop_threads_, first.numel(), kElementwiseGrain,
                 [&](std::int64_t begin, std::int64_t end) { run(begin, end, in_out); });
  });
}

}  // namespace ablate::kernels::cpu
