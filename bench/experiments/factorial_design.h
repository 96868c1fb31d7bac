// Two-level factorial designs for `ablate ablate` (designed_experiment.h): the full 2^k design
// and the fractional 2^(k-p) designs of resolution IV or more with the standard generators
// (Box, Hunter & Hunter; Montgomery, "Design and Analysis of Experiments", table of 2^(k-p)
// designs). Factors are letters A, B, C, ... (I is skipped, as the tables do); a run is one sign
// per factor, -1 for the factor's first level and +1 for its second.
//
// Base factors (the first k-p) run in standard (Yates) order: in run i, base factor j is +1 when
// bit j of i is set. A generated factor is the product of the base columns its generator names
// (E = ABC). The defining relation is every product of the generator words (I = ABCE = ...);
// its shortest word is the resolution: IV means no main effect is aliased with another main
// effect or with a two-factor interaction, only two-factor interactions with each other.
// An effect is a bit mask of factors (bit j: factor j); an effect's aliases are its products
// (symmetric differences) with the words of the defining relation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace ablate::bench::experiments {

struct TwoLevelDesign {
  int factors = 0;                       // k
  int fraction = 0;                      // p (0: the full factorial)
  std::vector<std::string> generators;   // "E=ABC", one per generated factor
  std::vector<std::vector<int>> runs;    // 2^(k-p) runs of k signs (-1 or +1)
};

// The factor letter of index j: A, B, ..., H, J, K, ... (no I); throws past the 25th.
char factor_letter(int j);
// "A", "AB" for a mask of factors.
std::string effect_letters(std::uint64_t mask);

TwoLevelDesign full_factorial(int k);
// The tabulated 2^(k-p) design of resolution IV or more; throws when the table has none for
// (k, p), naming those that exist for k.
TwoLevelDesign fractional_factorial(int k, int p);
// The largest p tabulated for k (the fewest runs at resolution IV or more), 0 for none.
int largest_fraction(int k);

// Every word of the defining relation as a mask (without I); empty for a full factorial.
std::vector<std::uint64_t> defining_relation(const TwoLevelDesign& d);
// The shortest word's length; k + 1 for a full factorial (nothing aliased).
int resolution(const TwoLevelDesign& d);
// The effects aliased with `effect` (it excluded), sorted by their number of factors.
std::vector<std::uint64_t> aliases(const TwoLevelDesign& d, std::uint64_t effect);
// "IV", "V", ...; "full" for a full factorial.
std::string resolution_name(const TwoLevelDesign& d);

}  // namespace ablate::bench::experiments
