// Per-batch preprocessing: turns u8 images into the float input a framework's script fed its
// network. A transform is a chain of named rules joined by '+', applied left to right to each
// image, e.g. "pad:2+standardize:global" or
// "random_crop:24x24+random_flip+random_brightness:63+random_contrast:0.2,1.8+standardize:image".
// Every rule computes in the batch's float type (f32 or f64), as the framework did in its own.
//
// The rules, and the framework behaviour each reproduces:
//   scale:F               x * F; F a number or a fraction (1/255, 1/256).
//                         Caffe LeNet (transform_param scale 0.00390625), TF deep MNIST and
//                         Theano LeNet5 (pixels / 255).
//   mean:image            x - the training set's mean image (per position, computed once).
//                         Caffe cifar10_quick (mean_file from compute_image_mean).
//   standardize:global    (x - m) * (1 / s), m and s the mean and std (divisor n - 1) of every
//                         value of the training set. Torch MNIST (dataset:normalizeGlobal).
//   standardize:image     (x - mean) / max(std, 1 / sqrt(C*H*W)) over each image alone.
//                         TF CIFAR-10 (tf.image.per_image_standardization).
//   pad:P                 P zero pixels on every side (H, W grow by 2P). Torch MNIST (32x32 mnist.t7).
//   random_crop:HxW       an HxW window at a uniform random offset. TF CIFAR-10 training (tf.random_crop).
//   central_crop:HxW      the central HxW window, offsets rounded down. TF CIFAR-10 testing
//                         (tf.image.resize_image_with_crop_or_pad).
//   random_flip           left-right mirror with probability 1/2 (tf.image.random_flip_left_right).
//   random_brightness:D   x + delta, delta uniform in [-D, D) (tf.image.random_brightness, D = 63).
//   random_contrast:L,U   per channel (x - mean) * f + mean, f uniform in [L, U)
//                         (tf.image.random_contrast, 0.2 and 1.8).
//   yuv_lcn:K             RGB -> YUV; Y by local contrastive normalisation with a Gaussian of K
//                         taps; U and V by the training set's mean and std (divided by -std, as
//                         the script did). Torch CIFAR-10 (image.rgb2yuv and
//                         nn.SpatialContrastiveNormalization(1, image.gaussian1D(7))).
// TF's CIFAR-10 training order is crop, flip, brightness, contrast, then standardisation; a
// spec lists its rules in the order they run.
//
// Seeding: the random rules' choices for the sample at position p of a batch are defined by
// (seed, draw, p, the rule's place in the spec) alone (datasets/sample_random.h). The loader
// passes its batch number (0, 1, 2, ... from its start) as `draw`; test passes pass 0. The
// same seed and draw give the same batch, bit for bit, with prefetch on or off. A
// data-parallel shard's slice starts at position shard x slice (`first_position`), so its
// samples get the draws the single-process run gives them.
//
// Fitting: rules that need training-set statistics (mean:image, standardize:global, yuv_lcn)
// are fitted once by parse_transform, over every training image as the rules before them
// leave it (random rules before a fitted one use the draw kFitDraw and the image's index as
// position). The fitted values are kept in the Transform (the set itself is not referenced),
// so the test set is mapped with the training set's statistics, as every script did.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "datasets/image_set.h"
#include "kernels/tensor.h"

namespace ablate::datasets {

struct Transform {
  std::string name;     // the rules as recorded in the result: "pad:2+standardize:global"
  std::string fitted;   // the fitted statistics in words ("" if no rule fits), for the record
  bool random = false;  // true if some rule makes random choices (then `draw` matters)
  // Writes images idx[0..n) of `set` into out [n, C', H', W'] (f32 or f64); `draw` numbers
  // the batch and idx[i] is at position first_position + i in it, for the random rules
  // (above). Thread-safe: it only reads the Transform.
  std::function<void(const ImageSet& set, const std::int64_t* idx, std::int64_t n, std::uint64_t draw,
                     std::int64_t first_position, kernels::Tensor& out)>
      apply_at;
  void apply(const ImageSet& set, const std::int64_t* idx, std::int64_t n, std::uint64_t draw, kernels::Tensor& out,
             std::int64_t first_position = 0) const {
    apply_at(set, idx, n, draw, first_position, out);
  }
  // Output C, H, W for input C, H, W; throws std::invalid_argument naming the rule when the
  // input does not suit it (a crop larger than the image, yuv_lcn on one channel).
  std::function<void(int& c, int& h, int& w)> output_shape = [](int&, int&, int&) {};
};

// The draw fitted rules see when a random rule precedes them.
constexpr std::uint64_t kFitDraw = ~std::uint64_t{0};

// x = pixel * factor (the rule scale:F alone).
Transform scale_transform(double factor);

// Parses SPEC ("rule[:arg]+rule[:arg]..."), fits the rules that need statistics on `train`
// and checks every rule against train's image shape. `train` may be an empty set when no rule
// fits. Throws std::invalid_argument naming the spec, the rule and what was expected.
Transform parse_transform(const std::string& spec, const ImageSet& train, std::uint64_t seed = 1);

// One line per rule: its syntax and what it does, for help texts and errors.
std::string transform_rules_help();

}  // namespace ablate::datasets
