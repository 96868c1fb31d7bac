// yuv_lcn:K — the Torch7 CIFAR-10 script's preprocessing (torch/demos train-on-cifar.lua, as
// the study ran it), on the raw 0..255 pixels:
//   1. image.rgb2yuv:  Y =  0.299 R   + 0.587 G   + 0.114 B
//                      U = -0.14713 R - 0.28886 G + 0.436 B
//                      V =  0.615 R   - 0.51499 G - 0.10001 B
//   2. Y <- nn.SpatialContrastiveNormalization(1, image.gaussian1D(K)) (datasets/local_contrast.h)
//   3. U and V normalised globally with the mean and std() (divisor n - 1) of all U (all V)
//      values of the training set: data:add(-mean); data:div(-std). The script divides by the
//      *negative* std, so U and V come out sign-flipped; that is reproduced here.
// Needs 3 channels (RGB) in; gives Y, U, V planes out. Computed in double, stored in T.
#include <stdexcept>

#include "datasets/local_contrast.h"
#include "datasets/transform_stage.h"

namespace ablate::datasets {

namespace {

// Y, U, V of one RGB pixel.
void rgb_to_yuv(double r, double g, double b, double& y, double& u, double& v) {
  y = 0.299 * r + 0.587 * g + 0.114 * b;
  u = -0.14713 * r - 0.28886 * g + 0.436 * b;
  v = 0.615 * r - 0.51499 * g - 0.10001 * b;
}

class YuvLcnStage : public TypedStage<YuvLcnStage> {
 public:
  explicit YuvLcnStage(int kernel_size) : size_(kernel_size), kernel_(torch_gaussian1d(kernel_size)) {}
  std::string name() const override { return "yuv_lcn:" + std::to_string(size_); }
  ImageShape output(const ImageShape& in) const override {
    if (in.c != 3)
      throw std::invalid_argument("transform rule " + name() + ": needs RGB images (3 channels); the image it gets is " +
                                  in.str());
    return in;
  }
  bool needs_fit() const override { return true; }
  void fit(const FitSource& train) override {
    Moments u_moments, v_moments;
    const std::int64_t plane = train.shape.plane();
    std::vector<double> image, u(static_cast<std::size_t>(plane)), v(static_cast<std::size_t>(plane));
    double y;
    for (std::int64_t i = 0; i < train.count; ++i) {
      train.image(i, image);
      for (std::int64_t j = 0; j < plane; ++j)
        rgb_to_yuv(image[j], image[plane + j], image[2 * plane + j], y, u[j], v[j]);
      u_moments.add(u.data(), plane);
      v_moments.add(v.data(), plane);
    }
    mean_u_ = u_moments.mean(), std_u_ = u_moments.sample_std();
    mean_v_ = v_moments.mean(), std_v_ = v_moments.sample_std();
    if (!(std_u_ > 0) || !(std_v_ > 0))
      throw std::invalid_argument("transform rule " + name() + ": the U or V values of " + train.set_name +
                                  " are all the same (std " + shortest_decimal(std_u_) + ", " +
                                  shortest_decimal(std_v_) + "); expected colour images");
  }
  std::string fitted() const override {
    return name() + " u mean " + shortest_decimal(mean_u_) + " std " + shortest_decimal(std_u_) + ", v mean " +
           shortest_decimal(mean_v_) + " std " + shortest_decimal(std_v_);
  }
  template <class T>
  void run(ImageBuffer<T>& x, ImageBuffer<T>&, SampleRandom&) const {
    const int h = x.shape.h, w = x.shape.w;
    const std::int64_t plane = x.shape.plane();
    std::vector<double> y(static_cast<std::size_t>(plane)), y_out(static_cast<std::size_t>(plane));
    T* p = x.v.data();
    for (std::int64_t j = 0; j < plane; ++j) {
      double u, v;
      rgb_to_yuv(p[j], p[plane + j], p[2 * plane + j], y[j], u, v);
      p[plane + j] = static_cast<T>((u - mean_u_) / -std_u_);
      p[2 * plane + j] = static_cast<T>((v - mean_v_) / -std_v_);
    }
    spatial_contrastive_normalization(y.data(), h, w, kernel_, y_out.data());
    for (std::int64_t j = 0; j < plane; ++j) p[j] = static_cast<T>(y_out[j]);
  }

 private:
  int size_;
  std::vector<double> kernel_;
  double mean_u_ = 0, std_u_ = 1, mean_v_ = 0, std_v_ = 1;
};

}  // namespace

std::unique_ptr<TransformStage> make_yuv_lcn_stage(int kernel_size) { return std::make_unique<YuvLcnStage>(kernel_size); }

}  // namespace ablate::datasets
