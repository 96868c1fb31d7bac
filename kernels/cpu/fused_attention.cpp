// Fused attention on the CPU backends (eigen, openblas and onednn share it): FlashAttention's
// recurrence (Dao et al. 2022; Milakov and Gimelshein 2018's online softmax) as an OpenMP loop
// over the batch index b = (sample, head). For each query row i the keys are visited `block` at
// a time; a block's scores s_j = scale q_i . k_j (at most `block` of them, in a per-thread
// scratch) update a running max m, a running sum l and the running output a:
//   m' = max(m, max_j s_j),  c = exp(m - m'),  l' = c l + sum_j exp(s_j - m'),
//   a' = c a + sum_j exp(s_j - m') v_j;  at the end o_i = a / l, lse_i = m + log l.
// No [T, T] matrix exists, in the forward or the backward. The backward recomputes each block's
// p_j = exp(s_j - lse_i) and accumulates
//   dv_j += p_j dout_i,  ds_j = p_j (dout_i . v_j - D_i),  dq_i += s ds_j k_j,  dk_j += s ds_j q_i
// with D_i = dout_i . o_i; dk and dv of one batch index belong to one thread, so the sums have
// a fixed order and the result does not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {
namespace {

template <class T> T dot(const T* a, const T* b, std::int64_t d) {
  T sum = 0;
  for (std::int64_t c = 0; c < d; ++c) sum += a[c] * b[c];
  return sum;
}

// Batch indices per parallel chunk: about kElementwiseGrain multiply-adds of scores each.
std::int64_t batch_grain(std::int64_t t, std::int64_t d) {
  return std::max<std::int64_t>(1, kElementwiseGrain / std::max<std::int64_t>(1, t * t * d));
}

}  // namespace

void CpuBackend::fused_attention_forward_impl(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                                              std::int64_t block, Tensor& o, Tensor& lse) {
  dispatch_float(q.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t B = q.dim(0), t = q.dim(1), d = q.dim(2), bk = std::min(block, t);
    const T s = static_cast<T>(scale);
    parallel_for(loop_threads_, B, batch_grain(t, d), [&](std::int64_t b0, std::int64_t b1) {
      std::vector<T> scores(static_cast<std::size_t>(bk));
      for (std::int64_t b = b0; b < b1; ++b) {
        const T *qb = q.data<T>() + b * t * d, *kb = k.data<T>() + b * t * d, *vb = v.data<T>() + b * t * d;
        T* ob = o.data<T>() + b * t * d;
        for (std::int64_t i = 0; i < t; ++i) {
          T* a = ob + i * d;
          std::fill(a, a + d, T(0));
          T m = -std::numeric_limits<T>::infinity(), l = 0;
          for (std::int64_t j0 = 0; j0 < t; j0 += bk) {
            const std::int64_t n = std::min(bk, t - j0);
            T block_max = -std::numeric_limits<T>::infinity();
            for (std::int64_t j = 0; j < n; ++j) {
              scores[static_cast<std::size_t>(j)] = s * dot(qb + i * d, kb + (j0 + j) * d, d);
              block_max = std::max(block_max, scores[static_cast<std::size_t>(j)]);
            }
            const T m_new = std::max(m, block_max), c = std::exp(m - m_new);
            l *= c;
            for (std::int64_t e = 0; e < d; ++e) a[e] *= c;
            for (std::int64_t j = 0; j < n; ++j) {
              const T p = std::exp(scores[static_cast<std::size_t>(j)] - m_new);
              l += p;
              const T* vj = vb + (j0 + j) * d;
              for (std::int64_t e = 0; e < d; ++e) a[e] += p * vj[e];
            }
            m = m_new;
          }
          const T inv = T(1) / l;
          for (std::int64_t e = 0; e < d; ++e) a[e] *= inv;
          lse.data<T>()[b * t + i] = m + std::log(l);
        }
      }
    });
  });
}

void CpuBackend::fused_attention_backward_impl(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o,
                                               const Tensor& lse, const Tensor& dout, double scale, std::int64_t block,
                                               Tensor& dq, Tensor& dk, Tensor& dv) {
  dispatch_float(q.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t B = q.dim(0), t = q.dim(1), d = q.dim(2), bk = std::min(block, t);
    const T s = static_cast<T>(scale);
    parallel_for(loop_threads_, B, batch_grain(t, d), [&](std::int64_t b0, std::int64_t b1) {
      std::vector<T> p(static_cast<std::size_t>(bk));
      for (std::int64_t b = b0; b < b1; ++b) {
        const std::int64_t base = b * t * d;
        const T *qb = q.data<T>() + base, *kb = k.data<T>() + base, *vb = v.data<T>() + base;
        const T *ob = o.data<T>() + base, *gb = dout.data<T>() + base, *lb = lse.data<T>() + b * t;
        T *gq = dq.data<T>() + base, *gk = dk.data<T>() + base, *gv = dv.data<T>() + base;
        std::fill(gk, gk + t * d, T(0));
        std::fill(gv, gv + t * d, T(0));
        for (std::int64_t i = 0; i < t; ++i) {
          const T *qi = qb + i * d, *gi = gb + i * d;
          T* dqi = gq + i * d;
          std::fill(dqi, dqi + d, T(0));
          const T D = dot(gi, ob + i * d, d);
          for (std::int64_t j0 = 0; j0 < t; j0 += bk) {
            const std::int64_t n = std::min(bk, t - j0);
            for (std::int64_t j = 0; j < n; ++j)
              p[static_cast<std::size_t>(j)] = std::exp(s * dot(qi, kb + (j0 + j) * d, d) - lb[i]);
            for (std::int64_t j = 0; j < n; ++j) {
              const std::int64_t row = (j0 + j) * d;
              const T pj = p[static_cast<std::size_t>(j)];
              const T ds = s * pj * (dot(gi, vb + row, d) - D);
              for (std::int64_t e = 0; e < d; ++e) {
                gv[row + e] += pj * gi[e];
                dqi[e] += ds * kb[row + e];
                gk[row + e] += ds * qi[e];
              }
            }
          }
        }
      }
    });
  });
}

}  // namespace ablate::kernels::cpu
