// How the ONNX importer names things: layer names made of a node's name (letters, digits, '_'
// and '-'; "/layer1/conv/Conv" -> "layer1_conv_Conv"), and a node as errors name it
// ("node '/conv1/Conv' (Conv)").
#pragma once

#include <string>

#include <onnx/onnx_pb.h>

namespace ablate::models::onnx_import {

// `text` with every run of other characters turned into one '_', none at the end.
std::string sanitized(const std::string& text);
std::string lowercase(std::string s);
// "node 'name' (Op)": the node's name, else its first output's, else "#index".
std::string node_label(const onnx::NodeProto& node, int index);

}  // namespace ablate::models::onnx_import
