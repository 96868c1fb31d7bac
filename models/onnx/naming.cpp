// How the ONNX importer names layers and nodes (see naming.h).
#include "models/onnx/naming.h"

#include <cctype>

#include "models/onnx/onnx_import.h"

namespace ablate::models::onnx_import {

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

bool is_onnx_path(const std::string& path) {
  return path.size() > 5 && lowercase(path.substr(path.size() - 5)) == ".onnx";
}

}  // namespace ablate::models::onnx_import
