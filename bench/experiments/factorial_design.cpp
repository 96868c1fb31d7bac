// Full and fractional two-level designs, their defining relations and aliases (factorial_design.h).
#include "bench/experiments/factorial_design.h"

#include <algorithm>
#include <bit>
#include <map>
#include <stdexcept>
#include <utility>

namespace ablate::bench::experiments {

namespace {

constexpr const char* kLetters = "ABCDEFGHJKLMNOPQRSTUVWXYZ";  // no I (the identity)
constexpr int kMaxFactors = 25;

// (k, p) -> the generated factors' words, resolution IV or more (Montgomery, Table 8.14).
const std::map<std::pair<int, int>, std::vector<std::string>>& generator_table() {
  static const std::map<std::pair<int, int>, std::vector<std::string>> table = {
      {{4, 1}, {"D=ABC"}},
      {{5, 1}, {"E=ABCD"}},
      {{6, 1}, {"F=ABCDE"}},
      {{6, 2}, {"E=ABC", "F=BCD"}},
      {{7, 1}, {"G=ABCDEF"}},
      {{7, 2}, {"F=ABCD", "G=ABDE"}},
      {{7, 3}, {"E=ABC", "F=BCD", "G=ACD"}},
      {{8, 2}, {"G=ABCD", "H=ABEF"}},
      {{8, 3}, {"F=ABC", "G=ABD", "H=BCDE"}},
      {{8, 4}, {"E=BCD", "F=ACD", "G=ABC", "H=ABD"}},
      {{9, 3}, {"G=ABCD", "H=ACEF", "J=CDEF"}},
      {{9, 4}, {"F=BCDE", "G=ACDE", "H=ABDE", "J=ABCE"}},
      {{10, 4}, {"G=BCDF", "H=ACDF", "J=ABDE", "K=ABCE"}},
      {{10, 5}, {"F=ABCD", "G=ABCE", "H=ABDE", "J=ACDE", "K=BCDE"}},
      {{11, 5}, {"G=CDE", "H=ABCD", "J=ABF", "K=BDEF", "L=ADEF"}},
      {{11, 6}, {"F=ABC", "G=BCD", "H=CDE", "J=ACD", "K=ADE", "L=BDE"}},
  };
  return table;
}

int letter_index(char c) {
  const std::string letters = kLetters;
  const auto at = letters.find(c);
  if (at == std::string::npos) throw std::logic_error(std::string("factor letter '") + c + "' is not a design letter");
  return static_cast<int>(at);
}

// "E=ABC" -> the mask of E, A, B and C (the word I = ABCE).
std::uint64_t generator_word(const std::string& g) {
  std::uint64_t w = 0;
  for (char c : g)
    if (c != '=') w ^= std::uint64_t{1} << letter_index(c);
  return w;
}

void check_k(int k) {
  if (k < 1 || k > kMaxFactors)
    throw std::invalid_argument("a two-level design of " + std::to_string(k) + " factors: expected 1 to " +
                                std::to_string(kMaxFactors));
}

}  // namespace

char factor_letter(int j) {
  if (j < 0 || j >= kMaxFactors) throw std::out_of_range("factor index " + std::to_string(j) + " has no design letter");
  return kLetters[j];
}

std::string effect_letters(std::uint64_t mask) {
  std::string s;
  for (int j = 0; j < 64; ++j)
    if (mask >> j & 1) s += factor_letter(j);
  return s;
}

TwoLevelDesign full_factorial(int k) {
  check_k(k);
  if (k > 20) throw std::invalid_argument("a full 2^" + std::to_string(k) + " design is too large; use a fraction");
  TwoLevelDesign d;
  d.factors = k;
  for (std::uint64_t i = 0; i < (std::uint64_t{1} << k); ++i) {
    std::vector<int> run(static_cast<std::size_t>(k));
    for (int j = 0; j < k; ++j) run[static_cast<std::size_t>(j)] = (i >> j & 1) ? 1 : -1;
    d.runs.push_back(std::move(run));
  }
  return d;
}

int largest_fraction(int k) {
  int p = 0;
  for (const auto& [kp, g] : generator_table())
    if (kp.first == k) p = std::max(p, kp.second);
  return p;
}

TwoLevelDesign fractional_factorial(int k, int p) {
  check_k(k);
  if (p == 0) return full_factorial(k);
  const auto it = generator_table().find({k, p});
  if (it == generator_table().end()) {
    std::string known;
    for (const auto& [kp, g] : generator_table())
      if (kp.first == k) known += (known.empty() ? "" : ", ") + std::to_string(kp.second);
    throw std::invalid_argument("--fraction " + std::to_string(p) + ": no 2^(" + std::to_string(k) + "-" +
                                std::to_string(p) + ") design of resolution IV or more is tabulated for " +
                                std::to_string(k) + " factors (expected 0 for the full design" +
                                (known.empty() ? "" : ", or " + known) + ")");
  }
  TwoLevelDesign d = full_factorial(k - p);
  d.factors = k;
  d.fraction = p;
  d.generators = it->second;
  for (auto& run : d.runs) {
    for (const std::string& g : d.generators) {
      int sign = 1;
      for (char c : g.substr(2)) sign *= run[static_cast<std::size_t>(letter_index(c))];
      run.push_back(sign);
    }
  }
  return d;
}

std::vector<std::uint64_t> defining_relation(const TwoLevelDesign& d) {
  std::vector<std::uint64_t> gens;
  for (const std::string& g : d.generators) gens.push_back(generator_word(g));
  std::vector<std::uint64_t> words;
  for (std::uint64_t subset = 1; subset < (std::uint64_t{1} << gens.size()); ++subset) {
    std::uint64_t w = 0;
    for (std::size_t j = 0; j < gens.size(); ++j)
      if (subset >> j & 1) w ^= gens[j];
    words.push_back(w);
  }
  std::sort(words.begin(), words.end(), [](std::uint64_t a, std::uint64_t b) {
    return std::popcount(a) != std::popcount(b) ? std::popcount(a) < std::popcount(b) : a < b;
  });
  return words;
}

int resolution(const TwoLevelDesign& d) {
  int r = d.factors + 1;
  for (std::uint64_t w : defining_relation(d)) r = std::min(r, std::popcount(w));
  return r;
}

std::vector<std::uint64_t> aliases(const TwoLevelDesign& d, std::uint64_t effect) {
  std::vector<std::uint64_t> out;
  for (std::uint64_t w : defining_relation(d)) out.push_back(effect ^ w);
  std::sort(out.begin(), out.end(), [](std::uint64_t a, std::uint64_t b) {
    return std::popcount(a) != std::popcount(b) ? std::popcount(a) < std::popcount(b) : a < b;
  });
  return out;
}

std::string resolution_name(const TwoLevelDesign& d) {
  if (d.fraction == 0) return "full";
  static const char* roman[] = {"0", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII"};
  const int r = resolution(d);
  return r < 13 ? roman[r] : std::to_string(r);
}

}  // namespace ablate::bench::experiments
