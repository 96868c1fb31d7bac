// libFuzzer target: the ModelSpec parser (models/model_spec.h) and, for what parses, the shape
// inference every strategy and the memory estimate run (models/shape_inference.h) and the
// per-layer settings the engines read (models/layer_params.h). The input is the model text.
// A clean rejection is std::invalid_argument or std::runtime_error; an accepted model must
// give positive, countable dimensions everywhere and a loss output of [1].
#include <cstddef>
#include <cstdint>
#include <string>

#include "fuzz/clean_rejection.h"
#include "kernels/tensor.h"
#include "models/layer_params.h"
#include "models/model_spec.h"
#include "models/shape_inference.h"

using namespace ablate;

namespace {

constexpr std::int64_t kBatch = 64;
// A conv_map connection table is built only for a layer the engine could build: at most this
// many connections (the resource guard rejects larger models before the engine runs).
constexpr std::int64_t kMaxConnections = std::int64_t{1} << 20;

// Positive dimensions whose element count fits int64 (shape_numel throws otherwise, and an
// exception escaping here is a finding).
void check_dims(const std::vector<std::int64_t>& dims, const char* what) {
  fuzz::fuzz_check(!dims.empty(), what);
  for (auto d : dims) fuzz::fuzz_check(d >= 1, what);
  kernels::shape_numel(dims);
}

void read_layer_settings(const models::LayerSpec& layer, const models::LayerShapes& shapes) {
  models::weight_settings(layer);
  models::bias_settings(layer);
  if (layer.type == "lrn") models::lrn_params(layer);
  if (layer.type == "dropout") models::dropout_keep(layer);
  if (layer.type == "conv_map") {
    const std::int64_t connections = std::int64_t{layer.require_int("outputs")} * layer.require_int("fan_in");
    if (connections <= kMaxConnections) {
      auto table = models::connection_table(layer, static_cast<int>(shapes.input[1]));
      fuzz::fuzz_check(table.size() == static_cast<std::size_t>(2 * connections), "connection table size");
      for (std::size_t i = 0; i < table.size(); i += 2)
        fuzz::fuzz_check(table[i] >= 0 && table[i] < shapes.input[1], "connection table input plane");
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  models::ModelSpec spec;
  if (!fuzz::accepts([&] { spec = models::parse_model(text, "fuzz.model"); })) return 0;
  fuzz::fuzz_check(!spec.layers.empty() && spec.input_shape.size() == 3 && spec.classes >= 1, "parsed header");

  std::vector<models::LayerShapes> shapes;
  if (!fuzz::accepts([&] { shapes = models::infer_shapes(spec, kBatch); })) return 0;
  fuzz::fuzz_check(shapes.size() == spec.layers.size(), "one shape entry per layer");
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    check_dims(shapes[i].input, "positive input dimensions");
    check_dims(shapes[i].output, "positive output dimensions");
    for (const auto& p : shapes[i].params) check_dims(p, "positive parameter dimensions");
    fuzz::accepts([&] { read_layer_settings(spec.layers[i], shapes[i]); });
  }
  fuzz::fuzz_check(shapes.back().output == std::vector<std::int64_t>{1}, "the loss gives [1]");
  return 0;
}
