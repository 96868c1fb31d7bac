// ONNX export of a ModelSpec's inference graph (see onnx_export.h): one writer per ablate layer
// type, each adding the ONNX nodes that compute the layer's evaluation forward.
#include "models/onnx/onnx_export.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>
#include <vector>

#include "models/checked_model.h"
#include "models/layer_params.h"
#include "models/onnx/export_graph.h"

namespace ablate::models::onnx_export {
namespace {

// padding=same (TF SAME: the odd padded pixel at the bottom/right) is ONNX's auto_pad
// SAME_UPPER; explicit padding is the same on every side.
void conv_attributes(onnx::NodeProto& n, const LayerSpec& layer, int kh, int kw, const kernels::Conv2dParams& p) {
  attribute(n, "kernel_shape", std::vector<std::int64_t>{kh, kw});
  attribute(n, "strides", std::vector<std::int64_t>{p.stride_h, p.stride_w});
  if (layer.get_string("padding", "explicit") == "same")
    string_attribute(n, "auto_pad", "SAME_UPPER");
  else
    attribute(n, "pads", std::vector<std::int64_t>{p.pad_top, p.pad_left, p.pad_bottom, p.pad_right});
}

std::string convolution(LayerContext& c) {
  const ConvGeometry g = conv_geometry(c.layer, static_cast<int>(c.in()[2]), static_cast<int>(c.in()[3]));
  std::vector<std::string> inputs{c.x(), c.param("weight")};
  if (c.has_param("bias")) inputs.push_back(c.param("bias"));
  conv_attributes(c.graph.node("Conv", c.name(), inputs, c.name()), c.layer, g.kernel_h, g.kernel_w, g.params);
  return c.name();
}

// Torch's SpatialConvolutionMap: kernel t of the weight [T, KH, KW] joins table pair t's input
// plane to its output plane; as a dense [K, C, KH, KW] weight, every other pair is zero.
std::string conv_map(LayerContext& c) {
  const std::int64_t channels = c.in()[1];
  const ConvGeometry g = conv_geometry(c.layer, static_cast<int>(c.in()[2]), static_cast<int>(c.in()[3]));
  const std::vector<std::int32_t> table = connection_table(c.layer, static_cast<int>(channels));
  const GivenValues& w = c.graph.value(c.name() + ".weight", c.shapes.params[0], c.layer);
  const std::int64_t area = std::int64_t{g.kernel_h} * g.kernel_w;
  GivenValues dense{{g.outputs, channels, g.kernel_h, g.kernel_w}, {}};
  dense.values.assign(static_cast<std::size_t>(g.outputs * channels * area), 0.0);
  for (std::size_t t = 0; 2 * t < table.size(); ++t) {
    const std::int64_t in = table[2 * t], out = table[2 * t + 1];
    for (std::int64_t k = 0; k < area; ++k)
      dense.values[static_cast<std::size_t>((out * channels + in) * area + k)] =
          w.values[static_cast<std::size_t>(static_cast<std::int64_t>(t) * area + k)];
  }
  const std::string weight = c.name() + ".weight";
  c.graph.initializer(weight, dense);
  std::vector<std::string> inputs{c.x(), weight};
  if (c.has_param("bias")) inputs.push_back(c.param("bias"));
  conv_attributes(c.graph.node("Conv", c.name(), inputs, c.name()), c.layer, g.kernel_h, g.kernel_w, g.params);
  return c.name();
}

// ONNX's pooling output size along one axis: floor or ceil((in + before + after - k) / s) + 1.
int onnx_pool_out(int in, int k, int s, int before, int after, bool ceil_mode) {
  const int span = in + before + after - k;
  return (ceil_mode ? (span + s - 1) / s : span / s) + 1;
}

// The first of these ONNX forms that computes what ablate's pooling computes:
//   TF SAME       auto_pad SAME_UPPER (an average over real cells: count_include_pad 0)
//   floor         pads [p, p, p, p], ceil_mode 0 (an average over the whole window, which lies
//                 inside the padded input: count_include_pad 1)
//   Caffe's ceil  pads [p, p, p, p], ceil_mode 1 where ONNX's ceil keeps ablate's windows (no
//                 last window starting in the padding); an average without padding divides by
//                 the real cells (count_include_pad 0)
//   else          ceil_mode 0 and more padding at the bottom and right for the last window
//                 (Caffe's ceil where H and W round differently)
// Padded cells are never a maximum in either. Caffe's average whose last window reaches past its
// padding divides by the cells inside the padding: no ONNX divisor, refused.
std::string pooling(LayerContext& c) {
  const int in_h = static_cast<int>(c.in()[2]), in_w = static_cast<int>(c.in()[3]);
  const kernels::Pool2dParams p = pool_params(c.layer, in_h, in_w);
  const bool avg = p.kind == kernels::PoolKind::avg;
  onnx::NodeProto& n = c.graph.node(avg ? "AveragePool" : "MaxPool", c.name(), {c.x()}, c.name());
  attribute(n, "kernel_shape", std::vector<std::int64_t>{p.kernel_h, p.kernel_w});
  attribute(n, "strides", std::vector<std::int64_t>{p.stride_h, p.stride_w});
  if (!p.avg_count_padding) {  // TF SAME: ONNX's SAME_UPPER puts the odd padded cell at the end too
    string_attribute(n, "auto_pad", "SAME_UPPER");
    if (avg) attribute(n, "count_include_pad", std::int64_t{0});
    return c.name();
  }
  const int pad = p.pad_top;  // every side alike (pool_params)
  auto fits = [&](bool ceil_mode) {
    return onnx_pool_out(in_h, p.kernel_h, p.stride_h, pad, pad, ceil_mode) == p.out_h &&
           onnx_pool_out(in_w, p.kernel_w, p.stride_w, pad, pad, ceil_mode) == p.out_w;
  };
  // A window runs past the padded input (only where the output size rounds up).
  const bool overruns = (p.out_h - 1) * p.stride_h + p.kernel_h > in_h + 2 * pad ||
                        (p.out_w - 1) * p.stride_w + p.kernel_w > in_w + 2 * pad;
  if (avg && overruns && pad > 0)
    c.refuse("average pooling with Caffe's ceil rounding and pad " + std::to_string(pad) +
             " divides its last window by the cells inside the padding, which ONNX's AveragePool "
             "(count_include_pad 0 or 1) cannot express");
  std::vector<std::int64_t> pads{pad, pad, pad, pad};
  std::int64_t ceil_mode = 0;
  if (!fits(false)) {
    if (fits(true)) {
      ceil_mode = 1;
    } else {  // more padding after, so that floor rounding gives ablate's size on each axis
      pads[2] = std::max(pad, (p.out_h - 1) * p.stride_h + p.kernel_h - in_h - pad);
      pads[3] = std::max(pad, (p.out_w - 1) * p.stride_w + p.kernel_w - in_w - pad);
      if (onnx_pool_out(in_h, p.kernel_h, p.stride_h, pad, static_cast<int>(pads[2]), false) != p.out_h ||
          onnx_pool_out(in_w, p.kernel_w, p.stride_w, pad, static_cast<int>(pads[3]), false) != p.out_w)
        c.refuse("no ONNX padding gives its output " + std::to_string(p.out_h) + "x" + std::to_string(p.out_w));
    }
  }
  attribute(n, "pads", pads);
  if (ceil_mode) attribute(n, "ceil_mode", ceil_mode);
  // The whole window lies in the padded input, or (no padding) it is clipped to the real cells.
  if (avg) attribute(n, "count_include_pad", std::int64_t{overruns ? 0 : 1});
  return c.name();
}

std::string inner_product(LayerContext& c) {
  std::string x = c.x();
  if (c.in().size() != 2) {
    x = c.name() + "/Flatten";
    attribute(c.graph.node("Flatten", x, {c.x()}, x), "axis", std::int64_t{1});
  }
  std::vector<std::string> inputs{x, c.param("weight")};
  if (c.has_param("bias")) inputs.push_back(c.param("bias"));
  attribute(c.graph.node("Gemm", c.name(), inputs, c.name()), "transB", std::int64_t{1});
  return c.name();
}

// A per-channel bias: Add of the constant [C, 1, ...] (broadcast over N and the plane).
std::string bias(LayerContext& c) {
  const std::string tensor = c.name() + ".bias";
  GivenValues b = c.graph.value(tensor, c.shapes.params[0], c.layer);
  b.shape.resize(c.in().size() - 1, 1);
  c.graph.initializer(tensor, b);
  c.graph.node("Add", c.name(), {c.x(), tensor}, c.name());
  return c.name();
}

LayerWriter unary(const std::string& op) {
  return [op](LayerContext& c) {
    c.graph.node(op, c.name(), {c.x()}, c.name());
    return c.name();
  };
}

std::string gelu(LayerContext& c) {
  const std::string n = c.name(), x = c.x();
  auto& g = c.graph;
  if (c.layer.get_string("approximate", "none") == "none") {  // x * (erf(x / sqrt 2) + 1) * 0.5
    g.node("Div", n + "/Div", {x, g.scalar(n + "/sqrt2", std::sqrt(2.0))}, n + "/Div");
    g.node("Erf", n + "/Erf", {n + "/Div"}, n + "/Erf");
    g.node("Add", n + "/Add", {n + "/Erf", g.scalar(n + "/one", 1.0)}, n + "/Add");
    g.node("Mul", n + "/Mul", {x, n + "/Add"}, n + "/Mul");
    g.node("Mul", n, {n + "/Mul", g.scalar(n + "/half", 0.5)}, n);
    return n;
  }
  // 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
  const double pi = std::acos(-1.0);
  g.node("Mul", n + "/Square", {x, x}, n + "/Square");
  g.node("Mul", n + "/Cube", {n + "/Square", x}, n + "/Cube");
  g.node("Mul", n + "/CubeScaled", {n + "/Cube", g.scalar(n + "/c", 0.044715)}, n + "/CubeScaled");
  g.node("Add", n + "/Inner", {x, n + "/CubeScaled"}, n + "/Inner");
  g.node("Mul", n + "/InnerScaled", {n + "/Inner", g.scalar(n + "/sqrt_2_over_pi", std::sqrt(2.0 / pi))},
         n + "/InnerScaled");
  g.node("Tanh", n + "/Tanh", {n + "/InnerScaled"}, n + "/Tanh");
  g.node("Add", n + "/Add", {n + "/Tanh", g.scalar(n + "/one", 1.0)}, n + "/Add");
  g.node("Mul", n + "/Mul", {x, n + "/Add"}, n + "/Mul");
  g.node("Mul", n, {n + "/Mul", g.scalar(n + "/half", 0.5)}, n);
  return n;
}

std::string batch_norm(LayerContext& c) {
  const BatchNormParams p = batch_norm_params(c.layer);
  const std::int64_t channels = c.in()[1];
  std::string scale, shift;
  if (p.affine) {
    scale = c.param("weight");
    shift = c.param("bias");
  } else {  // no learnable part: y = (x - mean) / sqrt(var + eps)
    scale = c.name() + "/scale";
    shift = c.name() + "/shift";
    c.graph.initializer(scale, GivenValues{{channels}, std::vector<double>(static_cast<std::size_t>(channels), 1.0)});
    c.graph.initializer(shift, GivenValues{{channels}, std::vector<double>(static_cast<std::size_t>(channels), 0.0)});
  }
  std::string mean = c.name() + ".running_mean", var = c.name() + ".running_var";
  double momentum = 1 - p.momentum;  // ONNX: running = momentum running + (1 - momentum) batch
  if (p.style == MomentumStyle::torch) {
    c.graph.initializer(mean, c.state("running_mean"));
    c.graph.initializer(var, c.state("running_var"));
  } else {  // Caffe's test-time statistics: the sums over the scale factor (0 while it is 0)
    const double factor = c.state("scale_factor").values.at(0);
    const double s = factor == 0 ? 0.0 : 1.0 / factor;
    GivenValues m = c.state("mean_sum"), v = c.state("var_sum");
    for (double& x : m.values) x *= s;
    for (double& x : v.values) x *= s;
    mean = c.name() + "/mean";
    var = c.name() + "/var";
    c.graph.initializer(mean, m);
    c.graph.initializer(var, v);
    momentum = p.moving_average_fraction;
  }
  onnx::NodeProto& n = c.graph.node("BatchNormalization", c.name(), {c.x(), scale, shift, mean, var}, c.name());
  float_attribute(n, "epsilon", p.epsilon);
  float_attribute(n, "momentum", momentum);
  return c.name();
}

std::string lrn(LayerContext& c) {
  const kernels::LrnParams p = lrn_params(c.layer);
  onnx::NodeProto& n = c.graph.node("LRN", c.name(), {c.x()}, c.name());
  attribute(n, "size", std::int64_t{p.size});
  float_attribute(n, "alpha", p.alpha);
  float_attribute(n, "beta", p.beta);
  float_attribute(n, "bias", p.k);
  return c.name();
}

std::string add(LayerContext& c) {
  c.graph.node(c.inputs.size() == 2 ? "Add" : "Sum", c.name(), c.inputs, c.name());
  return c.name();
}

std::string concat(LayerContext& c) {
  attribute(c.graph.node("Concat", c.name(), c.inputs, c.name()), "axis", std::int64_t{1});
  return c.name();
}

std::string log_softmax(LayerContext& c) {
  if (c.in().size() != 2) c.refuse("log_softmax of a " + dims_text(c.in()) + " input (only [N, F])");
  attribute(c.graph.node("LogSoftmax", c.name(), {c.x()}, c.name()), "axis", std::int64_t{1});
  return c.name();
}

std::string global_avg_pool(LayerContext& c) {
  c.graph.node("GlobalAveragePool", c.name(), {c.x()}, c.name());
  return c.name();
}

std::string dropout(LayerContext& c) { return c.x(); }  // evaluation: the input as it is

const std::map<std::string, LayerWriter>& writers() {
  static const std::map<std::string, LayerWriter> table = [] {
    std::map<std::string, LayerWriter> t{
      {"convolution", convolution},
      {"conv_map", conv_map},
      {"pooling", pooling},
      {"inner_product", inner_product},
      {"bias", bias},
      {"relu", unary("Relu")},
      {"tanh", unary("Tanh")},
      {"sigmoid", unary("Sigmoid")},
      {"gelu", gelu},
      {"batch_norm", batch_norm},
      {"lrn", lrn},
      {"add", add},
      {"concat", concat},
      {"log_softmax", log_softmax},
      {"global_avg_pool", global_avg_pool},
      {"dropout", dropout},
    };
    t.insert(token_writers().begin(), token_writers().end());
    return t;
  }();
  return table;
}

std::string exported_types() {
  std::string s;
  for (const auto& [type, writer] : writers()) s += (s.empty() ? "" : ", ") + type;
  return s + ", and a final softmax_loss or nll_loss (dropped)";
}

}  // namespace

onnx::TensorProto float_tensor(const std::string& name, const GivenValues& values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  std::int64_t numel = 1;
  for (std::int64_t d : values.shape) {
    t.add_dims(d);
    numel *= d;
  }
  if (numel != static_cast<std::int64_t>(values.values.size()))
    throw std::invalid_argument("tensor '" + name + "': shape " + dims_text(values.shape) + " holds " +
                                std::to_string(numel) + " values, given " + std::to_string(values.values.size()));
  std::string raw(values.values.size() * sizeof(float), '\0');  // little-endian, as ONNX's raw_data
  for (std::size_t i = 0; i < values.values.size(); ++i) {
    const float f = static_cast<float>(values.values[i]);
    std::memcpy(raw.data() + i * sizeof(float), &f, sizeof(float));
  }
  t.set_raw_data(std::move(raw));
  return t;
}

ExportResult export_model(const ModelSpec& spec, const std::map<std::string, GivenValues>& values,
                          const std::string& doc) {
  const CheckedModel model(spec);
  const std::size_t last = model.size() - 1;
  const LayerSpec& loss = model.layer(last);
  if (!model.type(last).loss)
    loss.fail("cannot be exported to ONNX: the last layer is no loss (the export writes the inference graph of a "
              "trainable model)");

  ExportResult result;
  onnx::ModelProto& m = result.model;
  m.set_producer_name("ablate");
  m.set_model_version(1);
  if (!doc.empty()) m.set_doc_string(doc);
  onnx::GraphProto& graph = *m.mutable_graph();
  graph.set_name(spec.name);
  GraphWriter writer(graph, values);

  const Dims input = [&] {
    Dims d;
    for (int v : spec.input_shape) d.push_back(v);
    return d;
  }();
  set_type(*graph.add_input(), kInputName, {"N"}, input);

  std::vector<std::string> tensors(model.size());  // the tensor holding each layer's output
  auto tensor_of = [&](int i) { return i < 0 ? std::string(kInputName) : tensors[static_cast<std::size_t>(i)]; };
  bool dropped_dropout = false;
  for (std::size_t i = 0; i < last; ++i) {
    const LayerSpec& layer = model.layer(i);
    auto it = writers().find(layer.type);
    if (it == writers().end()) {
      if (model.type(i).loss) layer.fail("cannot be exported to ONNX: a loss before the last layer");
      layer.fail("cannot be exported to ONNX: no export for layer type '" + layer.type + "' (exported: " +
                 exported_types() + ")");
    }
    LayerContext c{layer, model.unit_shapes()[i], {}, writer};
    for (int k : model.inputs(i)) c.inputs.push_back(tensor_of(k));
    tensors[i] = it->second(c);
    dropped_dropout |= layer.type == "dropout";
  }

  const int scores = model.input(last);
  if (scores < 0) loss.fail("cannot be exported to ONNX: the loss reads the model input (no layer to export)");
  result.output = tensor_of(scores);
  // The graph output is the loss's input [N, classes] (a dropout before the loss: the tensor it passed through).
  Dims out = model.unit_shapes()[last].input;
  out.erase(out.begin());
  set_type(*graph.add_output(), result.output, {"N"}, out);
  result.note = "the loss '" + loss.name + "' (" + loss.type + ") is not exported: the output '" + result.output +
                "' is what it read" + (loss.type == "softmax_loss" ? " (the logits)" : "");
  // Opset 13 unless an operator needs a later one (LayerNormalization: 17, ONNX 1.12, IR 8).
  m.set_ir_version(writer.opset() >= 17 ? 8 : 7);  // IR 7: ONNX 1.8, the first with opset 13
  auto* opset = m.add_opset_import();
  opset->set_domain("");
  opset->set_version(writer.opset());
  if (dropped_dropout) result.note += "; dropout is omitted (evaluation passes values through)";
  return result;
}

}  // namespace ablate::models::onnx_export
