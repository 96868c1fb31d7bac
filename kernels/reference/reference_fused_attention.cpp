// Fused attention as plain loops (the oracle): per batch index b and query row i, the whole row
// of scores s q_i . k_j is formed (length T, never the [T, T] matrix), max-subtracted and
// normalised, all in double, then rounded once. The backward forms the same row again from
// q, k and the saved lse, so it checks that the CPU loops' blocked recomputation is the same
// function; it does not read o except through D_i = dout_i . o_i.
#include <algorithm>
#include <cmath>
#include <vector>

#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {
namespace {

// s q_i . k_j for every key j of one batch index, in double.
template <class T>
void score_row(const T* q_row, const T* k_batch, std::int64_t t, std::int64_t d, double scale, std::vector<double>& s) {
  for (std::int64_t j = 0; j < t; ++j) {
    double dot = 0;
    for (std::int64_t c = 0; c < d; ++c) dot += static_cast<double>(q_row[c]) * k_batch[j * d + c];
    s[static_cast<std::size_t>(j)] = scale * dot;
  }
}

}  // namespace

// lse_i = m + log sum_j exp(s_ij - m), m = max_j s_ij;  o_i = sum_j exp(s_ij - lse_i) v_j
void ReferenceBackend::fused_attention_forward_impl(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                                                    std::int64_t, Tensor& o, Tensor& lse) {
  with_float_type(q.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t B = q.dim(0), t = q.dim(1), d = q.dim(2);
    std::vector<double> s(static_cast<std::size_t>(t)), acc(static_cast<std::size_t>(d));
    for (std::int64_t b = 0; b < B; ++b) {
      const T *qb = q.data<T>() + b * t * d, *kb = k.data<T>() + b * t * d, *vb = v.data<T>() + b * t * d;
      for (std::int64_t i = 0; i < t; ++i) {
        score_row(qb + i * d, kb, t, d, scale, s);
        double m = s[0];
        for (double x : s) m = std::max(m, x);
        double total = 0;
        for (double x : s) total += std::exp(x - m);
        const double log_total = m + std::log(total);
        std::fill(acc.begin(), acc.end(), 0.0);
        for (std::int64_t j = 0; j < t; ++j) {
          const double p = std::exp(s[static_cast<std::size_t>(j)] - log_total);
          for (std::int64_t c = 0; c < d; ++c) acc[static_cast<std::size_t>(c)] += p * vb[j * d + c];
        }
        for (std::int64_t c = 0; c < d; ++c) o.data<T>()[(b * t + i) * d + c] = static_cast<T>(acc[static_cast<std::size_t>(c)]);
        lse.data<T>()[b * t + i] = static_cast<T>(log_total);
      }
    }
  });
}

// p_ij = exp(s_ij - lse_i), D_i = dout_i . o_i, ds_ij = p_ij (dout_i . v_j - D_i);
// dq_i = s sum_j ds_ij k_j, dk_j = s sum_i ds_ij q_i, dv_j = sum_i p_ij dout_i (sums in double).
void ReferenceBackend::fused_attention_backward_impl(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o,
                                                     const Tensor& lse, const Tensor& dout, double scale, std::int64_t,
                                                     Tensor& dq, Tensor& dk, Tensor& dv) {
  with_float_type(q.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const std::int64_t B = q.dim(0), t = q.dim(1), d = q.dim(2);
    const std::size_t row = static_cast<std::size_t>(t * d);
    std::vector<double> s(static_cast<std::size_t>(t)), gq(static_cast<std::size_t>(d)), gk(row), gv(row);
    for (std::int64_t b = 0; b < B; ++b) {
      const std::int64_t base = b * t * d;
      const T *qb = q.data<T>() + base, *kb = k.data<T>() + base, *vb = v.data<T>() + base;
      const T *ob = o.data<T>() + base, *gb = dout.data<T>() + base;
      std::fill(gk.begin(), gk.end(), 0.0);
      std::fill(gv.begin(), gv.end(), 0.0);
      for (std::int64_t i = 0; i < t; ++i) {
        score_row(qb + i * d, kb, t, d, scale, s);
        const double l = lse.data<T>()[b * t + i];
        double D = 0;
        for (std::int64_t c = 0; c < d; ++c) D += static_cast<double>(gb[i * d + c]) * ob[i * d + c];
        std::fill(gq.begin(), gq.end(), 0.0);
        for (std::int64_t j = 0; j < t; ++j) {
          const double p = std::exp(s[static_cast<std::size_t>(j)] - l);
          double dp = 0;
          for (std::int64_t c = 0; c < d; ++c) dp += static_cast<double>(gb[i * d + c]) * vb[j * d + c];
          const double ds = p * (dp - D);
          for (std::int64_t c = 0; c < d; ++c) {
            const auto jc = static_cast<std::size_t>(j * d + c);
            gq[static_cast<std::size_t>(c)] += scale * ds * kb[j * d + c];
            gk[jc] += scale * ds * qb[i * d + c];
            gv[jc] += p * gb[i * d + c];
          }
        }
        for (std::int64_t c = 0; c < d; ++c) dq.data<T>()[base + i * d + c] = static_cast<T>(gq[static_cast<std::size_t>(c)]);
      }
      for (std::size_t e = 0; e < row; ++e) {
        dk.data<T>()[base + static_cast<std::int64_t>(e)] = static_cast<T>(gk[e]);
        dv.data<T>()[base + static_cast<std::int64_t>(e)] = static_cast<T>(gv[e]);
      }
    }
  });
}

}  // namespace ablate::kernels::reference
