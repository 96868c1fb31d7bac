// MemoryFile over memfd_create: truncate and rewrite per iteration; the path reopens the same
// in-memory file from offset 0.
#include "fuzz/memory_file.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace ablate::fuzz {

namespace {
[[noreturn]] void die(const char* what) {
  std::perror(what);
  std::abort();
}
}  // namespace

MemoryFile::MemoryFile(const char* name) {
  fd_ = memfd_create(name, MFD_CLOEXEC);
  if (fd_ < 0) die("memfd_create");
  path_ = "/proc/self/fd/" + std::to_string(fd_);
}

MemoryFile::~MemoryFile() {
  if (fd_ >= 0) close(fd_);
}

void MemoryFile::assign(const std::uint8_t* data, std::size_t size) {
  if (ftruncate(fd_, 0) != 0) die("ftruncate");
  std::size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) die("pwrite");
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace ablate::fuzz
