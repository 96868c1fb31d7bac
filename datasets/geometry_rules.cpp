// Geometry rules: where pixels go, not what they are.
//   pad:P               P zero pixels on every side: C x H x W -> C x (H+2P) x (W+2P)
//                       (Torch MNIST: the mnist.t7 files hold the 28x28 digits padded to 32x32)
//   random_crop:HxW     an H x W window at a uniform offset in [0, H_in-H] x [0, W_in-W]
//                       (TF CIFAR-10 training: tf.random_crop, row offset drawn first)
//   central_crop:HxW    the window at ((H_in-H)/2, (W_in-W)/2), rounded down
//                       (TF CIFAR-10 testing: tf.image.resize_image_with_crop_or_pad)
//   random_flip         mirror left-right when uniform() < 0.5 (tf.image.random_flip_left_right)
#include <algorithm>
#include <stdexcept>

#include "datasets/transform_stage.h"

namespace ablate::datasets {

namespace {

class PadStage : public TypedStage<PadStage> {
 public:
  explicit PadStage(int pad) : pad_(pad) {}
  std::string name() const override { return "pad:" + std::to_string(pad_); }
  ImageShape output(const ImageShape& in) const override { return {in.c, in.h + 2 * pad_, in.w + 2 * pad_}; }
  template <class T>
  void run(ImageBuffer<T>& x, ImageBuffer<T>& out, SampleRandom&) const {
    const ImageShape in = x.shape;
    out.reshape(output(in));
    std::fill(out.v.begin(), out.v.end(), T(0));
    for (int c = 0; c < in.c; ++c)
      for (int y = 0; y < in.h; ++y) {
        const T* src = x.v.data() + c * in.plane() + static_cast<std::int64_t>(y) * in.w;
        T* dst = out.v.data() + c * out.shape.plane() + static_cast<std::int64_t>(y + pad_) * out.shape.w + pad_;
        std::copy(src, src + in.w, dst);
      }
    std::swap(x, out);
  }

 private:
  int pad_;
};

class CropStage : public TypedStage<CropStage> {
 public:
  CropStage(int h, int w, bool random) : h_(h), w_(w), random_(random) {}
  std::string name() const override {
    return std::string(random_ ? "random_crop:" : "central_crop:") + std::to_string(h_) + "x" + std::to_string(w_);
  }
  bool random() const override { return random_; }
  ImageShape output(const ImageShape& in) const override {
    if (h_ > in.h || w_ > in.w)
      throw std::invalid_argument("transform rule " + name() + ": the window " + std::to_string(h_) + "x" +
                                  std::to_string(w_) + " is larger than the image " + in.str() +
                                  " it gets; expected at most " + std::to_string(in.h) + "x" + std::to_string(in.w));
    return {in.c, h_, w_};
  }
  template <class T>
  void run(ImageBuffer<T>& x, ImageBuffer<T>& out, SampleRandom& random) const {
    const ImageShape in = x.shape;
    out.reshape(output(in));
    int top = (in.h - h_) / 2, left = (in.w - w_) / 2;
    if (random_) {
      top = static_cast<int>(random.below(in.h - h_ + 1));
      left = static_cast<int>(random.below(in.w - w_ + 1));
    }
    for (int c = 0; c < in.c; ++c)
      for (int y = 0; y < h_; ++y) {
        const T* src = x.v.data() + c * in.plane() + static_cast<std::int64_t>(y + top) * in.w + left;
        std::copy(src, src + w_, out.v.data() + c * out.shape.plane() + static_cast<std::int64_t>(y) * w_);
      }
    std::swap(x, out);
  }

 private:
  int h_, w_;
  bool random_;
};

class FlipStage : public TypedStage<FlipStage> {
 public:
  std::string name() const override { return "random_flip"; }
  bool random() const override { return true; }
  template <class T>
  void run(ImageBuffer<T>& x, ImageBuffer<T>&, SampleRandom& random) const {
    if (!(random.uniform() < 0.5)) return;
    const std::int64_t rows = static_cast<std::int64_t>(x.shape.c) * x.shape.h;
    for (std::int64_t r = 0; r < rows; ++r) std::reverse(x.v.begin() + r * x.shape.w, x.v.begin() + (r + 1) * x.shape.w);
  }
};

}  // namespace

std::unique_ptr<TransformStage> make_pad_stage(int pad) { return std::make_unique<PadStage>(pad); }
std::unique_ptr<TransformStage> make_crop_stage(int h, int w, bool random) {
  return std::make_unique<CropStage>(h, w, random);
}
std::unique_ptr<TransformStage> make_flip_stage() { return std::make_unique<FlipStage>(); }

}  // namespace ablate::datasets
