// The ONNX importer (see onnx_import.h): reading the file, the graph walk, value names to
// layer names, the end of the model and the errors. The op mappings are in ops/.
#include "models/onnx/onnx_import.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "models/checked_model.h"
#include "models/onnx/op_mapping.h"
#include "models/parameters.h"
#include "models/shape_inference.h"

namespace ablate::models::onnx_import {

// --- the table of op mappings -------------------------------------------------------------

namespace {

std::map<std::string, OpMapping>& op_table() {
  static std::map<std::string, OpMapping> table;
  return table;
}

std::string sanitized(const std::string& text) {
  std::string out;
  for (char c : text) {
    const bool ok = std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-';
    if (ok)
      out += c;
    else if (!out.empty() && out.back() != '_')
      out += '_';
  }
  while (!out.empty() && out.back() == '_') out.pop_back();
  return out;
}

std::string lowercase(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string node_label(const onnx::NodeProto& node, int index) {
  const std::string name = !node.name().empty() ? node.name()
                           : node.output_size() > 0 ? node.output(0)
                                                    : "#" + std::to_string(index);
  return "node '" + name + "' (" + node.op_type() + ")";
}

}  // namespace

bool register_op_mapping(OpMapping mapping) {
  const std::string op = mapping.op_type;
  if (!op_table().emplace(op, std::move(mapping)).second)
    throw std::logic_error("ONNX op mapping '" + op + "' registered twice");
  return true;
}

const OpMapping* find_op_mapping(const std::string& op_type) {
  auto it = op_table().find(op_type);
  return it == op_table().end() ? nullptr : &it->second;
}

std::string supported_ops() {
  std::string out;
  for (const auto& [op, mapping] : op_table()) out += (out.empty() ? "" : ", ") + op;
  return out;
}

std::string number(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

std::string dims_string(const Dims& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

bool is_onnx_path(const std::string& path) {
  return path.size() > 5 && lowercase(path.substr(path.size() - 5)) == ".onnx";
}

// --- tensors ------------------------------------------------------------------------------

GivenValues tensor_values(const onnx::TensorProto& t, const std::string& what) {
  GivenValues g;
  std::int64_t count = 1;
  for (std::int64_t d : t.dims()) {
    if (d < 0) throw std::invalid_argument(what + ": tensor dimension " + std::to_string(d) + " is negative");
    g.shape.push_back(d);
    count *= d;
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    throw std::invalid_argument(what + ": tensor data stored outside the file (external data) is not supported");
  const auto type = t.data_type();
  const std::string& raw = t.raw_data();
  auto take = [&](auto zero, int typed_size) {
    using T = decltype(zero);
    if (!raw.empty()) {
      if (raw.size() != static_cast<std::size_t>(count) * sizeof(T))
        throw std::invalid_argument(what + ": raw data of " + std::to_string(raw.size()) + " bytes for " +
                                    std::to_string(count) + " values of " + std::to_string(sizeof(T)) + " bytes");
      for (std::int64_t i = 0; i < count; ++i) {
        T v;
        std::memcpy(&v, raw.data() + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));  // little-endian, as ONNX stores
        g.values.push_back(static_cast<double>(v));
      }
    } else if (typed_size != count) {
      throw std::invalid_argument(what + ": " + std::to_string(typed_size) + " values for shape " + dims_string(g.shape));
    }
  };
  switch (type) {
    case onnx::TensorProto::FLOAT:
      take(float{}, t.float_data_size());
      if (raw.empty()) g.values.assign(t.float_data().begin(), t.float_data().end());
      break;
    case onnx::TensorProto::DOUBLE:
      take(double{}, t.double_data_size());
      if (raw.empty()) g.values.assign(t.double_data().begin(), t.double_data().end());
      break;
    case onnx::TensorProto::INT64:
      take(std::int64_t{}, t.int64_data_size());
      if (raw.empty()) g.values.assign(t.int64_data().begin(), t.int64_data().end());
      break;
    case onnx::TensorProto::INT32:
      take(std::int32_t{}, t.int32_data_size());
      if (raw.empty()) g.values.assign(t.int32_data().begin(), t.int32_data().end());
      break;
    default:
      throw std::invalid_argument(what + ": tensor data type " + onnx::TensorProto::DataType_Name(type) +
                                  " is not supported (float, double, int32 or int64)");
  }
  return g;
}

GivenValues read_tensor_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot read the tensor file");
  onnx::TensorProto t;
  if (!t.ParseFromIstream(&in)) throw std::invalid_argument(path + ": not a serialized ONNX TensorProto");
  return tensor_values(t, path);
}

// --- the importer -------------------------------------------------------------------------

class Importer {
 public:
  Importer(const onnx::ModelProto& model, std::string source, const ImportOptions& options)
      : model_(model), graph_(model.graph()), source_(std::move(source)), options_(options) {}

  ImportResult run();

  // what NodeContext reads and writes
  const std::string& source() const { return source_; }
  int opset() const { return opset_; }
  const ImportOptions& options() const { return options_; }
  std::map<std::string, OnnxValue>& values() { return values_; }
  int readers(const std::string& name) const {
    auto it = readers_.find(name);
    return it == readers_.end() ? 0 : it->second;
  }
  bool is_graph_output(const std::string& name) const { return graph_outputs_.count(name) != 0; }
  std::string unique_layer_name(const std::string& base);
  ModelSpec& spec() { return spec_; }
  Dims ablate_shape(const std::string& layer);
  void set_end(ModelEnd end) { end_ = end; }

 private:
  void read_opset();
  void read_constants_and_input();
  void count_readers();
  void walk();
  void finish(ImportResult& result);
  [[noreturn]] void fail(const std::string& what) const { throw std::invalid_argument(source_ + ": " + what); }

  const onnx::ModelProto& model_;
  const onnx::GraphProto& graph_;
  std::string source_;
  ImportOptions options_;
  int opset_ = 0;
  std::int64_t batch_ = 1;
  std::map<std::string, OnnxValue> values_;
  std::map<std::string, int> readers_;
  std::set<std::string> graph_outputs_;
  std::set<std::string> layer_names_;
  ModelSpec spec_;
  std::vector<LayerShapes> shapes_;  // infer_shapes of spec_ while it had shapes_.size() layers
  ModelEnd end_ = ModelEnd::logits;
};

void Importer::read_opset() {
  for (const auto& o : model_.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset_ = static_cast<int>(o.version());
  if (opset_ == 0) fail("the model imports no opset of the default ONNX domain (not an ONNX model?)");
  if (opset_ > kMaxOpset)
    fail("opset " + std::to_string(opset_) + " is not supported: the importer follows ONNX opsets " +
         std::to_string(kMinTestedOpset) + " to " + std::to_string(kMaxOpset));
}

void Importer::read_constants_and_input() {
  for (const auto& t : graph_.initializer()) {
    OnnxValue v;
    v.constant = tensor_values(t, source_ + ": initializer '" + t.name() + "'");
    v.shape = v.constant->shape;
    values_[t.name()] = std::move(v);
  }
  for (const auto& [name, given] : options_.input_values) {
    bool found = false;
    for (const auto& in : graph_.input()) found = found || in.name() == name;
    if (!found) fail("a value is given for graph input '" + name + "', which the graph does not have");
    OnnxValue v;
    v.constant = given;
    v.shape = given.shape;
    values_[name] = std::move(v);
  }
  const onnx::ValueInfoProto* input = nullptr;
  std::vector<std::string> names;
  for (const auto& in : graph_.input()) {
    if (values_.count(in.name())) continue;  // an initializer listed as an input (older exporters), or given
    names.push_back(in.name());
    input = &in;
  }
  if (names.size() != 1) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    fail("the graph has " + std::to_string(names.size()) + " inputs that are not initializers (" +
         (list.empty() ? "none" : list) + "); an ablate model reads exactly one input [N, C, H, W]");
  }
  const std::string what = "graph input '" + input->name() + "'";
  if (!input->type().has_tensor_type()) fail(what + " is not a tensor");
  const auto& tt = input->type().tensor_type();
  if (tt.elem_type() != onnx::TensorProto::FLOAT && tt.elem_type() != onnx::TensorProto::DOUBLE)
    fail(what + " has element type " + onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(tt.elem_type())) +
         "; ablate models read float (or double) inputs");
  if (!tt.has_shape()) fail(what + " has no shape; expected [N, C, H, W], [N, C, L] or [N, F]");
  const int rank = tt.shape().dim_size();
  if (rank < 2 || rank > 4)
    fail(what + " has rank " + std::to_string(rank) + "; expected [N, C, H, W], [N, C, L] or [N, F] (the batch first)");
  Dims shape;
  for (int d = 0; d < rank; ++d) {
    const auto& dim = tt.shape().dim(d);
    if (d == 0) {
      batch_ = dim.has_dim_value() && dim.dim_value() > 0 ? dim.dim_value() : 1;  // symbolic or any: the batch
      shape.push_back(batch_);
      continue;
    }
    if (!dim.has_dim_value() || dim.dim_value() < 1 || dim.dim_value() > INT32_MAX)
      fail(what + " dimension " + std::to_string(d) + " is " +
           (dim.has_dim_param() ? "symbolic ('" + dim.dim_param() + "')" : std::to_string(dim.dim_value())) +
           "; only the batch dimension may be symbolic");
    shape.push_back(dim.dim_value());
  }
  spec_.input_shape.clear();
  for (int d = 1; d < 4; ++d) spec_.input_shape.push_back(d < rank ? static_cast<int>(shape[static_cast<std::size_t>(d)]) : 1);
  OnnxValue v;
  v.shape = shape;
  v.layer = kModelInput;
  values_[input->name()] = std::move(v);
}

void Importer::count_readers() {
  for (const auto& node : graph_.node())
    for (const auto& in : node.input())
      if (!in.empty()) ++readers_[in];
  for (const auto& out : graph_.output()) {
    ++readers_[out.name()];
    graph_outputs_.insert(out.name());
  }
}

std::string Importer::unique_layer_name(const std::string& base_name) {
  std::string base = sanitized(base_name);
  if (base.empty()) base = "layer";
  std::string name = base;
  for (int k = 2; layer_names_.count(name) || name == kModelInput || name == "loss"; ++k) name = base + "_" + std::to_string(k);
  layer_names_.insert(name);
  return name;
}

Dims Importer::ablate_shape(const std::string& layer) {
  if (layer == kModelInput) return {batch_, spec_.input_shape[0], spec_.input_shape[1], spec_.input_shape[2]};
  if (shapes_.size() != spec_.layers.size()) shapes_ = infer_shapes(spec_, batch_);
  for (const LayerShapes& s : shapes_)
    if (s.name == layer) return s.output;
  throw std::logic_error("ONNX import: no layer '" + layer + "'");
}

void Importer::walk() {
  for (int i = 0; i < graph_.node_size(); ++i) {
    const onnx::NodeProto& node = graph_.node(i);
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      fail(node_label(node, i) + ": domain '" + node.domain() + "' is not supported (the default ONNX domain only); supported ONNX ops: " +
           supported_ops());
    const OpMapping* mapping = find_op_mapping(node.op_type());
    if (!mapping)
      fail(node_label(node, i) + ": op type '" + node.op_type() + "' is not supported; supported ONNX ops: " + supported_ops());
    for (const auto& in : node.input())
      if (!in.empty() && !values_.count(in))
        fail(node_label(node, i) + ": input '" + in + "' is neither a graph input, an initializer nor an earlier node's output");
    NodeContext context(*this, node, i);
    mapping->map(context);
    for (int k = 0; k < node.output_size(); ++k)
      if (!node.output(k).empty() && !values_.count(node.output(k)) && readers(node.output(k)) > 0)
        fail(node_label(node, i) + ": output '" + node.output(k) + "' is read but the mapping did not produce it");
  }
}

void Importer::finish(ImportResult& result) {
  if (graph_.output_size() != 1)
    fail("the graph has " + std::to_string(graph_.output_size()) + " outputs; an ablate model has exactly one");
  const std::string& out_name = graph_.output(0).name();
  auto it = values_.find(out_name);
  if (it == values_.end()) fail("graph output '" + out_name + "' is produced by no node");
  const OnnxValue& out = it->second;
  if (out.is_constant() || out.layer == kModelInput || spec_.layers.empty())
    fail("graph output '" + out_name + "' is " + (out.is_constant() ? "a constant" : "the model input itself") +
         ": the model has no layer to run");
  if (out.layer != spec_.layers.back().name)
    fail("graph output '" + out_name + "' is the output of layer '" + out.layer + "', but layer '" +
         spec_.layers.back().name + "' comes after it and leads to no output (an ablate model ends in its last layer)");
  const Dims ablate_out = ablate_shape(out.layer);
  std::string note;
  if (options_.forward_only) {
    spec_.forward_only = true;
    spec_.classes = out.shape.size() == 2 ? static_cast<int>(out.shape[1]) : 0;
    result.output_is_log_softmax = end_ == ModelEnd::softmax_as_log_softmax;
    if (result.output_is_log_softmax)
      note = "the final Softmax runs as log_softmax: exp of the model's output is the ONNX output";
  } else {
    if (out.shape.size() != 2 || ablate_out.size() != 2)
      fail("graph output '" + out_name + "' is " + dims_string(out.shape) +
           "; a model to train ends in logits or log-probabilities [N, classes] (to run one forward only, import it "
           "with forward_only)");
    spec_.classes = static_cast<int>(out.shape[1]);
    LayerSpec loss;
    loss.name = "loss";
    loss.inputs = {out.layer};
    loss.source = source_;
    if (end_ == ModelEnd::log_softmax) {
      loss.type = "nll_loss";
      note = "the model ends in LogSoftmax [N, " + std::to_string(spec_.classes) + "]: nll_loss appended for training";
    } else {
      loss.type = "softmax_loss";
      const bool dropped = end_ == ModelEnd::dropped_softmax;
      note = std::string("the model ends in ") + (dropped ? "Softmax over " : "") + "logits [N, " +
             std::to_string(spec_.classes) + "]" + (dropped ? ": the Softmax dropped and" : ":") +
             " softmax_loss appended for training";
    }
    spec_.layers.push_back(std::move(loss));
  }
  result.note = note;
}

ImportResult Importer::run() {
  if (!model_.has_graph() || model_.ir_version() <= 0)
    fail("not an ONNX model (no graph or no IR version in the ModelProto)");
  read_opset();
  spec_.source = source_;
  std::string stem = source_;
  if (auto slash = stem.find_last_of('/'); slash != std::string::npos) stem = stem.substr(slash + 1);
  if (is_onnx_path(stem)) stem = stem.substr(0, stem.size() - 5);
  spec_.name = sanitized(stem).empty() ? (sanitized(graph_.name()).empty() ? "onnx" : sanitized(graph_.name())) : sanitized(stem);
  read_constants_and_input();
  count_readers();
  walk();
  ImportResult result;
  finish(result);
  // Nothing half-built: every model check, and every given value against its tensor's shape.
  CheckedModel checked(spec_);
  make_initial_parameters(spec_, kernels::DType::f32, 1);
  make_initial_state(spec_, kernels::DType::f32);
  result.spec = std::move(spec_);
  return result;
}

ImportResult import_model(const onnx::ModelProto& model, const std::string& source, const ImportOptions& options) {
  return Importer(model, source, options).run();
}

ImportResult import_file(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot read the ONNX file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes))
    throw std::invalid_argument(path + ": not an ONNX model (the file does not parse as an ONNX ModelProto: truncated, "
                                       "or another format)");
  if (!model.has_graph() || model.ir_version() <= 0 || model.opset_import_size() == 0)
    throw std::invalid_argument(path + ": not an ONNX model (it parses, but has no graph, IR version or opset)");
  return import_model(model, path, options);
}

