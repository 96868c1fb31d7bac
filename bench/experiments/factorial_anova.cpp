// One- and two-way ANOVA of a full factorial (factorial_anova.h).
#include "bench/experiments/factorial_anova.h"

#include <cmath>
#include <stdexcept>

namespace ablate::bench::experiments {

namespace {

// The continued fraction of the regularized incomplete beta function (modified Lentz).
double beta_fraction(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1, d = 1 - (a + b) * x / (a + 1);
  d = 1 / (std::abs(d) < tiny ? tiny : d);
  double h = d;
  for (int m = 1; m <= 300; ++m) {
    const double m2 = 2.0 * m;
    double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
    d = 1 + aa * d;
    d = 1 / (std::abs(d) < tiny ? tiny : d);
    c = 1 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    h *= d * c;
    aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
    d = 1 + aa * d;
    d = 1 / (std::abs(d) < tiny ? tiny : d);
    c = 1 + aa / c;
    if (std::abs(c) < tiny) c = tiny;
    const double delta = d * c;
    h *= delta;
    if (std::abs(delta - 1) < 1e-15) break;
  }
  return h;
}

// I_x(a, b).
double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) + a * std::log(x) + b * std::log(1 - x));
  return x < (a + 1) / (a + b + 2) ? front * beta_fraction(a, b, x) / a : 1 - front * beta_fraction(b, a, 1 - x) / b;
}

}  // namespace

double f_distribution_tail(double f, double d1, double d2) {
  if (!(f > 0)) return 1;
  return incomplete_beta(d2 / 2, d1 / 2, d2 / (d2 + d1 * f));
}

FullFactorial full_factorial_levels(const std::vector<int>& levels) {
  FullFactorial d{levels, {{}}};
  for (int l : levels) {
    if (l < 1) throw std::invalid_argument("a factor of " + std::to_string(l) + " levels");
    std::vector<std::vector<int>> next;
    for (const auto& partial : d.cells)
      for (int v = 0; v < l; ++v) {
        auto c = partial;
        c.push_back(v);
        next.push_back(std::move(c));
      }
    d.cells = std::move(next);
  }
  return d;
}

std::vector<double> level_means(const FullFactorial& design, const std::vector<double>& means, int factor) {
  const auto f = static_cast<std::size_t>(factor);
  std::vector<double> sum(static_cast<std::size_t>(design.levels[f]), 0), count(sum.size(), 0);
  for (std::size_t c = 0; c < design.cells.size(); ++c) {
    sum[static_cast<std::size_t>(design.cells[c][f])] += means[c];
    count[static_cast<std::size_t>(design.cells[c][f])] += 1;
  }
  for (std::size_t l = 0; l < sum.size(); ++l) sum[l] /= count[l];
  return sum;
}

AnovaTable anova(const FullFactorial& design, const Cells& cells) {
  if (cells.size() != design.cells.size())
    throw std::invalid_argument("ANOVA of " + std::to_string(cells.size()) + " cells for a design of " +
                                std::to_string(design.cells.size()));
  const std::vector<double> means = cell_means(cells);
  const double C = static_cast<double>(cells.size());
  double grand = 0, inverse_n = 0;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    grand += means[c] / C;
    inverse_n += 1.0 / static_cast<double>(cells[c].size()) / C;
  }
  const double n_h = 1 / inverse_n;
  AnovaTable t;
  for (std::size_t c = 0; c < cells.size(); ++c) {
    for (double y : cells[c]) t.ss_error += (y - means[c]) * (y - means[c]);
    t.df_error += static_cast<double>(cells[c].size()) - 1;
    t.ss_total += n_h * (means[c] - grand) * (means[c] - grand);
  }
  t.ss_total += t.ss_error;
  const int k = static_cast<int>(design.levels.size());
  std::vector<std::vector<double>> lm;
  for (int f = 0; f < k; ++f) lm.push_back(level_means(design, means, f));
  auto finish = [&](AnovaTerm& term) {
    term.eta_squared = t.ss_total > 0 ? term.ss / t.ss_total : 0;
    if (t.df_error > 0 && term.df > 0 && t.ss_error > 0) {
      term.f = (term.ss / term.df) / (t.ss_error / t.df_error);
      term.p = f_distribution_tail(term.f, term.df, t.df_error);
    }
  };
  for (int f = 0; f < k; ++f) {
    AnovaTerm term{{f}, 0, static_cast<double>(design.levels[static_cast<std::size_t>(f)] - 1)};
    for (double m : lm[static_cast<std::size_t>(f)]) term.ss += (m - grand) * (m - grand);
    term.ss *= n_h * C / design.levels[static_cast<std::size_t>(f)];
    finish(term);
    t.main.push_back(term);
  }
  for (int a = 0; a < k; ++a)
    for (int b = a + 1; b < k; ++b) {
      const auto ua = static_cast<std::size_t>(a), ub = static_cast<std::size_t>(b);
      const int La = design.levels[ua], Lb = design.levels[ub];
      std::vector<double> sum(static_cast<std::size_t>(La * Lb), 0), count(sum.size(), 0);
      for (std::size_t c = 0; c < cells.size(); ++c) {
        const auto at = static_cast<std::size_t>(design.cells[c][ua] * Lb + design.cells[c][ub]);
        sum[at] += means[c];
        count[at] += 1;
      }
      AnovaTerm term{{a, b}, 0, static_cast<double>((La - 1) * (Lb - 1))};
      for (int i = 0; i < La; ++i)
        for (int j = 0; j < Lb; ++j) {
          const auto at = static_cast<std::size_t>(i * Lb + j);
          const double r = sum[at] / count[at] - lm[ua][static_cast<std::size_t>(i)] - lm[ub][static_cast<std::size_t>(j)] + grand;
          term.ss += r * r;
        }
      term.ss *= n_h * C / (La * Lb);
      finish(term);
      t.pairs.push_back(term);
    }
  return t;
}

}  // namespace ablate::bench::experiments
