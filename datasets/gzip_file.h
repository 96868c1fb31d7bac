// GzipFile: reads a data file through zlib, which inflates gzip files and passes raw ones
// through unchanged, so every reader accepts "train-images-idx3-ubyte" and its ".gz" alike
// (as torchvision's and TensorFlow's MNIST loaders do). Errors name the path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ablate::datasets {

class GzipFile {
 public:
  // Throws std::runtime_error "cannot open PATH: reason" (missing file, directory, no access).
  explicit GzipFile(const std::string& path);
  ~GzipFile();
  GzipFile(const GzipFile&) = delete;
  GzipFile& operator=(const GzipFile&) = delete;

  // Reads up to n bytes into dst and returns how many were read: fewer than n only at the
  // end of the data. Corrupt or cut-off gzip data throws, naming the path.
  std::size_t read(void* dst, std::size_t n);
  // Reads and counts the bytes left (0 if the data ended).
  std::uint64_t count_rest();
  // Bytes of (decompressed) data read so far.
  std::uint64_t position() const { return position_; }
  bool compressed() const;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  void* file_ = nullptr;  // gzFile
  std::uint64_t position_ = 0;
};

}  // namespace ablate::datasets
