// The initializer rules of Caffe (constant, gaussian, xavier FAN_IN, msra FAN_IN), Torch (uniform
// +-1/sqrt(fan_in), its modules' reset()), Theano's tutorials (glorot uniform) and
// TensorFlow (truncated_normal), drawn from one std::mt19937_64 with library-independent
// transforms (see initializers.h).
#include "models/initializers.h"

#include <cmath>
#include <functional>
#include <numbers>
#include <stdexcept>

#include "models/number_parse.h"

namespace ablate::models {
namespace {

struct Rule {
  const char* name;
  const char* argument;  // nullptr: takes none; else what it means ("V", "STD")
  bool positive;         // the argument must be > 0
};

const Rule kRules[] = {
    {"constant", "V", false},  {"gaussian", "STD", true}, {"xavier", nullptr, false},
    {"uniform_fan_in", nullptr, false}, {"glorot", nullptr, false}, {"truncated_normal", "STD", true},
    {"msra", nullptr, false},
};

struct ParsedSpec {
  const Rule* rule = nullptr;
  double argument = 0;
};

std::string known_rules() {
  std::string out;
  for (const auto& form : initializer_forms()) out += (out.empty() ? "" : ", ") + form;
  return out;
}

[[noreturn]] void bad_spec(const std::string& spec, const std::string& why) {
  throw std::invalid_argument("initializer '" + spec + "': " + why + " (known: " + known_rules() + ")");
}

ParsedSpec parse_spec(const std::string& spec) {
  const std::size_t colon = spec.find(':');
  const std::string name = spec.substr(0, colon);
  ParsedSpec parsed;
  for (const Rule& rule : kRules)
    if (name == rule.name) parsed.rule = &rule;
  if (!parsed.rule) bad_spec(spec, "unknown rule '" + name + "'");
  const Rule& rule = *parsed.rule;
  if (!rule.argument) {
    if (colon != std::string::npos) bad_spec(spec, std::string(rule.name) + " takes no argument");
    return parsed;
  }
  if (colon == std::string::npos) bad_spec(spec, std::string(rule.name) + " needs an argument " + rule.argument);
  const std::string arg = spec.substr(colon + 1);
  auto value = parse_real(arg);
  if (!value) bad_spec(spec, std::string(rule.argument) + " '" + arg + "' is not a number");
  if (rule.positive && *value <= 0) bad_spec(spec, std::string(rule.argument) + " must be positive, got " + arg);
  parsed.argument = *value;
  return parsed;
}

// u in [0, 1) from the top 53 bits of one draw.
double uniform01(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

// Standard normals by Box-Muller; each pair of uniforms gives two values, used in order.
class NormalStream {
 public:
  explicit NormalStream(std::mt19937_64& rng) : rng_(rng) {}
  double next() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = 1.0 - uniform01(rng_);  // (0, 1]: log stays finite
    const double u2 = uniform01(rng_);
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double angle = 2.0 * std::numbers::pi * u2;
    spare_ = r * std::sin(angle);
    has_spare_ = true;
    return r * std::cos(angle);
  }

 private:
  std::mt19937_64& rng_;
  double spare_ = 0;
  bool has_spare_ = false;
};

template <class T>
void fill_with(kernels::Tensor& t, const std::function<double()>& draw) {
  T* data = t.data<T>();
  for (std::int64_t i = 0; i < t.numel(); ++i) data[i] = static_cast<T>(draw());
}

}  // namespace

std::vector<std::string> initializer_forms() {
  std::vector<std::string> forms;
  for (const Rule& rule : kRules) forms.push_back(std::string(rule.name) + (rule.argument ? std::string(":") + rule.argument : ""));
  return forms;
}

void validate_initializer(const std::string& spec) { parse_spec(spec); }

void initialize(kernels::Tensor& t, const std::string& spec, std::mt19937_64& rng, double fan_out_override,
                double fan_in_override) {
  const ParsedSpec parsed = parse_spec(spec);
  if (t.dtype() != kernels::DType::f32 && t.dtype() != kernels::DType::f64)
    throw std::invalid_argument("initializer '" + spec + "': tensor " + t.describe() + " must be f32 or f64");
  if (t.numel() == 0) return;
  const double numel = static_cast<double>(t.numel());
  const double fan_in = fan_in_override > 0 ? fan_in_override : numel / static_cast<double>(t.dim(0));
  const double fan_out = fan_out_override > 0 ? fan_out_override
                         : t.ndim() >= 2  ? numel / static_cast<double>(t.dim(1))
                                          : numel;
  const std::string name = parsed.rule->name;
  const double arg = parsed.argument;
  NormalStream normal(rng);
  std::function<double()> draw;
  auto uniform = [&rng](double a) { return [&rng, a] { return a * (2.0 * uniform01(rng) - 1.0); }; };
  if (name == "constant") {
    draw = [arg] { return arg; };
  } else if (name == "gaussian") {
    draw = [&normal, arg] { return arg * normal.next(); };
  } else if (name == "truncated_normal") {
    draw = [&normal, arg] {
      double z = normal.next();
      while (std::fabs(z) > 2.0) z = normal.next();
      return arg * z;
    };
  } else if (name == "xavier") {
    draw = uniform(std::sqrt(3.0 / fan_in));
  } else if (name == "msra") {  // Caffe's MSRAFiller (He et al. 2015), variance_norm FAN_IN
    draw = [&normal, std = std::sqrt(2.0 / fan_in)] { return std * normal.next(); };
  } else if (name == "uniform_fan_in") {
    draw = uniform(1.0 / std::sqrt(fan_in));
  } else {  // glorot
    draw = uniform(std::sqrt(6.0 / (fan_in + fan_out)));
  }
  if (t.dtype() == kernels::DType::f32)
    fill_with<float>(t, draw);
  else
    fill_with<double>(t, draw);
}

}  // namespace ablate::models
