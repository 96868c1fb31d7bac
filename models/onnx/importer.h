// The importer's state during one import (onnx_import.h): the model, the values known so far
// by ONNX name (constants and activations), how many readers each value has, the ModelSpec being
// built, and how the model ends. NodeContext (op_mapping.h) is a mapping's view of it.
//   importer.cpp      the run: opset, subgraph patterns (patterns/fusion.h), graph walk, the
//                     checks before returning
//   model_input.cpp   the initializers and the one graph input that is the model input
//   model_end.cpp     the loss appended (or forward_only) and the note
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "models/onnx/onnx_import.h"
#include "models/onnx/op_mapping.h"
#include "models/onnx/patterns/fusion.h"
#include "models/shape_inference.h"

namespace ablate::models::onnx_import {

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
  patterns::FusedGraph fused_;  // the nodes the walk visits: the graph's, recognised subgraphs as one node
  std::map<std::string, OnnxValue> values_;
  std::map<std::string, int> readers_;
  std::set<std::string> graph_outputs_;
  std::set<std::string> layer_names_;
  ModelSpec spec_;
  std::vector<LayerShapes> shapes_;  // infer_shapes of spec_ while it had shapes_.size() layers
  ModelEnd end_ = ModelEnd::logits;
};

}  // namespace ablate::models::onnx_import
