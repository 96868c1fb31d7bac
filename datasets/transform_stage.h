// TransformStage: one rule of a transform ("scale:F", "mean:image", "pad:2", ...), the piece
// that datasets/transforms.cpp chains with '+'. A stage works on one image at a time, channel
// planar (C x H x W), in the batch's float type T (float for f32 runs, double for f64), so the
// arithmetic is that of the framework's script (Caffe's Dtype, TF's float32, Torch's default
// tensor type). Statistics a stage fits on the training set are accumulated in double.
// Internal to datasets/: users go through parse_transform (transforms.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "datasets/sample_random.h"

namespace ablate::datasets {

struct ImageShape {
  int c = 0, h = 0, w = 0;
  std::int64_t numel() const { return static_cast<std::int64_t>(c) * h * w; }
  std::int64_t plane() const { return static_cast<std::int64_t>(h) * w; }
  std::string str() const;  // "3x32x32"
  bool operator==(const ImageShape&) const = default;
};

// One image being transformed; v.size() == shape.numel().
template <class T>
struct ImageBuffer {
  ImageShape shape;
  std::vector<T> v;
  void reshape(const ImageShape& s) {
    shape = s;
    v.resize(static_cast<std::size_t>(s.numel()));
  }
};

// The training set as the stages before a fitted stage leave it: `count` images of `shape`;
// image(i, out) writes image i into out (size shape.numel()), in double.
struct FitSource {
  std::string set_name;
  std::int64_t count = 0;
  ImageShape shape;
  std::function<void(std::int64_t i, std::vector<double>& out)> image;
};

class TransformStage {
 public:
  virtual ~TransformStage() = default;
  // The rule as recorded in results ("pad:2").
  virtual std::string name() const = 0;
  // Output shape for input `in`; throws std::invalid_argument naming the rule if `in` does not suit it.
  virtual ImageShape output(const ImageShape& in) const { return in; }
  // True if apply() uses its SampleRandom.
  virtual bool random() const { return false; }
  // Stages that need training-set statistics are fitted once, before any apply().
  virtual bool needs_fit() const { return false; }
  virtual void fit(const FitSource&) {}
  // The fitted statistics in words, for the result record ("" if none).
  virtual std::string fitted() const { return ""; }
  // Transforms x in place; a stage that changes the shape writes `scratch` and swaps it with x.
  virtual void apply(ImageBuffer<float>& x, ImageBuffer<float>& scratch, SampleRandom& random) const = 0;
  virtual void apply(ImageBuffer<double>& x, ImageBuffer<double>& scratch, SampleRandom& random) const = 0;
};

// Implements both apply() overloads with one template member `run<T>(x, scratch, random)`.
template <class Derived>
class TypedStage : public TransformStage {
 public:
  void apply(ImageBuffer<float>& x, ImageBuffer<float>& scratch, SampleRandom& random) const override {
    static_cast<const Derived&>(*this).run(x, scratch, random);
  }
  void apply(ImageBuffer<double>& x, ImageBuffer<double>& scratch, SampleRandom& random) const override {
    static_cast<const Derived&>(*this).run(x, scratch, random);
  }
};

// Mean and sample standard deviation (divisor n - 1, Torch's std()) of many values, combined
// block by block with Chan's formula so that large sets keep their precision.
class Moments {
 public:
  void add(const double* values, std::int64_t n);
  std::int64_t count() const { return n_; }
  double mean() const { return mean_; }
  double sample_std() const;  // 0 for fewer than 2 values

 private:
  std::int64_t n_ = 0;
  double mean_ = 0, m2_ = 0;
};

// The shortest decimal that reads back as `value`: 1/256 -> "0.00390625".
std::string shortest_decimal(double value);

// One factory per rule; the arguments are already parsed and checked (transforms.cpp).
std::unique_ptr<TransformStage> make_scale_stage(double factor);        // pixel_rules.cpp
std::unique_ptr<TransformStage> make_mean_image_stage();
std::unique_ptr<TransformStage> make_global_standardize_stage();
std::unique_ptr<TransformStage> make_image_standardize_stage();
std::unique_ptr<TransformStage> make_pad_stage(int pad);                  // geometry_rules.cpp
std::unique_ptr<TransformStage> make_crop_stage(int h, int w, bool random);
std::unique_ptr<TransformStage> make_flip_stage();
std::unique_ptr<TransformStage> make_brightness_stage(double max_delta);  // colour_rules.cpp
std::unique_ptr<TransformStage> make_contrast_stage(double lower, double upper);
std::unique_ptr<TransformStage> make_yuv_lcn_stage(int kernel_size);     // yuv_lcn_rule.cpp

}  // namespace ablate::datasets
