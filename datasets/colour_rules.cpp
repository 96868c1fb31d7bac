// Colour jitter of TF's CIFAR-10 training input (cifar10_input.distorted_inputs), on float
// pixels in 0..255 as the tutorial feeds them (no scaling first), without clipping, as TF 1.x
// adjust_brightness / adjust_contrast do on float32 images:
//   random_brightness:D    x + delta, delta uniform in [-D, D)       (random_brightness(max_delta=63))
//   random_contrast:L,U    per channel c: (x - mean_c) * f + mean_c, f uniform in [L, U)
//                          (random_contrast(lower=0.2, upper=1.8); mean_c over the H x W plane)
#include "datasets/transform_stage.h"

namespace ablate::datasets {

namespace {

class BrightnessStage : public TypedStage<BrightnessStage> {
 public:
  explicit BrightnessStage(double max_delta) : max_delta_(max_delta) {}
  std::string name() const override { return "random_brightness:" + shortest_decimal(max_delta_); }
  bool random() const override { return true; }
  template <class T>
  void run(ImageBuffer<T>& x, ImageBuffer<T>&, SampleRandom& random) const {
    const T delta = static_cast<T>(random.uniform(-max_delta_, max_delta_));
    for (T& value : x.v) value += delta;
  }

 private:
  double max_delta_;
};

class ContrastStage : public TypedStage<ContrastStage> {
 public:
  ContrastStage(double lower, double upper) : lower_(lower), upper_(upper) {}
  std::string name() const override {
    return "random_contrast:" + shortest_decimal(lower_) + "," + shortest_decimal(upper_);
  }
  bool random() const override { return true; }
  template <class T>
  void run(ImageBuffer<T>& x, ImageBuffer<T>&, SampleRandom& random) const {
    const T factor = static_cast<T>(random.uniform(lower_, upper_));
    const std::int64_t plane = x.shape.plane();
    for (int c = 0; c < x.shape.c; ++c) {
      T* p = x.v.data() + c * plane;
      double sum = 0;
      for (std::int64_t j = 0; j < plane; ++j) sum += p[j];
      const T mean = static_cast<T>(sum / static_cast<double>(plane));
      for (std::int64_t j = 0; j < plane; ++j) p[j] = (p[j] - mean) * factor + mean;
    }
  }

 private:
  double lower_, upper_;
};

}  // namespace

std::unique_ptr<TransformStage> make_brightness_stage(double max_delta) {
  return std::make_unique<BrightnessStage>(max_delta);
}
std::unique_ptr<TransformStage> make_contrast_stage(double lower, double upper) {
  return std::make_unique<ContrastStage>(lower, upper);
}

}  // namespace ablate::datasets
