// A scratch folder for one test process: <temp>/ablate-test-<pid>, made on first use and removed
// with everything in it when the process exits (ctest runs each test as a process of its own),
// so that running the suite leaves nothing behind in the temporary folder.
#pragma once

#include <filesystem>
#include <string>
#include <system_error>

#include <unistd.h>

namespace ablate::testing {

inline std::filesystem::path process_scratch() {
  struct Folder {
    std::filesystem::path path;
    ~Folder() {
      std::error_code ignored;
      std::filesystem::remove_all(path, ignored);
    }
  };
  static const Folder folder{std::filesystem::temp_directory_path() / ("ablate-test-" + std::to_string(::getpid()))};
  std::filesystem::create_directories(folder.path);
  return folder.path;
}

}  // namespace ablate::testing
