// Pixel-value rules: each pixel mapped on its own or with one image's or the training set's
// statistics.
//   scale:F             x * F                      Caffe LeNet (1/256), TF and Theano MNIST (1/255)
//   mean:image          x - mean image of train     Caffe cifar10_quick (mean.binaryproto)
//   standardize:global  (x - m) * (1 / s)           Torch MNIST (dataset:normalizeGlobal)
//   standardize:image   (x - mean) / max(std, 1/sqrt(numel))   TF per_image_standardization
#include <cmath>
#include <stdexcept>

#include "datasets/transform_stage.h"

namespace ablate::datasets {

namespace {

class ScaleStage : public TypedStage<ScaleStage> {
 public:
  explicit ScaleStage(double factor) : factor_(factor) {}
  std::string name() const override { return "scale:" + shortest_decimal(factor_); }
  // In T, as Caffe's DataTransformer (Dtype arithmetic) and numpy's float32 * 1/255.
  template <class T>
  void run(ImageBuffer<T>& x, ImageBuffer<T>&, SampleRandom&) const {
    const T f = static_cast<T>(factor_);
    for (T& value : x.v) value *= f;
  }

 private:
  double factor_;
};

// Caffe's compute_image_mean sums every pixel position over the training set and divides by
// the count; DataTransformer then subtracts that float mean in Dtype. The sums of 8-bit
// pixels are exact in double, so the f32 mean equals Caffe's.
class MeanImageStage : public TypedStage<MeanImageStage> {
 public:
  std::string name() const override { return "mean:image"; }
  bool needs_fit() const override { return true; }
  ImageShape output(const ImageShape& in) const override {
    if (!mean_.empty() && in != shape_)
      throw std::invalid_argument("transform rule mean:image: the image is " + in.str() +
                                  " but the mean image was fitted on " + shape_.str() + " images");
    return in;
  }
  void fit(const FitSource& train) override {
    shape_ = train.shape;
    mean_.assign(static_cast<std::size_t>(shape_.numel()), 0.0);
    std::vector<double> image;
    for (std::int64_t i = 0; i < train.count; ++i) {
      train.image(i, image);
      for (std::size_t j = 0; j < mean_.size(); ++j) mean_[j] += image[j];
    }
    for (double& m : mean_) m /= static_cast<double>(train.count);
  }
  std::string fitted() const override {
    double sum = 0;
    for (double m : mean_) sum += m;
    return "mean:image of " + shape_.str() + " (average " + shortest_decimal(sum / static_cast<double>(mean_.size())) +
           ")";
  }
  template <class T>
  void run(ImageBuffer<T>& x, ImageBuffer<T>&, SampleRandom&) const {
    for (std::size_t j = 0; j < x.v.size(); ++j) x.v[j] -= static_cast<T>(mean_[j]);
  }

 private:
  ImageShape shape_;
  std::vector<double> mean_;
};

// Torch's dataset:normalizeGlobal: mean and std() (divisor n - 1) of every value of the
// training set, then data:add(-mean); data:mul(1/std). The test set uses the training values.
class GlobalStandardizeStage : public TypedStage<GlobalStandardizeStage> {
 public:
  std::string name() const override { return "standardize:global"; }
  bool needs_fit() const override { return true; }
  void fit(const FitSource& train) override {
    Moments moments;
    std::vector<double> image;
    for (std::int64_t i = 0; i < train.count; ++i) {
      train.image(i, image);
      moments.add(image.data(), static_cast<std::int64_t>(image.size()));
    }
    mean_ = moments.mean();
    std_ = moments.sample_std();
    if (!(std_ > 0))
      throw std::invalid_argument("transform rule standardize:global: every value of " + train.set_name +
                                  " is the same (" + shortest_decimal(mean_) + "); its std is 0, nothing to divide by");
  }
  std::string fitted() const override {
    return "standardize:global mean " + shortest_decimal(mean_) + " std " + shortest_decimal(std_);
  }
  template <class T>
  void run(ImageBuffer<T>& x, ImageBuffer<T>&, SampleRandom&) const {
    const T m = static_cast<T>(mean_), inv = static_cast<T>(1.0 / std_);
    for (T& value : x.v) value = (value - m) * inv;
  }

 private:
  double mean_ = 0, std_ = 1;
};

// TF 1.x tf.image.per_image_standardization: mean and variance E[x^2] - mean^2 (clamped at
// 0) over all C*H*W values of the image; divide by max(stddev, 1/sqrt(numel)).
class ImageStandardizeStage : public TypedStage<ImageStandardizeStage> {
 public:
  std::string name() const override { return "standardize:image"; }
  template <class T>
  void run(ImageBuffer<T>& x, ImageBuffer<T>&, SampleRandom&) const {
    const double n = static_cast<double>(x.v.size());
    double sum = 0, sum_sq = 0;
    for (T value : x.v) {
      sum += value;
      sum_sq += static_cast<double>(value) * value;
    }
    const double mean = sum / n;
    const double variance = std::max(0.0, sum_sq / n - mean * mean);
    const double scale = std::max(std::sqrt(variance), 1.0 / std::sqrt(n));
    const T m = static_cast<T>(mean), s = static_cast<T>(scale);
    for (T& value : x.v) value = (value - m) / s;
  }
};

}  // namespace

std::unique_ptr<TransformStage> make_scale_stage(double factor) { return std::make_unique<ScaleStage>(factor); }
std::unique_ptr<TransformStage> make_mean_image_stage() { return std::make_unique<MeanImageStage>(); }
std::unique_ptr<TransformStage> make_global_standardize_stage() { return std::make_unique<GlobalStandardizeStage>(); }
std::unique_ptr<TransformStage> make_image_standardize_stage() { return std::make_unique<ImageStandardizeStage>(); }

}  // namespace ablate::datasets
