// One- and two-way analysis of variance of a full factorial design whose factors may have more
// than two levels (`ablate ablate --factor batch=16,64,256 ...`): each factor's main effect and
// each pair's interaction, as sums of squares, their share of the total variation, and an F test
// against the repeats' own spread.
//
// Cells are the design's configurations (every combination of levels), each with the mean of its
// repeats; every cell weighs the same (unweighted means, so a cell with a failed repeat does not
// tilt the level means), n_h being the harmonic mean of the cells' repeat counts. With m the grand
// mean of the cell means, m_a factor A's level means and m_ab the pair's:
//   SS_A  = n_h * (C / L_A) * sum_a (m_a - m)^2                     df = L_A - 1
//   SS_AB = n_h * (C / (L_A L_B)) * sum_ab (m_ab - m_a - m_b + m)^2  df = (L_A - 1)(L_B - 1)
//   SS_E  = sum over cells and repeats of (y - cell mean)^2          df = sum_c (n_c - 1)
// (C cells). F = (SS / df) / (SS_E / df_E), p = P(F' > F) for F' ~ F(df, df_E); without a cell of
// two repeats there is no error term and no F. eta^2 = SS / SS_total, SS_total = n_h * sum_c
// (m_c - m)^2 + SS_E. Terms above two factors stay in the remainder.
#pragma once

#include <vector>

#include "bench/experiments/bootstrap_interval.h"

namespace ablate::bench::experiments {

struct FullFactorial {
  std::vector<int> levels;                // per factor, its number of levels
  std::vector<std::vector<int>> cells;    // per cell, each factor's level index (every combination once)
};
// Every combination; the first factor varies slowest.
FullFactorial full_factorial_levels(const std::vector<int>& levels);

struct AnovaTerm {
  std::vector<int> factors;  // one (main effect) or two (interaction)
  double ss = 0, df = 0, eta_squared = 0;
  double f = -1, p = -1;     // -1: no error term
};

struct AnovaTable {
  std::vector<AnovaTerm> main, pairs;  // pairs in order (0,1), (0,2), ..., (1,2), ...
  double ss_error = 0, df_error = 0, ss_total = 0;
};

AnovaTable anova(const FullFactorial& design, const Cells& cells);

// Factor f's level means from the cell means (each cell equal weight).
std::vector<double> level_means(const FullFactorial& design, const std::vector<double>& means, int factor);

// P(F' > f) for F' ~ F(d1, d2).
double f_distribution_tail(double f, double d1, double d2);

}  // namespace ablate::bench::experiments
