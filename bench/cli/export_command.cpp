// `ablate export`: writes a model's inference graph as an ONNX file (models/onnx/onnx_export.h:
// opset 13, or 17 for a model with layer_norm; float32, the loss dropped, the logits or
// LogSoftmax output), with the weights of a
// checkpoint (graph/checkpoint_file.h: a snapshot `ablate run --snapshot-every` or
// `--snapshot-initial` writes; the parameters and the running statistics by name) or, without
// one, the initial weights a run of --seed draws (models::make_initial_parameters). The values
// are rounded to float32 once, as the file holds them.
//
// --logits-input FILE --logits-out FILE: ablate's own output for an input, to set beside another
// runtime's (tests/peers/test_onnx_runtime.py, ONNX Runtime): FILE is a serialized ONNX
// TensorProto (as ONNX's test_data_set_*/input_0.pb) of the model's input shape [N, C, H, W]; the output
// [N, classes] is computed by the forward runner (graph/static/forward_runner.h: the static
// graph's test phase on the reference backend, in f32) from the exported float32 weights, and
// written as a TensorProto named after the graph output.
#include <cstdio>
#include <fstream>
#include <stdexcept>

#include "bench/cli/commands.h"
#include "bench/run/text_file.h"
#include "graph/checkpoint_file.h"
#include "graph/static/forward_runner.h"
#include "kernels/registry.h"
#include "models/checked_model.h"
#include "models/model_spec.h"
#include "models/onnx/onnx_export.h"
#include "models/onnx/onnx_import.h"
#include "models/parameters.h"

