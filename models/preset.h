// Preset: a framework's default training recipe for one data set, read from a data file
// (models/presets/*.preset): "key value" lines, '#' comments. A user can copy one, edit it
// and pass it with --preset FILE. Unknown keys are errors naming file and line.
#pragma once

#include <map>
#include <string>
#include <vector>

namespace ablate::models {

struct Preset {
  std::string source;
  std::map<std::string, std::string> values;  // key -> value as written
  std::map<std::string, int> lines;           // key -> line, for errors

  bool has(const std::string& key) const { return values.count(key) != 0; }
  std::string get(const std::string& key) const;  // throws naming source and key if absent
  double get_double(const std::string& key) const;
  long long get_int(const std::string& key) const;
};

// The keys a preset may hold (documented in models/README.md).
const std::vector<std::string>& preset_keys();
Preset parse_preset(const std::string& text, const std::string& source);
// "caffe-mnist" (embedded) or a file path.
Preset load_preset(const std::string& path_or_name);
// The name of the embedded preset of a framework for a data set family ("mnist", "cifar10").
std::string preset_name(const std::string& framework, const std::string& dataset_family);

}  // namespace ablate::models
