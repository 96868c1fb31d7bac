// Transforms: the rule table, the parser of "rule[:arg]+..." specs, fitting, and the batch
// loop that runs each image through the chain of stages (see transforms.h for the rules).
#include "datasets/transforms.h"

#include <charconv>
#include <cmath>
#include <memory>
#include <stdexcept>
#include <vector>

#include "datasets/transform_stage.h"

namespace ablate::datasets {

namespace {

// ---- the chain of stages ----------------------------------------------------------------

struct Pipeline {
  std::vector<std::unique_ptr<TransformStage>> stages;
  std::uint64_t seed = 1;

  // The shape after stages [0, upto) for input `in`.
  ImageShape output(ImageShape in, std::size_t upto) const {
    for (std::size_t k = 0; k < upto; ++k) in = stages[k]->output(in);
    return in;
  }
  ImageShape output(const ImageShape& in) const { return output(in, stages.size()); }

  // Image `src` of shape `in` through stages [0, upto) into x.
  template <class T>
  void run(const std::uint8_t* src, const ImageShape& in, std::uint64_t draw, std::int64_t position, std::size_t upto,
           ImageBuffer<T>& x, ImageBuffer<T>& scratch) const {
    x.reshape(in);
    for (std::size_t j = 0; j < x.v.size(); ++j) x.v[j] = static_cast<T>(src[j]);
    for (std::size_t k = 0; k < upto; ++k) {
      SampleRandom random(seed, draw, position, k);
      stages[k]->apply(x, scratch, random);
    }
  }
};

// Checks that `out` can hold n transformed images and that the indices are in range.
void check_batch(const ImageSet& set, const std::int64_t* idx, std::int64_t n, const kernels::Tensor& out,
                 const std::string& rule, const ImageShape& shape) {
  if (out.dtype() != kernels::DType::f32 && out.dtype() != kernels::DType::f64)
    throw std::invalid_argument("transform " + rule + ": output " + out.describe() + " must be f32 or f64");
  if (out.numel() != n * shape.numel())
    throw std::invalid_argument("transform " + rule + ": output " + out.describe() + " cannot hold " +
                                std::to_string(n) + " images of " + shape.str() + " from " + set.name);
  for (std::int64_t i = 0; i < n; ++i)
    if (idx[i] < 0 || idx[i] >= set.count())
      throw std::out_of_range("transform " + rule + ": image index " + std::to_string(idx[i]) + " is outside " +
                              set.name + " (" + std::to_string(set.count()) + " images)");
}

template <class T>
void transform_batch(const Pipeline& p, const ImageSet& set, const std::int64_t* idx, std::int64_t n,
                     std::uint64_t draw, std::int64_t first_position, const ImageShape& in, const ImageShape& out_shape,
                     T* out) {
  ImageBuffer<T> x, scratch;
  for (std::int64_t i = 0; i < n; ++i) {
    p.run(set.image(idx[i]), in, draw, first_position + i, p.stages.size(), x, scratch);
    std::copy(x.v.begin(), x.v.end(), out + i * out_shape.numel());
  }
}

Transform make_transform(std::shared_ptr<const Pipeline> p) {
  Transform t;
  for (const auto& stage : p->stages) {
    if (!t.name.empty()) t.name += '+';
    t.name += stage->name();
    const std::string fitted = stage->fitted();
    if (!fitted.empty() && !t.fitted.empty()) t.fitted += "; ";
    t.fitted += fitted;
    t.random = t.random || stage->random();
  }
  t.output_shape = [p](int& c, int& h, int& w) {
    ImageShape s = p->output(ImageShape{c, h, w});
    c = s.c, h = s.h, w = s.w;
  };
  t.apply_at = [p, rule = t.name](const ImageSet& set, const std::int64_t* idx, std::int64_t n, std::uint64_t draw,
                                  std::int64_t first_position, kernels::Tensor& out) {
    const ImageShape in{set.channels, set.height, set.width};
    const ImageShape shape = p->output(in);
    check_batch(set, idx, n, out, rule, shape);
    if (out.dtype() == kernels::DType::f32)
      transform_batch(*p, set, idx, n, draw, first_position, in, shape, out.data<float>());
    else
      transform_batch(*p, set, idx, n, draw, first_position, in, shape, out.data<double>());
  };
  return t;
}

// Fits stage k on `train` as stages [0, k) leave it.
void fit_stage(const Pipeline& p, std::size_t k, const ImageSet& train, const std::string& spec) {
  TransformStage& stage = *p.stages[k];
  if (train.count() == 0)
    throw std::invalid_argument("transform '" + spec + "': rule " + stage.name() +
                                " is fitted on the training set, and " +
                                (train.name.empty() ? std::string("the set given") : train.name) + " has no images");
  const ImageShape in{train.channels, train.height, train.width};
  ImageBuffer<double> x, scratch;
  FitSource source;
  source.set_name = train.name;
  source.count = train.count();
  source.shape = p.output(in, k);
  source.image = [&](std::int64_t i, std::vector<double>& out) {
    p.run(train.image(i), in, kFitDraw, i, k, x, scratch);
    out.assign(x.v.begin(), x.v.end());
  };
  stage.fit(source);
}

// ---- parsing ------------------------------------------------------------------------------

[[noreturn]] void bad_argument(const std::string& spec, const std::string& part, const std::string& what,
                               const std::string& expected) {
  throw std::invalid_argument("transform '" + spec + "': " + what + " in '" + part + "'; expected " + expected);
}

double parse_number(const std::string& text, const std::string& spec, const std::string& part,
                    const std::string& field, const std::string& expected) {
  double v = 0;
  const char* end = text.data() + text.size();
  auto result = std::from_chars(text.data(), end, v);
  if (text.empty() || result.ec != std::errc() || result.ptr != end || !std::isfinite(v))
    bad_argument(spec, part, field + " '" + text + "' is not a number", expected);
  return v;
}

// "0.00390625", "1/255" or "1/256" -> the number.
double parse_factor(const std::string& text, const std::string& spec, const std::string& part) {
  const std::string expected = "e.g. scale:0.00390625 or scale:1/255";
  auto slash = text.find('/');
  if (slash == std::string::npos) return parse_number(text, spec, part, "factor", expected);
  const double denominator = parse_number(text.substr(slash + 1), spec, part, "factor", expected);
  if (denominator == 0) bad_argument(spec, part, "factor '" + text + "' divides by 0", expected);
  return parse_number(text.substr(0, slash), spec, part, "factor", expected) / denominator;
}

int parse_count(const std::string& text, int min, const std::string& spec, const std::string& part,
                const std::string& field, const std::string& expected) {
  int v = 0;
  const char* end = text.data() + text.size();
  auto result = std::from_chars(text.data(), end, v);
  if (text.empty() || result.ec != std::errc() || result.ptr != end || v < min)
    bad_argument(spec, part, field + " '" + text + "' is not an integer >= " + std::to_string(min), expected);
  return v;
}

struct RuleInfo {
  const char* rule;
  const char* syntax;
  const char* help;
  bool has_argument;
  std::unique_ptr<TransformStage> (*make)(const std::string& arg, const std::string& spec, const std::string& part);
};

std::unique_ptr<TransformStage> make_crop(const std::string& arg, const std::string& spec, const std::string& part,
                                          bool random) {
  const std::string expected = "a window HxW of positive integers, e.g. 24x24";
  auto x = arg.find('x');
  if (x == std::string::npos) bad_argument(spec, part, "window '" + arg + "' has no 'x'", expected);
  return make_crop_stage(parse_count(arg.substr(0, x), 1, spec, part, "height", expected),
                         parse_count(arg.substr(x + 1), 1, spec, part, "width", expected), random);
}

const std::vector<RuleInfo>& rules() {
  static const std::vector<RuleInfo> table = {
      {"scale", "scale:F", "x * F, F a number or a fraction like 1/255 (Caffe, TF and Theano MNIST)", true,
       [](const std::string& arg, const std::string& spec, const std::string& part) {
         return make_scale_stage(parse_factor(arg, spec, part));
       }},
      {"mean", "mean:image", "subtract the training set's mean image (Caffe cifar10_quick)", true,
       [](const std::string& arg, const std::string& spec, const std::string& part) {
         if (arg != "image") bad_argument(spec, part, "argument '" + arg + "' is not known", "mean:image");
         return make_mean_image_stage();
       }},
      {"standardize", "standardize:global|image",
       "global: the training set's mean and std (Torch MNIST); image: each image's own (TF CIFAR-10)", true,
       [](const std::string& arg, const std::string& spec, const std::string& part) {
         if (arg == "global") return make_global_standardize_stage();
         if (arg == "image") return make_image_standardize_stage();
         bad_argument(spec, part, "argument '" + arg + "' is not known", "standardize:global or standardize:image");
       }},
      {"pad", "pad:P", "P zero pixels on every side (Torch MNIST: pad:2, 28x28 -> 32x32)", true,
       [](const std::string& arg, const std::string& spec, const std::string& part) {
         return make_pad_stage(parse_count(arg, 0, spec, part, "padding", "pad:P, P a non-negative integer"));
       }},
      {"random_crop", "random_crop:HxW", "an HxW window at a random offset (TF CIFAR-10 training)", true,
       [](const std::string& arg, const std::string& spec, const std::string& part) {
         return make_crop(arg, spec, part, true);
       }},
      {"central_crop", "central_crop:HxW", "the central HxW window (TF CIFAR-10 testing)", true,
       [](const std::string& arg, const std::string& spec, const std::string& part) {
         return make_crop(arg, spec, part, false);
       }},
      {"random_flip", "random_flip", "left-right mirror with probability 1/2 (TF CIFAR-10 training)", false,
       [](const std::string&, const std::string&, const std::string&) { return make_flip_stage(); }},
      {"random_brightness", "random_brightness:D", "add a delta uniform in [-D, D) (TF CIFAR-10: 63)", true,
       [](const std::string& arg, const std::string& spec, const std::string& part) {
         const double d = parse_number(arg, spec, part, "max delta", "random_brightness:D, D >= 0");
         if (d < 0) bad_argument(spec, part, "max delta " + arg + " is negative", "random_brightness:D, D >= 0");
         return make_brightness_stage(d);
       }},
      {"random_contrast", "random_contrast:L,U", "contrast factor uniform in [L, U) (TF CIFAR-10: 0.2,1.8)", true,
       [](const std::string& arg, const std::string& spec, const std::string& part) {
         const std::string expected = "random_contrast:L,U with 0 <= L <= U, e.g. random_contrast:0.2,1.8";
         auto comma = arg.find(',');
         if (comma == std::string::npos) bad_argument(spec, part, "range '" + arg + "' has no ','", expected);
         const double lo = parse_number(arg.substr(0, comma), spec, part, "lower bound", expected);
         const double hi = parse_number(arg.substr(comma + 1), spec, part, "upper bound", expected);
         if (lo < 0 || hi < lo) bad_argument(spec, part, "range '" + arg + "' is empty or negative", expected);
         return make_contrast_stage(lo, hi);
       }},
      {"yuv_lcn", "yuv_lcn:K", "RGB -> YUV, Y locally normalised (Gaussian K), U, V globally (Torch CIFAR-10: 7)",
       true,
       [](const std::string& arg, const std::string& spec, const std::string& part) {
         const std::string expected = "yuv_lcn:K, K an odd kernel size, e.g. yuv_lcn:7";
         const int k = parse_count(arg, 1, spec, part, "kernel size", expected);
         if (k % 2 == 0) bad_argument(spec, part, "kernel size " + arg + " is even", expected);
         return make_yuv_lcn_stage(k);
       }},
  };
  return table;
}

std::unique_ptr<TransformStage> parse_rule(const std::string& part, const std::string& spec) {
  const auto colon = part.find(':');
  const std::string rule = part.substr(0, colon);
  for (const RuleInfo& info : rules()) {
    if (rule != info.rule) continue;
    if (info.has_argument && colon == std::string::npos)
      throw std::invalid_argument("transform '" + spec + "': rule '" + part + "' needs an argument (" +
                                  (rule == "scale" ? "a factor" : "after ':'") + "); expected " + info.syntax);
    if (!info.has_argument && colon != std::string::npos)
      throw std::invalid_argument("transform '" + spec + "': rule '" + part + "' takes no argument; expected " +
                                  info.syntax);
    return info.make(colon == std::string::npos ? "" : part.substr(colon + 1), spec, part);
  }
  throw std::invalid_argument("transform '" + spec + "': '" + part + "' is not known (rule '" + rule +
                              "'); expected rules joined by '+', each one of:\n" + transform_rules_help());
}

}  // namespace

Transform scale_transform(double factor) {
  if (!std::isfinite(factor))
    throw std::invalid_argument("transform scale: factor " + shortest_decimal(factor) + " is not a finite number");
  auto p = std::make_shared<Pipeline>();
  p->stages.push_back(make_scale_stage(factor));
  return make_transform(std::move(p));
}

Transform parse_transform(const std::string& spec, const ImageSet& train, std::uint64_t seed) {
  auto p = std::make_shared<Pipeline>();
  p->seed = seed;
  std::size_t start = 0;
  for (;;) {
    const std::size_t plus = spec.find('+', start);
    const std::string part = spec.substr(start, plus == std::string::npos ? std::string::npos : plus - start);
    if (part.empty() && spec.empty())
      throw std::invalid_argument("transform '' is not known: the spec is empty; expected rules joined by '+', e.g. "
                                  "scale:1/255 or pad:2+standardize:global");
    if (part.empty())
      throw std::invalid_argument("transform '" + spec + "': rule " + std::to_string(p->stages.size() + 1) +
                                  " is empty; expected rules joined by single '+'");
    p->stages.push_back(parse_rule(part, spec));
    if (plus == std::string::npos) break;
    start = plus + 1;
  }
  const ImageShape in{train.channels, train.height, train.width};
  for (std::size_t k = 0; k < p->stages.size(); ++k) {
    if (in.numel() > 0) {
      try {
        p->output(in, k + 1);
      } catch (const std::invalid_argument& e) {
        throw std::invalid_argument("transform '" + spec + "' on " + train.name + " (" + in.str() + "): " + e.what());
      }
    }
    if (p->stages[k]->needs_fit()) fit_stage(*p, k, train, spec);
  }
  return make_transform(std::move(p));
}

std::string transform_rules_help() {
  std::string out;
  for (const RuleInfo& info : rules()) {
    std::string syntax = info.syntax;
    syntax.resize(std::max<std::size_t>(syntax.size(), 26), ' ');
    out += "  " + syntax + info.help + "\n";
  }
  return out;
}

}  // namespace ablate::datasets