// --- NodeContext --------------------------------------------------------------------------

NodeContext::NodeContext(Importer& importer, const onnx::NodeProto& node, int index)
    : importer_(importer), node_(node), index_(index) {}

int NodeContext::opset() const { return importer_.opset(); }
bool NodeContext::forward_only() const { return importer_.options().forward_only; }

bool NodeContext::has_input(int k) const { return k < node_.input_size() && !node_.input(k).empty(); }

const OnnxValue& NodeContext::input(int k) const {
  if (!has_input(k)) refuse("input " + std::to_string(k), "is required but absent");
  return importer_.values().at(node_.input(k));
}

const OnnxValue& NodeContext::activation(int k) const {
  const OnnxValue& v = input(k);
  if (v.is_constant())
    refuse("input " + std::to_string(k) + " ('" + node_.input(k) + "')",
           "is a constant; the mapping reads an activation there");
  return v;
}

const GivenValues& NodeContext::constant(int k) const {
  const OnnxValue& v = input(k);
  if (!v.is_constant())
    refuse("input " + std::to_string(k) + " ('" + node_.input(k) + "')",
           "is computed by the graph; the mapping needs a constant (an initializer) there");
  return *v.constant;
}

int NodeContext::readers(const std::string& name) const { return importer_.readers(name); }

