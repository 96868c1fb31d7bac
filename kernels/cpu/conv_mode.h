// How the CPU backends run a convolution as im2col + GEMM (a named, switchable optimization):
//  per_image      Caffe's BaseConvolutionLayer and Torch's SpatialConvolutionMM: one im2col and
//                 one GEMM per image, threads inside the GEMM.
//  batched        im2col of a group of images side by side, [C*KH*KW, G*OH*OW], and one GEMM for
//                 the group, G as large as fits kColumnBudgetBytes (conv_plan.h); the output is
//                 permuted back to NCHW. Threads inside the GEMM and over images in im2col/col2im.
//  omp_per_image  OpenMP over images, one single-threaded im2col + GEMM per image.
//  omp_batched    OpenMP over images, each thread one batched GEMM over its share of images.
// In the omp_* modes OpenMP owns every thread: the library's own pool is held at 1 thread and
// the other GEMMs (linear layers, Backend::gemm) are split over OpenMP threads (split_gemm.h),
// so the BLAS's threads never compete with ours for the cores (Debian's OpenBLAS runs a
// pthread pool beside OpenMP's). With 1 thread the omp_* modes equal their plain ones.
// The setting is BackendOptions::conv_mode (kernels/backend_options.h), the older switch for a
// pair of the two factors in conv_lowering.h: per_image = per_image_gemm x library, batched =
// batched_gemm x library, omp_per_image = per_image_gemm x openmp_images, omp_batched =
// batched_gemm x openmp_images (gemm_loops_of). On onednn it sets only the loops that run the
// f64 convolutions, as it always did. choices() and library_version() show it. Since the lowering
// and the threading became factors (conv_lowering.h), the library modes run the shared loops
// on one thread (Caffe's and Theano's layers were single-threaded): the measurements below
// predate that.
// Default omp_per_image, the fastest measured: Caffe's LeNet (batch 64, f32, forward +
// backward + SGD update) on the 2-core Zen 5, medians of 5 interleaved rounds, img/s:
//                     1 thread: per_image  batched | 2 threads: per_image batched omp_per_image omp_batched
//   openblas                     3,795    3,634   |             1,448      859     7,172        7,011
//   eigen                        3,287    3,247   |             1,646    4,083     6,174        5,974
// (1 thread: omp_* = plain). With 2 threads the library-threaded modes lose to the OpenBLAS
// pthread pool and OpenMP's spinning workers fighting over the two cores.
#pragma once

#include <string>

namespace ablate::kernels::cpu {

enum class ConvMode { per_image, batched, omp_per_image, omp_batched };

const char* conv_mode_name(ConvMode mode);
// "per_image" -> ConvMode::per_image; an unknown name throws std::invalid_argument listing the
// known ones.
ConvMode parse_conv_mode(const std::string& name);
// The measured fastest mode (omp_per_image), used when no mode is asked for.
ConvMode default_conv_mode();

}  // namespace ablate::kernels::cpu
