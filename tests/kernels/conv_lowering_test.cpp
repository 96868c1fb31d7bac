// The convolution lowering, the threading model and the max-pool gradient as backend options
// (kernels/cpu/conv_lowering.h, backend_options.h): the registry's table says which backend
// takes which lowering and refuses the others naming both, a threading the lowering does not
// run under is refused, conv_mode maps onto a lowering and a threading, the resolved choice and
// every pool's size reach the result (choices()), eigen_spatial counts its layout reorders, and
// pool_gradient reaches every backend. The numbers of each lowering are conformance_test.cpp's.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "kernels/registry.h"
#include "test_tensors.h"

namespace ablate::kernels::test {
namespace {

using cpu::ConvLowering;
using cpu::Threading;

std::map<std::string, std::string> choices_of(const Backend& b) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : b.choices()) out[name] = value;
  return out;
}

BackendOptions lowered(ConvLowering l, std::optional<Threading> t = std::nullopt, int threads = 1) {
  BackendOptions o;
  o.conv_lowering = l;
  o.threading = t;
  o.threads = threads;
  return o;
}

TEST(ConvLowering, ParsersRoundTripAndNameTheKnownValues) {
  for (ConvLowering l : cpu::all_conv_lowerings()) EXPECT_EQ(parse_conv_lowering(cpu::conv_lowering_name(l)), l);
  for (Threading t : cpu::all_threadings()) EXPECT_EQ(parse_threading(cpu::threading_name(t)), t);
  EXPECT_EQ(invalid_argument_of([] { parse_conv_lowering("im2col"); }),
            "convolution lowering 'im2col' is not known; expected one of per_image_gemm, batched_gemm, eigen_spatial, "
            "direct, omp_per_image, tiled_gemm");
  EXPECT_EQ(invalid_argument_of([] { parse_threading("tbb"); }),
            "threading model 'tbb' is not known; expected one of library, openmp_images, openmp_frames, intra_inter");
  EXPECT_EQ(parse_pool_gradient("all"), PoolGradient::all);
  EXPECT_EQ(invalid_argument_of([] { parse_pool_gradient("mean"); }),
            "max-pool gradient 'mean' is not known; expected first or all");
}

TEST(ConvLowering, TheTableSaysWhichBackendLowersHow) {
  EXPECT_EQ(conv_lowerings_of("openblas").front(), ConvLowering::omp_per_image);
  EXPECT_EQ(conv_lowerings_of("eigen").front(), ConvLowering::omp_per_image);
  EXPECT_EQ(conv_lowerings_of("onednn").front(), ConvLowering::direct);
  EXPECT_TRUE(conv_lowerings_of("reference").empty());
  EXPECT_EQ(backends_taking(BackendOption::pool_gradient), backend_names());
  EXPECT_EQ(invalid_argument_of([] { make_backend("openblas", lowered(ConvLowering::eigen_spatial)); }),
            "conv_lowering 'eigen_spatial' is not a lowering of the 'openblas' backend (it takes omp_per_image, "
            "per_image_gemm, batched_gemm; eigen_spatial runs on eigen)");
  EXPECT_EQ(invalid_argument_of([] { make_backend("eigen", lowered(ConvLowering::direct)); }),
            "conv_lowering 'direct' is not a lowering of the 'eigen' backend (it takes omp_per_image, per_image_gemm, "
            "batched_gemm, eigen_spatial, tiled_gemm; direct runs on onednn)");
  EXPECT_EQ(invalid_argument_of([] { make_backend("reference", lowered(ConvLowering::per_image_gemm)); }),
            "conv_lowering 'per_image_gemm' is an option of the eigen, openblas, onednn backends, not of 'reference'");
}

