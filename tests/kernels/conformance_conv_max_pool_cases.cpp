// Conformance cases of the convolution fused with its max pooling (Backend::
// conv2d_max_pool_forward and its weight gradient): LeNet's conv1 and pool1 over more images
// than one of the CPU backends' slices holds (kernels/cpu/conv_max_pool.cpp runs a few images at
// a time; at one thread 5 of LeNet's, at two 10), a padded strided convolution under
// overlapping 3/2 windows whose last one Caffe's ceil rule clips, TF's SAME 2/2, and random
// shapes. x, w and the bias hold small integers, so that the convolution's output is exact on
// every backend and its maxima (ties among them, the first wins) lie on the same cells; dy is
// random.
#include <cmath>

#include "conformance.h"
#include "conformance_conv_shape.h"

namespace ablate::kernels::test {
namespace {

// Integers in [-2, 2] of the run's dtype, on its backend.
Tensor integers(OpRun& r, const Shape& shape) {
  Tensor host = random_tensor(shape, r.dtype(), r.rng(), -2.5, 2.5);
  for (std::int64_t i = 0; i < host.numel(); ++i) host.set(i, std::round(host.at(i)));
  return r.place(host);
}

struct ConvPoolShape {
  ConvShape conv;
  Pool2dParams pool;
  std::string convention;
  Shape y() const { return {conv.N, conv.K, pool.out_h, pool.out_w}; }
  std::string describe() const {
    return conv.describe() + ", max pool " + convention + " " + std::to_string(pool.kernel_h) + "/" +
           std::to_string(pool.stride_h) + " -> " + shape_string(y());
  }
};

ConvPoolShape conv_pool_shape(const ConvShape& conv, int kernel, int stride, PoolPadding padding) {
  return {conv, make_pool2d_params(PoolKind::max, kernel, stride, 0, padding, static_cast<int>(conv.out_h()),
                                   static_cast<int>(conv.out_w())),
          pool_padding_name(padding)};
}

void add_cases(std::vector<Case>& cases, const ConvPoolShape& s, std::uint64_t seed) {
  const ConvShape& c = s.conv;
  const double window = double(s.pool.kernel_h * s.pool.kernel_w), taps = double(c.C * c.KH * c.KW);
  cases.push_back({"conv2d_max_pool_forward", s.describe(), seed, [s, c, taps](OpRun& r) {
                     Tensor x = integers(r, c.x()), w = integers(r, c.w());
                     Tensor bias = c.bias ? integers(r, {c.K}) : Tensor(), y = r.output(s.y()), workspace;
                     r.backend().conv2d_max_pool_forward(x, w, bias, y, workspace, c.p, s.pool);
                     r.keep("y", y, taps);
                   }});
  cases.push_back({"conv2d_max_pool_backward_weights", s.describe(), seed + 1, [s, c, window](OpRun& r) {
                     Tensor x = integers(r, c.x()), w = integers(r, c.w());
                     Tensor bias = c.bias ? integers(r, {c.K}) : Tensor(), y = r.output(s.y()), workspace;
                     r.backend().conv2d_max_pool_forward(x, w, bias, y, workspace, c.p, s.pool);
                     Tensor dy = r.input(s.y()), dw = r.output(c.w()), dbias = c.bias ? r.output({c.K}) : Tensor();
                     r.backend().conv2d_max_pool_backward_weights(x, dy, workspace, dw, dbias, c.p, s.pool);
                     // Each weight sums x dc over every output cell; a cell of c takes dy from the
                     // windows whose maximum it is (up to `window` where they overlap).
                     const double terms = double(c.N * c.out_h() * c.out_w()) * window;
                     r.keep("dw", dw, terms);
                     if (c.bias) r.keep("dbias", dbias, terms);
                   }});
}

ConvShape conv_shape(std::int64_t n, std::int64_t ch, std::int64_t hw, std::int64_t k, std::int64_t kernel, int stride,
                     int pad, bool bias) {
  ConvShape s{n, ch, hw, hw, k, kernel, kernel, {}, bias};
  s.p.stride_h = s.p.stride_w = stride;
  s.p.pad_top = s.p.pad_left = s.p.pad_bottom = s.p.pad_right = pad;
  return s;
}

}  // namespace

std::vector<Case> conv_max_pool_cases() {
  std::vector<Case> cases;
  std::uint64_t seed = 4700;
  add_cases(cases, conv_pool_shape(conv_shape(12, 1, 28, 20, 5, 1, 0, true), 2, 2, PoolPadding::caffe_ceil), seed);  // LeNet
  add_cases(cases, conv_pool_shape(conv_shape(3, 2, 11, 3, 3, 2, 1, false), 3, 2, PoolPadding::caffe_ceil), seed += 10);
  add_cases(cases, conv_pool_shape(conv_shape(2, 3, 13, 4, 5, 1, 2, true), 2, 2, PoolPadding::tf_same), seed += 10);
  Rng rng(0xC0F0);
  for (int i = 0; i < 6; ++i) {
    ConvShape c = random_conv_shape(rng);
    const int out = static_cast<int>(std::min(c.out_h(), c.out_w()));
    const int kernel = random_int(rng, 1, std::min(3, out)), stride = random_int(rng, 1, kernel);
    add_cases(cases, conv_pool_shape(c, kernel, stride, PoolPadding::valid), seed += 10);
  }
  return cases;
}

}  // namespace ablate::kernels::test
