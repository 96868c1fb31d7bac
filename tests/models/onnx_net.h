// A small builder of ONNX graphs over libonnx's protobuf classes, for the importer's tests
// (onnx_import_test.cpp, onnx_vit_import_test.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

namespace ablate::models::testing {

struct OnnxNet {
  onnx::ModelProto model;
  onnx::GraphProto* graph = model.mutable_graph();
  int next = 0;

  explicit OnnxNet(int opset = 13) {
    model.set_ir_version(8);
    model.set_producer_name("ablate test");
    auto* o = model.add_opset_import();
    o->set_domain("");
    o->set_version(opset);
    graph->set_name("net");
  }
  static void set_shape(onnx::ValueInfoProto* v, const std::vector<std::int64_t>& dims) {
    auto* tt = v->mutable_type()->mutable_tensor_type();
    tt->set_elem_type(onnx::TensorProto::FLOAT);
    auto* shape = tt->mutable_shape();
    for (std::size_t i = 0; i < dims.size(); ++i) {
      auto* d = shape->add_dim();
      if (i == 0 && dims[i] < 0)
        d->set_dim_param("N");
      else
        d->set_dim_value(dims[i]);
    }
  }
  void input(const std::string& name, const std::vector<std::int64_t>& dims) {
    auto* v = graph->add_input();
    v->set_name(name);
    set_shape(v, dims);
  }
  void output(const std::string& name) { graph->add_output()->set_name(name); }
  // An initializer whose values are distinct (start, start + 0.01, ...), so a transposition shows.
  std::vector<double> weight(const std::string& name, const std::vector<std::int64_t>& dims, double start = 0.1) {
    auto* t = graph->add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::FLOAT);
    std::int64_t n = 1;
    for (auto d : dims) t->add_dims(d), n *= d;
    std::vector<double> values;
    for (std::int64_t i = 0; i < n; ++i) {
      const float v = static_cast<float>(start + 0.01 * static_cast<double>(i));
      t->add_float_data(v);
      values.push_back(v);
    }
    return values;
  }
  onnx::NodeProto* node(const std::string& op, const std::string& name, std::vector<std::string> inputs,
                        std::vector<std::string> outputs) {
    auto* n = graph->add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (auto& i : inputs) n->add_input(i);
    for (auto& o : outputs) n->add_output(o);
    return n;
  }
  static void ints(onnx::NodeProto* n, const std::string& name, std::vector<std::int64_t> values) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INTS);
    for (auto v : values) a->add_ints(v);
  }
  static void integer(onnx::NodeProto* n, const std::string& name, std::int64_t v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(v);
  }
  static void real(onnx::NodeProto* n, const std::string& name, float v) {
    auto* a = n->add_attribute();
    a->set_name(name);
    a->set_type(onnx::AttributeProto::FLOAT);
    a->set_f(v);
  }
  // A Constant node (as torch.onnx writes shapes and scalars); dims {} for a scalar.
  void constant(const std::string& output, const std::vector<std::int64_t>& dims, const std::vector<double>& values,
                bool int64 = false) {
    auto* n = node("Constant", output + "_node", {}, {output});
    auto* a = n->add_attribute();
    a->set_name("value");
    a->set_type(onnx::AttributeProto::TENSOR);
    auto* t = a->mutable_t();
    for (auto d : dims) t->add_dims(d);
    t->set_data_type(int64 ? onnx::TensorProto::INT64 : onnx::TensorProto::FLOAT);
    for (double v : values)
      int64 ? t->add_int64_data(static_cast<std::int64_t>(v)) : t->add_float_data(static_cast<float>(v));
  }
  std::string bytes() const { return model.SerializeAsString(); }
};

}  // namespace ablate::models::testing