TEST(ConvLowering, AThreadingTheLoweringDoesNotRunUnderIsRefused) {
  EXPECT_EQ(invalid_argument_of([] { make_backend("eigen", lowered(ConvLowering::eigen_spatial, Threading::library)); }),
            "threading 'library' does not apply to conv_lowering 'eigen_spatial' (it runs under intra_inter)");
  EXPECT_EQ(invalid_argument_of([] { make_backend("openblas", lowered(ConvLowering::batched_gemm, Threading::openmp_frames)); }),
            "threading 'openmp_frames' does not apply to conv_lowering 'batched_gemm' (it runs under library, "
            "openmp_images)");
  BackendOptions alone;  // a threading alone applies to the backend's GEMM lowering, per image
  alone.threading = Threading::intra_inter;
  EXPECT_EQ(invalid_argument_of([&] { make_backend("openblas", alone); }),
            "threading 'intra_inter' does not apply to conv_lowering 'per_image_gemm' (it runs under library, "
            "openmp_images, openmp_frames)");
  BackendOptions both = lowered(ConvLowering::per_image_gemm);
  both.conv_mode = cpu::ConvMode::batched;
  EXPECT_EQ(invalid_argument_of([&] { make_backend("eigen", both); }),
            "conv_mode 'batched' is the older switch for a conv_lowering and a threading: give conv_mode or those, "
            "not both");
}

TEST(ConvLowering, TheResolvedChoiceAndEveryPoolReachTheRecord) {
  auto caffe = choices_of(*make_backend("openblas", lowered(ConvLowering::per_image_gemm, std::nullopt, 2)));
  EXPECT_EQ(caffe["conv_lowering"], "per_image_gemm");
  EXPECT_EQ(caffe["threading"], "library");  // per_image_gemm's default: Caffe's
  EXPECT_EQ(caffe["conv_mode"], "per_image");
  EXPECT_EQ(caffe["pool.library"], "2");
  EXPECT_EQ(caffe["pool.openmp"], "1") << "under library every thread is the BLAS's";

  auto ours = choices_of(*make_backend("openblas", lowered(ConvLowering::omp_per_image, std::nullopt, 2)));
  EXPECT_EQ(ours["conv_lowering"], "per_image_gemm");
  EXPECT_EQ(ours["threading"], "openmp_images");
  EXPECT_EQ(ours["conv_mode"], "omp_per_image");
  EXPECT_EQ(ours["pool.library"], "1");
  EXPECT_EQ(ours["pool.openmp"], "2");

  auto torch = choices_of(*make_backend("openblas", lowered(ConvLowering::per_image_gemm, Threading::openmp_frames, 2)));
  EXPECT_EQ(torch["threading"], "openmp_frames");
  EXPECT_EQ(torch.count("conv_mode"), 0u) << "no conv_mode names Torch7's split";
  EXPECT_EQ(torch["pool.library"], "2");
  EXPECT_EQ(torch["pool.openmp"], "2");

  BackendOptions old;  // conv_mode keeps its meaning: the loops, and on onednn only them
  old.conv_mode = cpu::ConvMode::omp_batched;
  EXPECT_EQ(choices_of(*make_backend("eigen", old))["conv_lowering"], "batched_gemm");
  EXPECT_EQ(choices_of(*make_backend("onednn", old))["conv_lowering"], "direct");
  EXPECT_EQ(choices_of(*make_backend("onednn", old))["conv_mode"], "omp_batched");
}

