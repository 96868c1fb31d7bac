// Finds the text of a model or preset: a readable file at the given path, else the file of
// that name embedded in the binary (models/zoo/NAME.model, models/presets/NAME.preset), so
// `ablate` runs from any directory and a user may still pass an edited copy.
#pragma once

#include <string>
#include <vector>

namespace ablate::models {

struct SourceText {
  std::string text;
  std::string source;  // the path, or "<zoo>/lenet.model" for an embedded file
};

// `folder` is "zoo" or "presets", `extension` ".model" or ".preset", `what` names the kind
// in errors ("model", "preset"). A NAME may be written with or without the extension.
// Throws std::invalid_argument listing the embedded names when neither is found.
SourceText resolve_source(const std::string& path_or_name, const std::string& folder,
                          const std::string& extension, const std::string& what);
// Names (without folder and extension) of the embedded files in `folder`, sorted.
std::vector<std::string> embedded_names(const std::string& folder, const std::string& extension);

}  // namespace ablate::models
