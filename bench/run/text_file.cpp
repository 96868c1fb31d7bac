// Whole text files through a unique temporary and a rename (see text_file.h).
#include "bench/run/text_file.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

namespace ablate::bench::run {

void write_text_file(const std::string& path, const std::string& text, const std::string& what) {
  std::string temporary = path + ".XXXXXX";  // mkstemp: unique, so two writers of one file never share it
  std::error_code ignored;  // a missing folder is made; a failure shows when the file is opened
  if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent, ignored);
  const int fd = ::mkstemp(temporary.data());
  if (fd < 0) throw std::invalid_argument(what + ": cannot write '" + path + "' (" + std::strerror(errno) + ")");
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      ::unlink(temporary.c_str());
      throw std::invalid_argument(what + ": writing '" + path + "' failed (" + why + ")");
    }
    done += static_cast<std::size_t>(n);
  }
  ::fchmod(fd, 0644);  // mkstemp makes 0600; a report is read by others as any file
  ::close(fd);
  std::filesystem::rename(temporary, path, ignored);
  if (ignored) {
    ::unlink(temporary.c_str());
    throw std::invalid_argument(what + ": cannot rename a temporary into '" + path + "' (" + ignored.message() + ")");
  }
}

}  // namespace ablate::bench::run