// op_setup (backend.h): the lowerings of one backend and threads run every op but the
// convolutions alike (the plan's twins); the threading changes the pools, so the other ops too;
// a convolution, and oneDNN's batch normalisation (its layout follows the lowering), make no
// such promise.
TEST(ConvLowering, TheLoweringsOfOneBackendAndThreadsRunTheOtherOpsAlike) {
  for (const std::string name : {"eigen", "openblas", "onednn"}) {
    auto per_image = make_backend(name, lowered(ConvLowering::per_image_gemm, Threading::openmp_images, 2));
    auto batched = make_backend(name, lowered(ConvLowering::batched_gemm, Threading::openmp_images, 2));
    auto library = make_backend(name, lowered(ConvLowering::per_image_gemm, Threading::library, 2));
    for (Op op : {Op::pool2d_forward, Op::activation_backward, Op::linear_forward, Op::lrn_forward}) {
      EXPECT_FALSE(per_image->op_setup(op).empty()) << name << " " << op_name(op);
      EXPECT_EQ(per_image->op_setup(op), batched->op_setup(op)) << name << " " << op_name(op);
      EXPECT_NE(per_image->op_setup(op), library->op_setup(op)) << name << " " << op_name(op) << ": the pools differ";
    }
    EXPECT_EQ(per_image->op_setup(Op::pool2d_forward), "library 1, openmp 2, gemm split") << name;
    EXPECT_EQ(library->op_setup(Op::pool2d_forward), "library 2, openmp 1, gemm library") << name;
    for (Op op : {Op::conv2d_forward, Op::conv2d_backward_data, Op::conv2d_backward_weights, Op::conv2d_map_forward})
      EXPECT_EQ(per_image->op_setup(op), "") << name << " " << op_name(op);
  }
  EXPECT_EQ(make_backend("onednn")->op_setup(Op::batch_norm_forward_training), "");
  EXPECT_NE(make_backend("eigen")->op_setup(Op::batch_norm_forward_training), "");
  EXPECT_EQ(make_backend("reference")->op_setup(Op::pool2d_forward), "") << "one setup only: nothing to promise";
}

// omp_per_image (the eigen and openblas default) runs layers of few input channels as direct
// loops (kernels/cpu/conv_few_channels.h) and says so; per_image_gemm under the same threading,
// the older conv_mode and the frameworks' lowerings keep im2col + GEMM.
TEST(ConvLowering, TheFewChannelLoopsAreOmpPerImagesOwnAndRecorded) {
  for (const std::string name : {"eigen", "openblas"}) {
    EXPECT_EQ(choices_of(*make_backend(name))["conv_few_channels"], "direct") << name;
    EXPECT_EQ(choices_of(*make_backend(name, lowered(ConvLowering::omp_per_image)))["conv_few_channels"], "direct");
    EXPECT_EQ(choices_of(*make_backend(name, lowered(ConvLowering::per_image_gemm, Threading::openmp_images, 2)))
                  ["conv_few_channels"],
              "im2col_gemm")
        << name << ": the switch that turns them off";
    EXPECT_EQ(choices_of(*make_backend(name, lowered(ConvLowering::batched_gemm)))["conv_few_channels"], "im2col_gemm");
    BackendOptions old;
    old.conv_mode = cpu::ConvMode::omp_per_image;
    EXPECT_EQ(choices_of(*make_backend(name, old))["conv_few_channels"], "im2col_gemm");
  }
  EXPECT_EQ(choices_of(*make_backend("onednn")).count("conv_few_channels"), 0u) << "oneDNN's own direct primitives";
}

TEST(ConvLowering, EigenSpatialRunsNhwcOnItsPoolAndCountsItsReorders) {
  auto b = make_backend("eigen", lowered(ConvLowering::eigen_spatial, std::nullopt, 2));
  auto before = choices_of(*b);
  EXPECT_EQ(before["threading"], "intra_inter");
  EXPECT_EQ(before["layout"], "nhwc");
  EXPECT_EQ(before["pool.intra_op"], "2");
  EXPECT_EQ(before["reorders.activations"], "0");
  Rng rng(5);
  Tensor x = random_tensor({2, 3, 8, 8}, DType::f32, rng), w = random_tensor({4, 3, 3, 3}, DType::f32, rng);
  Tensor bias = random_tensor({4}, DType::f32, rng), y({2, 4, 6, 6}, DType::f32), dx({2, 3, 8, 8}, DType::f32);
  Tensor dw({4, 3, 3, 3}, DType::f32), dbias({4}, DType::f32);
  b->conv2d_forward(x, w, bias, y, {});
  b->conv2d_backward_data(y, w, dx, {});
  b->conv2d_backward_weights(x, y, dw, dbias, {});
  auto after = choices_of(*b);
  // Each direction: its two operands in, its result out; one of the three is a filter each time.
  EXPECT_EQ(after["reorders.activations"], "6");
  EXPECT_EQ(after["reorders.filters"], "3");
  EXPECT_EQ(after["reorders.bytes"], std::to_string(2 * (x.bytes() + y.bytes() + w.bytes()) + x.bytes() + y.bytes() +
                                                    w.bytes()));
}