int NodeContext::readers_of_output(int k) const {
  return k < node_.output_size() && !node_.output(k).empty() ? importer_.readers(node_.output(k)) : 0;
}

bool NodeContext::output_is_graph_output(int k) const {
  return k < node_.output_size() && importer_.is_graph_output(node_.output(k));
}

void NodeContext::only_first_output() const {
  for (int k = 1; k < node_.output_size(); ++k)
    if (readers_of_output(k) > 0)
      refuse("output " + std::to_string(k) + " ('" + node_.output(k) + "')",
             "is used; ablate maps only the first output of this op");
}

void NodeContext::refuse_unknown_attributes(const std::vector<std::string>& known) const {
  for (const auto& a : node_.attribute())
    if (std::find(known.begin(), known.end(), a.name()) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      refuse(a.name(), "is not supported (the mapping knows " + (list.empty() ? std::string("no attributes") : list) + ")");
    }
}

namespace {
const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
}  // namespace

bool NodeContext::has(const std::string& name) const { return find_attribute(node_, name) != nullptr; }

std::int64_t NodeContext::get_int(const std::string& name, std::int64_t fallback) const {
  const auto* a = find_attribute(node_, name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::INT) refuse(name, "is not an integer");
  return a->i();
}

double NodeContext::get_float(const std::string& name, double fallback) const {
  const auto* a = find_attribute(node_, name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::FLOAT) refuse(name, "is not a float");
  return a->f();
}

