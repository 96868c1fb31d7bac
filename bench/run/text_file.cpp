// Whole text files through a temporary and a rename (see text_file.h).
#include "bench/run/text_file.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace ablate::bench::run {

void write_text_file(const std::string& path, const std::string& text, const std::string& what) {
  const std::string temporary = path + ".tmp";
  std::error_code ignored;  // a missing folder is made; a failure shows when the file is opened
  if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent, ignored);
  {
    std::ofstream out(temporary, std::ios::binary);
    if (!out) throw std::invalid_argument(what + ": cannot write '" + temporary + "'");
    out << text;
    if (!out.flush()) throw std::invalid_argument(what + ": writing '" + temporary + "' failed");
  }
  std::filesystem::rename(temporary, path);
}

}  // namespace ablate::bench::run