TEST(ConvLowering, PoolGradientReachesEveryBackend) {
  BackendOptions o;
  o.pool_gradient = PoolGradient::all;
  for (const std::string& name : {std::string("reference"), std::string("eigen"), std::string("openblas"),
                                  std::string("onednn")}) {
    EXPECT_EQ(make_backend(name, o)->pool_gradient(), PoolGradient::all) << name;
    EXPECT_EQ(make_backend(name)->pool_gradient(), PoolGradient::first) << name;
  }
}

// Theano's MaxPoolGrad on a window of two equal maxima: both get dy under `all`, the first
// only under `first`; y is then required.
TEST(ConvLowering, AllRoutesTheGradientToEveryTiedMaximum) {
  for (PoolGradient g : {PoolGradient::first, PoolGradient::all}) {
    BackendOptions o;
    o.pool_gradient = g;
    auto b = make_backend("reference", o);
    Tensor x({1, 1, 2, 2}, DType::f64), y({1, 1, 1, 1}, DType::f64), dy({1, 1, 1, 1}, DType::f64);
    Tensor dx({1, 1, 2, 2}, DType::f64), workspace;
    for (int i = 0; i < 4; ++i) x.set(i, i == 1 || i == 2 ? 3.0 : -1.0);
    dy.set(0, 0.5);
    const Pool2dParams p = make_pool2d_params(PoolKind::max, 2, 2, 0, PoolPadding::valid, 2, 2);
    b->pool2d_forward(x, y, workspace, p);
    b->pool2d_backward(x, y, dy, workspace, dx, p);
    EXPECT_EQ(dx.at(1), 0.5) << pool_gradient_name(g);
    EXPECT_EQ(dx.at(2), g == PoolGradient::all ? 0.5 : 0.0) << pool_gradient_name(g);
    EXPECT_EQ(dx.at(0) + dx.at(3), 0.0);
    if (g == PoolGradient::all) {
      EXPECT_NE(invalid_argument_of([&] { b->pool2d_backward(x, Tensor(), dy, workspace, dx, p); }).find("y is empty"),
                std::string::npos);
    }
  }
}

// Without ties `all` is `first`, bit for bit: the option changes a run only where a window
// holds its maximum twice (so the theano presets' losses move only through ties).
TEST(ConvLowering, WithoutTiesBothPoolGradientsAgreeBitForBit) {
  for (const char* name : {"reference", "openblas"}) {
    Rng rng(11);
    const Pool2dParams p = make_pool2d_params(PoolKind::max, 2, 2, 0, PoolPadding::caffe_ceil, 9, 8);
    Tensor x = random_tensor({2, 3, 9, 8}, DType::f64, rng), dy = random_tensor({2, 3, p.out_h, p.out_w}, DType::f64, rng);
    Tensor dx[2];
    for (PoolGradient g : {PoolGradient::first, PoolGradient::all}) {
      BackendOptions o;
      o.pool_gradient = g;
      auto b = make_backend(name, o);
      Tensor y({2, 3, p.out_h, p.out_w}, DType::f64), workspace;
      Tensor& d = dx[g == PoolGradient::all] = Tensor(x.shape(), DType::f64);
      b->pool2d_forward(x, y, workspace, p);
      b->pool2d_backward(x, y, dy, workspace, d, p);
    }
    EXPECT_TRUE(all_near(dx[0], dx[1], 0.0)) << name;
  }
}

}  // namespace
}  // namespace ablate::kernels::test
