// MemoryFile: a file that lives in memory (Linux memfd) and has a path, /proc/self/fd/N, so a
// reader that opens a path (the IDX and CIFAR-10 readers through zlib's gzopen) reads the
// fuzzer's bytes without touching the disk. Each fuzz iteration rewrites it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ablate::fuzz {

class MemoryFile {
 public:
  explicit MemoryFile(const char* name);  // aborts if the kernel has no memfd_create
  ~MemoryFile();
  MemoryFile(const MemoryFile&) = delete;
  MemoryFile& operator=(const MemoryFile&) = delete;

  // Replaces the contents with bytes [data, data + size).
  void assign(const std::uint8_t* data, std::size_t size);
  const std::string& path() const { return path_; }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace ablate::fuzz
