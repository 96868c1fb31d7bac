// Conformance cases of the connection-table convolution (Torch's SpatialConvolutionMap):
// conv2d_map forward, backward data and backward weights (with and without bias) over the
// random geometries of conformance_conv_shape.h with 1-6 planes in and out and random tables
// (Torch's nn.tables.random order, or its rows shuffled), plus fan_in 1 (Torch CIFAR-10's
// first layer), fan_in = C (the full table, a dense convolution), a scaled-down CIFAR-10
// second layer (16 -> 32 planes, fan_in 4, 5x5), and a table with a repeated connection and
// an output plane that nothing feeds (its output is the bias alone).
#include <algorithm>
#include <numeric>
#include <sstream>

#include "conformance.h"
#include "conformance_conv_shape.h"

namespace ablate::kernels::test {
namespace {

struct MapShape {
  ConvShape s;                      // C input planes, K output planes
  std::vector<std::int32_t> table;  // [T, 2]: (input plane, output plane)
  std::int64_t T() const { return static_cast<std::int64_t>(table.size() / 2); }
  Shape w() const { return {T(), s.KH, s.KW}; }
  // The most connections any one plane of `column` (0: input, 1: output) has, at least 1.
  std::int64_t most_connections(int column) const {
    std::vector<std::int64_t> count(static_cast<std::size_t>(column == 0 ? s.C : s.K), 0);
    for (std::size_t r = 0; r < table.size(); r += 2) ++count[static_cast<std::size_t>(table[r + column])];
    return std::max<std::int64_t>(1, *std::max_element(count.begin(), count.end()));
  }
  std::string describe() const {
    std::ostringstream out;
    out << "x " << shape_string(s.x()) << ", " << s.K << " output planes, w " << shape_string(w()) << ", stride "
        << s.p.stride_h << "x" << s.p.stride_w << ", pad t" << s.p.pad_top << " l" << s.p.pad_left << " b"
        << s.p.pad_bottom << " r" << s.p.pad_right << (s.bias ? ", bias" : ", no bias") << ", table";
    for (std::size_t r = 0; r < table.size(); r += 2) out << " " << table[r] << ">" << table[r + 1];
    return out.str();
  }
};

// Torch's nn.tables.random(C, K, fan_in) order: output planes in turn, each the next fan_in
// planes of a random permutation of the inputs, redrawn when too few are left.
std::vector<std::int32_t> random_table(Rng& rng, std::int64_t C, std::int64_t K, std::int64_t fan_in) {
  std::vector<std::int32_t> perm(static_cast<std::size_t>(C)), table;
  std::size_t next = perm.size();
  for (std::int64_t o = 0; o < K; ++o) {
    if (next + static_cast<std::size_t>(fan_in) > perm.size()) {
      std::iota(perm.begin(), perm.end(), 0);
      std::shuffle(perm.begin(), perm.end(), rng);
      next = 0;
    }
    for (std::int64_t f = 0; f < fan_in; ++f) {
      table.push_back(perm[next++]);
      table.push_back(static_cast<std::int32_t>(o));
    }
  }
  return table;
}

void shuffle_rows(Rng& rng, std::vector<std::int32_t>& table) {
  std::vector<std::pair<std::int32_t, std::int32_t>> rows;
  for (std::size_t r = 0; r < table.size(); r += 2) rows.emplace_back(table[r], table[r + 1]);
  std::shuffle(rows.begin(), rows.end(), rng);
  for (std::size_t r = 0; r < rows.size(); ++r) std::tie(table[2 * r], table[2 * r + 1]) = rows[r];
}

Tensor table_tensor(const MapShape& m) {
  Tensor t({m.T(), 2}, DType::i32);
  std::copy(m.table.begin(), m.table.end(), t.data<std::int32_t>());
  return t;
}

void add_map_cases(std::vector<Case>& cases, const MapShape& m, std::uint64_t seed) {
  const ConvShape& s = m.s;
  const double taps = double(s.KH * s.KW);
  cases.push_back({"conv2d_map_forward", m.describe(), seed, [m, s, taps](OpRun& r) {
                     Tensor x = r.input(s.x()), w = r.input(m.w()), table = r.place(table_tensor(m));
                     Tensor bias = s.bias ? r.input({s.K}) : Tensor();
                     Tensor y = r.output(s.y());
                     r.backend().conv2d_map_forward(x, w, bias, table, y, s.p);
                     r.keep("y", y, taps * double(m.most_connections(1)));
                   }});
  cases.push_back({"conv2d_map_backward_data", m.describe(), seed + 1, [m, s, taps](OpRun& r) {
                     Tensor dy = r.input(s.y()), w = r.input(m.w()), table = r.place(table_tensor(m));
                     Tensor dx = r.output(s.x());
                     r.backend().conv2d_map_backward_data(dy, w, table, dx, s.p);
                     r.keep("dx", dx, taps * double(m.most_connections(0)));
                   }});
  cases.push_back({"conv2d_map_backward_weights", m.describe(), seed + 2, [m, s](OpRun& r) {
                     Tensor x = r.input(s.x()), dy = r.input(s.y()), table = r.place(table_tensor(m));
                     Tensor dw = r.output(m.w());
                     Tensor dbias = s.bias ? r.output({s.K}) : Tensor();
                     r.backend().conv2d_map_backward_weights(x, dy, table, dw, dbias, s.p);
                     const double terms = double(s.N * s.out_h() * s.out_w());
                     r.keep("dw", dw, terms);
                     if (s.bias) r.keep("dbias", dbias, terms);
                   }});
}

MapShape torch_map(Rng& rng, ConvShape s, std::int64_t fan_in) { return {s, random_table(rng, s.C, s.K, fan_in)}; }

}  // namespace

std::vector<Case> conv_map_cases() {
  std::vector<Case> cases;
  Rng rng(0xC0A1A9);
  for (int i = 0; i < 60; ++i) {
    ConvShape s = random_conv_shape(rng);
    s.C = random_int(rng, 1, 6);
    s.K = random_int(rng, 1, 6);
    MapShape m = torch_map(rng, s, random_int(rng, 1, static_cast<int>(s.C)));
    if (random_int(rng, 0, 1) == 1) shuffle_rows(rng, m.table);
    add_map_cases(cases, m, 5000 + 10 * i);
  }
  // Torch CIFAR-10's first layer, scaled: 3 -> 16 planes, fan_in 1, 5x5.
  add_map_cases(cases, torch_map(rng, ConvShape{2, 3, 12, 12, 16, 5, 5, Conv2dParams{}, true}, 1), 6000);
  // The full table (fan_in = C) on an odd input with stride 2 and padding 1.
  add_map_cases(cases, torch_map(rng, ConvShape{2, 4, 9, 9, 5, 3, 3, Conv2dParams{2, 2, 1, 1, 1, 1}, false}, 4), 6100);
  // Torch CIFAR-10's second layer, scaled: 16 -> 32 planes, fan_in 4, 5x5, batch 1 and 2.
  add_map_cases(cases, torch_map(rng, ConvShape{2, 16, 10, 10, 32, 5, 5, Conv2dParams{}, true}, 4), 6200);
  add_map_cases(cases, torch_map(rng, ConvShape{1, 16, 9, 11, 32, 5, 5, Conv2dParams{}, true}, 4), 6300);
  // A repeated connection (0 > 1 twice) and output plane 2 fed by nothing, stride 2x1 with
  // asymmetric padding.
  MapShape odd{ConvShape{3, 3, 7, 6, 3, 3, 2, Conv2dParams{2, 1, 1, 0, 0, 1}, true}, {0, 1, 2, 0, 0, 1, 1, 0, 2, 1}};
  add_map_cases(cases, odd, 6400);
  return cases;
}

}  // namespace ablate::kernels::test