namespace ablate::bench::cli {
namespace {

models::GivenValues host_values(const kernels::Tensor& t, const std::string& what) {
  models::GivenValues v;
  v.shape = t.shape();
  v.values.resize(static_cast<std::size_t>(t.numel()));
  if (t.dtype() == kernels::DType::f32) {
    for (std::int64_t i = 0; i < t.numel(); ++i) v.values[static_cast<std::size_t>(i)] = t.data<float>()[i];
  } else if (t.dtype() == kernels::DType::f64) {
    for (std::int64_t i = 0; i < t.numel(); ++i) v.values[static_cast<std::size_t>(i)] = t.data<double>()[i];
  } else {
    throw std::invalid_argument(what + " is " + t.describe() + ", expected f32 or f64");
  }
  return v;
}

// Every parameter and state tensor of the model: from the checkpoint, or as a run of `seed` draws them.
std::map<std::string, models::GivenValues> model_values(const models::ModelSpec& spec, const run::Flags& args) {
  std::map<std::string, models::GivenValues> values;
  std::vector<std::string> names;
  const auto parameters = models::make_initial_parameters(spec, kernels::DType::f64,
                                                          static_cast<std::uint64_t>(args.get_int("seed", 1, 0)));
  const auto state = models::make_initial_state(spec, kernels::DType::f64);
  for (const auto& p : parameters) values[p.name] = host_values(p.value, p.name), names.push_back(p.name);
  for (const auto& s : state) values[s.name] = host_values(s.value, s.name), names.push_back(s.name);
  if (args.has("checkpoint")) {  // the same names, each replaced by the checkpoint's value
    const std::string path = args.get("checkpoint");
    const graph::Checkpoint checkpoint = graph::read_checkpoint(path);
    for (const std::string& name : names) {
      const kernels::Tensor* saved = nullptr;
      for (const auto& [n, t] : checkpoint.tensors)
        if (n == name) saved = &t;
      if (!saved)
        throw std::invalid_argument("--checkpoint " + path + ": no tensor '" + name + "' of model '" + spec.name +
                                    "' (a checkpoint of another model?)");
      models::GivenValues v = host_values(*saved, "--checkpoint " + path + ": tensor '" + name + "'");
      if (v.shape != values[name].shape)
        throw std::invalid_argument("--checkpoint " + path + ": tensor '" + name + "' is " + saved->describe() +
                                    ", model '" + spec.name + "' has " + kernels::shape_string(values[name].shape) +
                                    " (a checkpoint of another model?)");
      values[name] = std::move(v);
    }
  }
  for (auto& [name, v] : values)  // the file holds float32: every later use sees the same values
    for (double& x : v.values) x = static_cast<float>(x);
  return values;
}

// The model up to the layer whose output the loss reads, without the loss, forward only, with
// `values` as its weights: what the exported graph computes.
models::CheckedModel inference_model(const models::ModelSpec& spec, const std::map<std::string, models::GivenValues>& values) {
  const models::CheckedModel trained(spec);
  models::ModelSpec inference = trained.spec();
  inference.layers.resize(static_cast<std::size_t>(trained.input(trained.size() - 1) + 1));
  inference.forward_only = true;
  inference.given = values;
  for (auto it = inference.given.begin(); it != inference.given.end();) {  // only the tensors of the layers kept
    const std::string layer = it->first.substr(0, it->first.rfind('.'));
    bool kept = false;
    for (const auto& l : inference.layers) kept = kept || l.name == layer;
    it = kept ? std::next(it) : inference.given.erase(it);
  }
  return models::CheckedModel(inference);
}

void write_logits(const models::ModelSpec& spec, const std::map<std::string, models::GivenValues>& values,
                  const std::string& output, const run::Flags& args) {
  const std::string in_path = args.get("logits-input"), out_path = args.get("logits-out");
  const models::GivenValues x = models::onnx_import::read_tensor_file(in_path);
  kernels::Tensor input(x.shape, kernels::DType::f32);
  for (std::size_t i = 0; i < x.values.size(); ++i) input.data<float>()[i] = static_cast<float>(x.values[i]);
  auto backend = kernels::make_backend("reference", 1);
  const kernels::Tensor y = graph::static_graph::run_forward(inference_model(spec, values), *backend, input);
  const onnx::TensorProto proto = models::onnx_export::float_tensor(output, host_values(y, "the output"));
  run::write_text_file(out_path, proto.SerializeAsString(), "--logits-out");
  std::printf("wrote %s: ablate's output %s for %s\n", out_path.c_str(), y.describe().c_str(), in_path.c_str());
}

int export_main(const run::Flags& args) {
  if (!args.has("model")) throw std::invalid_argument("--model NAME|FILE is required (see ablate export --help)");
  if (!args.has("onnx") || args.get("onnx").empty()) throw std::invalid_argument("--onnx FILE is required (see ablate export --help)");
  if (args.has("logits-input") != args.has("logits-out"))
    throw std::invalid_argument("--logits-input and --logits-out go together");
  const models::ModelSpec spec = models::load_model(args.get("model"));
  const auto values = model_values(spec, args);
  const std::string from = args.has("checkpoint") ? "the checkpoint " + args.get("checkpoint")
                           : spec.given.empty()    ? "the initial weights of seed " + args.get("seed", "1")
                                                   : "the initial weights the model gives (an imported file's initializers)";
  const auto result = models::onnx_export::export_model(spec, values, "exported by ablate from " + spec.source + " with " + from);
  std::string bytes;
  if (!result.model.SerializeToString(&bytes)) throw std::invalid_argument("--onnx: the model cannot be serialized");
  run::write_text_file(args.get("onnx"), bytes, "--onnx");
  const auto& g = result.model.graph();
  std::printf("wrote %s: model '%s', %d nodes, %d initializers, opset %d, output '%s'; weights: %s\n",
              args.get("onnx").c_str(), spec.name.c_str(), g.node_size(), g.initializer_size(),
              static_cast<int>(result.model.opset_import(0).version()), result.output.c_str(), from.c_str());
  std::printf("note: %s\n", result.note.c_str());
  if (args.has("logits-input")) write_logits(spec, values, result.output, args);
  return 0;
}

}  // namespace

Command export_command() {
  return {"export",
          "write a model's inference graph as ONNX (opset 13, 17 with layer_norm) with trained or initial weights",
          "Writes the inference graph of a model as an ONNX file (opset 13, or 17 when it has layer_norm:\n"
          "LayerNormalization; float32): the loss is dropped\n"
          "(the output is what it read: the logits, or LogSoftmax's output before nll_loss), dropout omitted,\n"
          "batch norm on its running statistics. Weights from --checkpoint (a snapshot of ablate run) or\n"
          "the initial ones of --seed. A layer ONNX cannot express is an error naming it.",
          {
              {"model", "NAME|FILE", "model file or zoo name (required)"},
              {"checkpoint", "FILE", "take the weights and running statistics from this checkpoint (ablate run --snapshot-every)"},
              {"seed", "N", "without --checkpoint: the initial weights a run of this seed starts from (default 1)"},
              {"onnx", "FILE", "the ONNX file to write (required; written whole or not at all)"},
              {"logits-input", "FILE", "an input [N, C, H, W] as an ONNX TensorProto file: also write ablate's output for it"},
              {"logits-out", "FILE", "where --logits-input's output goes (a TensorProto file named after the graph output)"},
          },
          export_main};
}

}  // namespace ablate::bench::cli