std::vector<std::int64_t> NodeContext::get_ints(const std::string& name) const {
  const auto* a = find_attribute(node_, name);
  if (!a) return {};
  if (a->type() != onnx::AttributeProto::INTS) refuse(name, "is not a list of integers");
  return {a->ints().begin(), a->ints().end()};
}

std::string NodeContext::get_string(const std::string& name, const std::string& fallback) const {
  const auto* a = find_attribute(node_, name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::STRING) refuse(name, "is not a string");
  return a->s();
}

void NodeContext::refuse(const std::string& attribute, const std::string& problem) const {
  const bool is_input_or_output = attribute.rfind("input", 0) == 0 || attribute.rfind("output", 0) == 0;
  throw std::invalid_argument(importer_.source() + ": " + node_label(node_, index_) + ": " +
                              (is_input_or_output ? attribute : "attribute '" + attribute + "'") + " " + problem +
                              "; supported ONNX ops: " + supported_ops());
}

std::string NodeContext::add_layer(const std::string& type, std::map<std::string, std::string> params,
                                   std::vector<std::string> inputs, const std::string& suffix) {
  std::string base = !node_.name().empty() ? node_.name() : node_.output_size() > 0 ? node_.output(0) : "";
  if (sanitized(base).empty()) base = lowercase(node_.op_type());
  if (!suffix.empty()) base += "_" + suffix;
  LayerSpec layer;
  layer.name = importer_.unique_layer_name(base);
  layer.type = type;
  layer.inputs = std::move(inputs);
  layer.params = std::move(params);
  layer.source = importer_.source() + ": " + node_label(node_, index_);
  importer_.spec().layers.push_back(layer);
  ++layers_added_;
  return layer.name;
}

LayerSpec& NodeContext::layer(const std::string& name) {
  for (LayerSpec& l : importer_.spec().layers)
    if (l.name == name) return l;
  throw std::logic_error("ONNX import: no layer '" + name + "'");
}

Dims NodeContext::ablate_shape(const std::string& name) { return importer_.ablate_shape(name); }

void NodeContext::give(const std::string& tensor_name, GivenValues values) {
  importer_.spec().given[tensor_name] = std::move(values);
}

GivenValues* NodeContext::given(const std::string& tensor_name) {
  auto& g = importer_.spec().given;
  auto it = g.find(tensor_name);
  return it == g.end() ? nullptr : &it->second;
}

void NodeContext::set_output(int k, OnnxValue value) {
  if (k >= node_.output_size() || node_.output(k).empty()) return;
  importer_.values()[node_.output(k)] = std::move(value);
}

void NodeContext::set_end(ModelEnd end) { importer_.set_end(end); }

}  // namespace ablate::models::onnx_import
