// The modules that own parameters, each registered for its layer type (module_factory.h):
//   convolution    nn.SpatialConvolutionMM (and Caffe's, TF's conv2d SAME/VALID): conv2d
//   conv_map       nn.SpatialConvolutionMap over the layer's seeded connection table: conv2d_map
//   inner_product  nn.View(-1) + nn.Linear: flatten, linear
//   linear         nn.Linear on the last axis (tokens [N, T, I]): reshape to rows, linear, reshape back
//   bias           nn.Add (Theano's b after pooling): bias_add
// Geometry (padding, output size) is resolved from the input's size by models::conv_geometry,
// the rule every strategy shares.
#pragma once

#include "graph/dynamic/module.h"
#include "models/layer_params.h"

namespace ablate::graph::dynamic {

class ConvolutionModule final : public Module {
 public:
  ConvolutionModule(const models::LayerSpec& spec, std::vector<Variable> parameters);
  const char* type() const override { return "SpatialConvolutionMM"; }
  Variable forward(const Variable& x, const ForwardContext& context) override;

 private:
  models::ConvGeometry geometry_;
  kernels::Shape geometry_input_;  // the input shape geometry_ was resolved for
};

class ConvMapModule final : public Module {
 public:
  ConvMapModule(const models::LayerSpec& spec, std::vector<Variable> parameters);
  const char* type() const override { return "SpatialConvolutionMap"; }
  Variable forward(const Variable& x, const ForwardContext& context) override;

 private:
  models::ConvGeometry geometry_;
  kernels::Shape geometry_input_;
  kernels::Tensor table_;  // i32 [outputs * fan_in, 2] on the backend's device, made on first use
};

class InnerProductModule final : public Module {
 public:
  // last_axis: the `linear` type (every index but the last is a row).
  InnerProductModule(const models::LayerSpec& spec, std::vector<Variable> parameters, bool last_axis = false);
  const char* type() const override { return "Linear"; }
  Variable forward(const Variable& x, const ForwardContext& context) override;

 private:
  bool last_axis_;
};

class BiasModule final : public Module {
 public:
  BiasModule(const models::LayerSpec& spec, std::vector<Variable> parameters);
  const char* type() const override { return "Add"; }
  Variable forward(const Variable& x, const ForwardContext& context) override;
};

}  // namespace ablate::graph::dynamic
