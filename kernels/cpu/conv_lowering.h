// Two factors in which the frameworks' CPU convolutions differed: how a
// convolution is lowered onto the math library, and who owns the threads.
//
// Lowering (BackendOptions::conv_lowering, `--conv-lowering`):
//  per_image_gemm  im2col of one image, one GEMM per image: Caffe 1.0's BaseConvolutionLayer
//                  (forward_cpu_gemm in a loop over the batch), Theano's CorrMM, Torch7's
//                  SpatialConvolutionMM. NCHW.
//  batched_gemm    im2col of a group of images side by side and one GEMM per group (conv_plan.h).
//  eigen_spatial   TensorFlow 1.x: NHWC tensors, Eigen Tensor contractions over extracted image
//                  patches on an Eigen thread pool (kernels/eigen/eigen_spatial_conv.h).
//  direct          oneDNN's convolution primitives (the onednn backend).
//  omp_per_image   ablate's own and the fastest measured on 2 cores (conv_mode.h): per_image_gemm
//                  under openmp_images threading, with direct loops for layers of few input
//                  channels (ConvSetup::few_channels, conv_few_channels.h).
//  tiled_gemm      per image under openmp_images on ablate's own register-tiled GEMM
//                  (tiled_gemm.h) in place of the library's, for every layer, each image's
//                  im2col matrix read in place where the geometry lets it (conv_tiled.h). No
//                  framework ran this: a candidate of the per-layer plan (docs/plan.md).
// Threading (BackendOptions::threading, `--threading`):
//  library         the library's own pool inside each GEMM or primitive (OpenBLAS's pthreads,
//                  Eigen's OpenMP GEMM, oneDNN's OpenMP): Caffe, Theano. Images run in sequence.
//  openmp_images   OpenMP over the images, each a single-threaded im2col + GEMM; the library
//                  held at one thread, the other GEMMs split over OpenMP (split_gemm.h).
//  openmp_frames   Torch7's SpatialConvolutionMM (nn and THNN generic/SpatialConvolutionMM.c):
//                  `#pragma omp parallel for` over the batch's frames in updateOutput and
//                  updateGradInput (the BLAS single-threaded inside), while accGradParameters
//                  loops the frames in sequence with the BLAS's own threads.
//  intra_inter     TensorFlow: the convolution runs on an intra-op pool (Eigen::ThreadPool of
//                  `threads`); the static executor's inter-op pool (`--executor parallel
//                  --inter-op-threads`) runs independent ops beside it.
// Which lowering takes which threading is threadings_of(); which backend takes which lowering
// is the registry's table (kernels/registry.cpp).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "kernels/cpu/conv_mode.h"

namespace ablate::kernels::cpu {

enum class ConvLowering { per_image_gemm, batched_gemm, eigen_spatial, direct, omp_per_image, tiled_gemm };
enum class Threading { library, openmp_images, openmp_frames, intra_inter };

const char* conv_lowering_name(ConvLowering lowering);
const char* threading_name(Threading threading);
// Parsers for a command line: an unknown name throws std::invalid_argument listing the known ones.
ConvLowering parse_conv_lowering(const std::string& name);
Threading parse_threading(const std::string& name);
std::vector<ConvLowering> all_conv_lowerings();
std::vector<Threading> all_threadings();

// The threadings `lowering` runs under, its default first.
std::vector<Threading> threadings_of(ConvLowering lowering);

// How the shared im2col + GEMM loops run (conv2d.cpp): per image or in groups, and whose threads.
struct GemmLoops {
  bool batched = false;
  Threading threading = Threading::openmp_images;  // library, openmp_images or openmp_frames
  bool operator==(const GemmLoops&) const = default;
};
GemmLoops gemm_loops_of(ConvMode mode);
// The conv_mode that names `loops`, if one does (openmp_frames has none).
std::optional<ConvMode> conv_mode_of(const GemmLoops& loops);

// A backend's convolution, resolved: the lowering (never omp_per_image), its threading, and the
// im2col loops that run the per_image_gemm and batched_gemm lowerings and whatever a lowering
// does not cover (oneDNN's direct convolution is f32 only: f64 takes the loops).
// few_channels: the loops run layers of at most kFewChannelsMax input channels as direct loops
// (conv_few_channels.h) instead of im2col + GEMM; on under omp_per_image only, so per_image_gemm
// under openmp_images is the same loops without it.
struct ConvSetup {
  ConvLowering lowering = ConvLowering::per_image_gemm;
  Threading threading = Threading::openmp_images;
  GemmLoops loops;
  bool few_channels = false;
};

// Resolves the options as given. `backend_default` is the lowering the backend runs when none is
// asked for. conv_mode, the older switch, sets the loops (and the lowering when the backend's
// default is one of the GEMM lowerings); it cannot be combined with conv_lowering or threading.
// A threading that `lowering` does not run under throws, naming both and the ones it takes.
ConvSetup resolve_conv_setup(ConvLowering backend_default, std::optional<ConvMode> conv_mode,
                             std::optional<ConvLowering> lowering, std::optional<Threading> threading);

}  // namespace ablate::kernels::cpu
