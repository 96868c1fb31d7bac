// Conformance cases of the convolution family: conv2d forward, backward data, backward
// weights (with and without bias) over seeded random shapes: batch 1 and > 1, odd sizes,
// kernels 1-5 (square and not), strides 1-3 per axis, asymmetric padding, plus TF SAME, a
// LeNet-sized layer, layers with 16-32 channels (the libraries' blocked layouts) and wide layers
// with 1-4 input channels (the CPU backends' few-channel loops); the forward with each
// activation epilogue (Conv2dParams::activation: relu, tanh, sigmoid) on every fourth random
// shape and on each fixed one (TF MNIST conv2 and cifar10_quick conv2, scaled down).
#include "conformance.h"
#include "conformance_conv_shape.h"
#include "kernels/activation_list.h"
#include "kernels/op_params.h"

namespace ablate::kernels::test {
namespace {

void add_conv_cases(std::vector<Case>& cases, const ConvShape& s, std::uint64_t seed) {
  double taps = double(s.C * s.KH * s.KW);
  cases.push_back({"conv2d_forward", s.describe(), seed, [s, taps](OpRun& r) {
                     Tensor x = r.input(s.x()), w = r.input(s.w());
                     Tensor bias = s.bias ? r.input({s.K}) : Tensor();
                     Tensor y = r.output(s.y());
                     r.backend().conv2d_forward(x, w, bias, y, s.p);
                     r.keep("y", y, taps);
                   }});
  cases.push_back({"conv2d_backward_data", s.describe(), seed + 1, [s](OpRun& r) {
                     Tensor dy = r.input(s.y()), w = r.input(s.w());
                     Tensor dx = r.output(s.x());
                     r.backend().conv2d_backward_data(dy, w, dx, s.p);
                     r.keep("dx", dx, double(s.K * s.KH * s.KW));
                   }});
  cases.push_back({"conv2d_backward_weights", s.describe(), seed + 2, [s](OpRun& r) {
                     Tensor x = r.input(s.x()), dy = r.input(s.y());
                     Tensor dw = r.output(s.w());
                     Tensor dbias = s.bias ? r.output({s.K}) : Tensor();
                     r.backend().conv2d_backward_weights(x, dy, dw, dbias, s.p);
                     double terms = double(s.N * s.out_h() * s.out_w());
                     r.keep("dw", dw, terms);
                     if (s.bias) r.keep("dbias", dbias, terms);
                   }});
}

// The forward with the epilogue y = f(conv + bias), one case per activation of
// kernels/activation_list.h whose gradient reads y (the contract refuses GELU there).
void add_epilogue_cases(std::vector<Case>& cases, ConvShape s, std::uint64_t seed) {
  for (Activation a : kActivations) {
    if (is_gelu(a)) continue;
    s.p.activation = a;
    const double taps = double(s.C * s.KH * s.KW);
    cases.push_back({"conv2d_forward", s.describe() + ", epilogue " + activation_name(a), seed++, [s, taps](OpRun& r) {
                       Tensor x = r.input(s.x()), w = r.input(s.w());
                       Tensor bias = s.bias ? r.input({s.K}) : Tensor();
                       Tensor y = r.output(s.y());
                       r.backend().conv2d_forward(x, w, bias, y, s.p);
                       r.keep("y", y, taps);
                     }});
  }
}

void add_conv_and_epilogue_cases(std::vector<Case>& cases, const ConvShape& s, std::uint64_t seed) {
  add_conv_cases(cases, s, seed);
  add_epilogue_cases(cases, s, seed + 5);
}

}  // namespace

std::vector<Case> conv_cases() {
  std::vector<Case> cases;
  Rng rng(0xC0117);
  for (int i = 0; i < 60; ++i) {
    const ConvShape s = random_conv_shape(rng);
    if (i % 4 == 0) add_conv_and_epilogue_cases(cases, s, 1000 + 10 * i);
    else add_conv_cases(cases, s, 1000 + 10 * i);
  }
  // TF SAME padding (odd pixel at the bottom/right) on an odd input with stride 2.
  ConvShape same{2, 3, 9, 7, 4, 5, 5, make_same_conv2d_params(5, 5, 2, 9, 7), true};
  add_conv_and_epilogue_cases(cases, same, 2000);
  // A LeNet conv2 layer, scaled down: 5x5 over 12x12 with many input channels.
  ConvShape lenet{2, 8, 12, 12, 6, 5, 5, Conv2dParams{}, true};
  add_conv_and_epilogue_cases(cases, lenet, 2100);
  // Channel counts where the libraries switch to blocked layouts (oneDNN's nChw8c/16c):
  // cifar10_quick conv1 and conv2 (5x5 pad 2), TF MNIST conv2 (5x5 SAME), a strided 3x3.
  add_conv_and_epilogue_cases(cases, ConvShape{2, 3, 16, 16, 32, 5, 5, Conv2dParams{1, 1, 2, 2, 2, 2}, true}, 2300);
  add_conv_and_epilogue_cases(cases, ConvShape{2, 32, 8, 8, 32, 5, 5, Conv2dParams{1, 1, 2, 2, 2, 2}, true}, 2400);
  add_conv_and_epilogue_cases(cases, ConvShape{1, 16, 7, 7, 32, 5, 5, make_same_conv2d_params(5, 5, 1, 7, 7), true}, 2500);
  add_conv_and_epilogue_cases(cases, ConvShape{3, 16, 9, 10, 24, 3, 3, Conv2dParams{2, 2, 1, 0, 1, 1}, false}, 2600);
  // Few input channels (the CPU backends' direct loops, conv_few_channels.h, C <= 4): rows of
  // several vectors and a part vector, output channels past a tile, stride 2 per axis,
  // asymmetric padding, batch 1 and odd batches; LeNet's conv1 (1 -> 20, 5x5 on 28x28).
  add_conv_and_epilogue_cases(cases, ConvShape{3, 1, 28, 28, 20, 5, 5, Conv2dParams{}, true}, 2700);
  add_conv_and_epilogue_cases(cases, ConvShape{1, 3, 19, 37, 7, 5, 5, Conv2dParams{1, 1, 2, 2, 2, 2}, true}, 2710);
  add_conv_and_epilogue_cases(cases, ConvShape{5, 2, 17, 23, 9, 5, 3, Conv2dParams{2, 2, 2, 1, 0, 2}, false}, 2720);
  add_conv_and_epilogue_cases(cases, ConvShape{1, 4, 12, 41, 6, 3, 5, Conv2dParams{1, 2, 0, 3, 1, 1}, true}, 2730);
  add_conv_and_epilogue_cases(cases, ConvShape{3, 1, 9, 9, 5, 5, 5, make_same_conv2d_params(5, 5, 2, 9, 9), true}, 2740);
  // The weight gradient from KW shifted copies of the image (stride_h 1, OH*OW whole vectors,
  // rows that pad badly): top and bottom padding, stride 2 across, 7 channels past a tile of 5.
  add_conv_and_epilogue_cases(cases, ConvShape{3, 2, 4, 49, 7, 3, 5, Conv2dParams{1, 2, 2, 1, 1, 2}, true}, 2750);
  // 1x1 convolution with stride 2 and a single image.
  ConvShape pointwise{1, 5, 6, 5, 3, 1, 1, Conv2dParams{2, 2, 0, 0, 0, 0}, false};
  add_conv_and_epilogue_cases(cases, pointwise, 2200);
  return cases;
}

}  // namespace ablate::kernels::test
