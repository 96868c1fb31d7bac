// Conformance cases of pooling: max and avg under each padding convention (Caffe ceil, TF
// SAME, valid), forward and backward, over seeded random shapes with odd sizes, kernels 1-4,
// strides 1-3 and padding below the kernel; plus the framework layers (Caffe cifar10_quick
// 3/2, TF MNIST 2/2 SAME, Torch 3/3 pad 1). pool_tie_cases: max pooling over inputs full of
// ties (a few values, half of them zero, as Fashion-MNIST's backgrounds), where the gradient's
// destination depends on the backend's pool_gradient (first or all).
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "conformance.h"
#include "kernels/op_params.h"

namespace ablate::kernels::test {
namespace {

struct PoolShape {
  std::int64_t N, C, H, W;
  Pool2dParams p;
  std::string convention;
  int pad;
  Shape x() const { return {N, C, H, W}; }
  Shape y() const { return {N, C, p.out_h, p.out_w}; }
  std::string describe() const {
    std::ostringstream s;
    s << (p.kind == PoolKind::max ? "max" : "avg") << " " << convention << ", x " << shape_string(x()) << ", kernel "
      << p.kernel_h << ", stride " << p.stride_h << ", pad " << pad << " -> " << shape_string(y());
    return s.str();
  }
};

PoolShape pool_shape(PoolKind kind, PoolPadding padding, std::int64_t N, std::int64_t C, int H, int W, int kernel,
                     int stride, int pad) {
  return {N, C, H, W, make_pool2d_params(kind, kernel, stride, pad, padding, H, W), pool_padding_name(padding), pad};
}

// Draws until make_pool2d_params accepts the geometry (it rejects windows outside the input).
PoolShape random_pool_shape(Rng& rng, PoolKind kind, PoolPadding padding) {
  for (;;) {
    int kernel = random_int(rng, 1, 4), stride = random_int(rng, 1, 3);
    int pad = padding == PoolPadding::tf_same ? 0 : random_int(rng, 0, kernel - 1);
    int H = random_int(rng, 1, 12), W = random_int(rng, 1, 12);
    std::int64_t N = random_int(rng, 1, 3), C = random_int(rng, 1, 3);
    try {
      return pool_shape(kind, padding, N, C, H, W, kernel, stride, pad);
    } catch (const std::invalid_argument&) {
    }
  }
}

void add_pool_cases(std::vector<Case>& cases, const PoolShape& s, std::uint64_t seed) {
  double window = double(s.p.kernel_h * s.p.kernel_w);
  cases.push_back({"pool2d_forward", s.describe(), seed, [s, window](OpRun& r) {
                     Tensor x = r.input(s.x()), y = r.output(s.y()), workspace;
                     r.backend().pool2d_forward(x, y, workspace, s.p);
                     r.keep("y", y, window);
                   }});
  cases.push_back({"pool2d_backward", s.describe(), seed + 1, [s, window](OpRun& r) {
                     Tensor x = r.input(s.x()), y = r.output(s.y()), workspace;
                     r.backend().pool2d_forward(x, y, workspace, s.p);
                     Tensor dy = r.input(s.y()), dx = r.output(s.x());
                     r.backend().pool2d_backward(x, y, dy, workspace, dx, s.p);
                     // A cell receives from every window that covers it: at most ceil(k/s)^2.
                     r.keep("dx", dx, window);
                   }});
}

// x with values in {-1, -0.5, 0, 0.5, 1}, half of them 0: most windows hold tied maxima.
Tensor tied_input(OpRun& r, const Shape& shape) {
  Tensor host = random_tensor(shape, r.dtype(), r.rng(), -1.0, 1.0);
  for (std::int64_t i = 0; i < host.numel(); ++i) {
    const double v = host.at(i);
    host.set(i, i % 2 == 0 ? 0.0 : std::round(v * 2) / 2);
  }
  return r.place(host);
}

void add_tie_cases(std::vector<Case>& cases, const PoolShape& s, std::uint64_t seed) {
  const double window = double(s.p.kernel_h * s.p.kernel_w);
  cases.push_back({"pool2d_backward", "ties, " + s.describe(), seed, [s, window](OpRun& r) {
                     Tensor x = tied_input(r, s.x()), y = r.output(s.y()), workspace;
                     r.backend().pool2d_forward(x, y, workspace, s.p);
                     Tensor dy = r.input(s.y()), dx = r.output(s.x());
                     r.backend().pool2d_backward(x, y, dy, workspace, dx, s.p);
                     r.keep("y", y, window);
                     r.keep("dx", dx, window);
                   }});
}

}  // namespace

std::vector<Case> pool_tie_cases() {
  std::vector<Case> cases;
  Rng rng(0x71E5);
  std::uint64_t seed = 3900;
  for (PoolPadding padding : {PoolPadding::caffe_ceil, PoolPadding::tf_same, PoolPadding::valid}) {
    for (int i = 0; i < 8; ++i, seed += 10) add_tie_cases(cases, random_pool_shape(rng, PoolKind::max, padding), seed);
    add_tie_cases(cases, pool_shape(PoolKind::max, padding, 2, 3, 12, 12, 2, 2, 0), seed += 10);  // LeNet 2/2
    add_tie_cases(cases, pool_shape(PoolKind::max, padding, 2, 3, 24, 24, 2, 2, 0), seed += 10);  // LeNet's pool1
    add_tie_cases(cases, pool_shape(PoolKind::max, padding, 2, 2, 9, 9, 3, 2, 0), seed += 10);    // overlapping 3/2
    add_tie_cases(cases, pool_shape(PoolKind::max, padding, 1, 2, 4, 62, 2, 2, 0), seed += 10);   // rows of 31 = 16+8+4+2+1
    add_tie_cases(cases, pool_shape(PoolKind::max, padding, 1, 2, 5, 70, 3, 2, 0), seed += 10);   // 16+16+16 overlapping
  }
  return cases;
}

std::vector<Case> pool_cases() {
  std::vector<Case> cases;
  Rng rng(0x9001);
  std::uint64_t seed = 3000;
  for (PoolKind kind : {PoolKind::max, PoolKind::avg})
    for (PoolPadding padding : {PoolPadding::caffe_ceil, PoolPadding::tf_same, PoolPadding::valid}) {
      for (int i = 0; i < 12; ++i, seed += 10) add_pool_cases(cases, random_pool_shape(rng, kind, padding), seed);
      // The framework layers.
      add_pool_cases(cases, pool_shape(kind, padding, 2, 3, 15, 15, 3, 2, 0), seed += 10);  // cifar10_quick 3/2
      add_pool_cases(cases, pool_shape(kind, padding, 1, 2, 14, 13, 2, 2, 0), seed += 10);  // MNIST 2/2
      // LeNet's pool1: rows of 12 cells, each one 16-lane vector over two input vectors
      // (max_pool_2x2_rows.h in an AVX-512 build), and rows of 16, a vector's whole width.
      add_pool_cases(cases, pool_shape(kind, padding, 2, 3, 24, 24, 2, 2, 0), seed += 10);
      add_pool_cases(cases, pool_shape(kind, padding, 1, 2, 6, 32, 2, 2, 0), seed += 10);
      // 2x2 rows of 31 cells: every chunk width of the loops (16, 8, 4, 2, 1; fixed_widths.h).
      add_pool_cases(cases, pool_shape(kind, padding, 1, 2, 4, 62, 2, 2, 0), seed += 10);
      if (padding != PoolPadding::tf_same)
        add_pool_cases(cases, pool_shape(kind, padding, 2, 2, 10, 11, 3, 3, 1), seed += 10);  // Torch 3/3 pad 1
      add_pool_cases(cases, pool_shape(kind, padding, 2, 32, 8, 9, 3, 2, 0), seed += 10);  // 32 channels
      // Rows of 34 and 38 full windows (3/2, 3/1): chunks of 16 and a last one overlapping.
      add_pool_cases(cases, pool_shape(kind, padding, 1, 2, 5, 70, 3, 2, 0), seed += 10);
      add_pool_cases(cases, pool_shape(kind, padding, 1, 2, 5, 40, 3, 1, 0), seed += 10);
      // Caffe's dropped last window: 3/2 pad 2 over 4 gives 3, not 4.
      if (padding == PoolPadding::caffe_ceil)
        add_pool_cases(cases, pool_shape(kind, padding, 1, 2, 4, 6, 3, 2, 2), seed += 10);
    }
  return cases;
}

}  // namespace ablate::kernels::test
