// Per-batch preprocessing rules. "scale:F" is x = pixel * F computed in the batch's float
// type, as Caffe's DataTransformer (scale: 0.00390625, Dtype arithmetic) and TF's and
// Theano's MNIST scripts (cast to float32, then * 1/255) did.
#include "datasets/transforms.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace ablate::datasets {

namespace {

// The shortest decimal that reads back as `value`: 1/256 -> "0.00390625".
std::string shortest(double value) {
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, result.ptr);
}

// Checks that `out` can hold images idx[0..n) of `set` and that the indices are in range.
void check_batch(const ImageSet& set, const std::int64_t* idx, std::int64_t n, const kernels::Tensor& out,
                 const std::string& rule) {
  if (out.dtype() != kernels::DType::f32 && out.dtype() != kernels::DType::f64)
    throw std::invalid_argument("transform " + rule + ": output " + out.describe() + " must be f32 or f64");
  if (out.numel() != n * set.image_size())
    throw std::invalid_argument("transform " + rule + ": output " + out.describe() + " cannot hold " +
                                std::to_string(n) + " images of " + std::to_string(set.channels) + "x" +
                                std::to_string(set.height) + "x" + std::to_string(set.width) + " from " + set.name);
  for (std::int64_t i = 0; i < n; ++i)
    if (idx[i] < 0 || idx[i] >= set.count())
      throw std::out_of_range("transform " + rule + ": image index " + std::to_string(idx[i]) + " is outside " +
                              set.name + " (" + std::to_string(set.count()) + " images)");
}

template <class T>
void scale_into(const ImageSet& set, const std::int64_t* idx, std::int64_t n, T factor, T* out) {
  const std::int64_t size = set.image_size();
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint8_t* src = set.image(idx[i]);
    T* dst = out + i * size;
    for (std::int64_t j = 0; j < size; ++j) dst[j] = static_cast<T>(src[j]) * factor;
  }
}

}  // namespace

Transform scale_transform(double factor) {
  if (!std::isfinite(factor))
    throw std::invalid_argument("transform scale: factor " + shortest(factor) + " is not a finite number");
  Transform t;
  t.name = "scale:" + shortest(factor);
  t.apply = [factor, rule = t.name](const ImageSet& set, const std::int64_t* idx, std::int64_t n,
                                    kernels::Tensor& out) {
    check_batch(set, idx, n, out, rule);
    if (out.dtype() == kernels::DType::f32)
      scale_into(set, idx, n, static_cast<float>(factor), out.data<float>());
    else
      scale_into(set, idx, n, factor, out.data<double>());
  };
  return t;
}

namespace {

// "0.00390625", "1/255" or "1/256" -> the number; throws naming the spec.
double parse_factor(const std::string& text, const std::string& spec) {
  auto parse_number = [&](const std::string& part) {
    double v = 0;
    const char* end = part.data() + part.size();
    auto result = std::from_chars(part.data(), end, v);
    if (part.empty() || result.ec != std::errc() || result.ptr != end)
      throw std::invalid_argument("transform '" + spec + "': factor '" + text +
                                  "' is not a number; expected e.g. scale:0.00390625 or scale:1/255");
    return v;
  };
  auto slash = text.find('/');
  if (slash == std::string::npos) return parse_number(text);
  double denominator = parse_number(text.substr(slash + 1));
  if (denominator == 0) throw std::invalid_argument("transform '" + spec + "': factor '" + text + "' divides by 0");
  return parse_number(text.substr(0, slash)) / denominator;
}

}  // namespace

Transform parse_transform(const std::string& spec) {
  auto colon = spec.find(':');
  std::string rule = spec.substr(0, colon);
  if (rule == "scale") {
    if (colon == std::string::npos)
      throw std::invalid_argument("transform '" + spec + "' needs a factor; expected scale:F, e.g. scale:1/255");
    return scale_transform(parse_factor(spec.substr(colon + 1), spec));
  }
  throw std::invalid_argument("transform '" + spec + "' is not known (rule '" + rule +
                              "'); expected one of: scale:F (x = pixel * F, F a number or a fraction like 1/255)");
}

}  // namespace ablate::datasets
