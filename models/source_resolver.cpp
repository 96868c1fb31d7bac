// File-or-embedded lookup for load_model and load_preset.
#include "models/source_resolver.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "models/embedded_files.h"

namespace ablate::models {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool read_regular_file(const std::string& path, std::string& text) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::ostringstream buffer;
  buffer << in.rdbuf();
  text = buffer.str();
  return true;
}

}  // namespace

std::vector<std::string> embedded_names(const std::string& folder, const std::string& extension) {
  std::vector<std::string> names;
  const std::string prefix = folder + "/";
  for (const auto& file : embedded_file_names()) {
    if (file.rfind(prefix, 0) == 0 && ends_with(file, extension))
      names.push_back(file.substr(prefix.size(), file.size() - prefix.size() - extension.size()));
  }
  return names;  // embedded_file_names() is sorted (a std::map)
}

SourceText resolve_source(const std::string& path_or_name, const std::string& folder,
                          const std::string& extension, const std::string& what) {
  SourceText found;
  if (read_regular_file(path_or_name, found.text)) {
    found.source = path_or_name;
    return found;
  }
  std::string name = path_or_name;
  if (ends_with(name, extension)) name.resize(name.size() - extension.size());
  if (auto text = embedded_file(folder + "/" + name + extension)) {
    found.text = *text;
    found.source = "<" + folder + ">/" + name + extension;
    return found;
  }
  std::string known;
  for (const auto& n : embedded_names(folder, extension)) known += (known.empty() ? "" : ", ") + n;
  throw std::invalid_argument(what + " '" + path_or_name + "' is neither a readable file nor an embedded " +
                              what + " (embedded " + folder + ": " + (known.empty() ? "none" : known) + ")");
}

}  // namespace ablate::models
