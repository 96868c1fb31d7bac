// ScratchDir: a temporary directory for one test, removed afterwards, with writers for the
// small raw, gzip and IDX files the reader tests build.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <unistd.h>

namespace ablate::datasets::testing {

using Bytes = std::vector<std::uint8_t>;

class ScratchDir {
 public:
  ScratchDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    std::string name = std::string("ablate-") + info->test_suite_name() + "-" + info->name() + "-" +
                       std::to_string(::getpid());
    path_ = std::filesystem::temp_directory_path() / name;
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::string path() const { return path_.string(); }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

  // Writes `bytes` to NAME as is, or gzip-compressed; returns the full path.
  std::string write(const std::string& name, const Bytes& bytes) const {
    std::filesystem::create_directories((path_ / name).parent_path());
    std::ofstream out(file(name), std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("test could not write " + file(name));
    return file(name);
  }
  std::string write_gzip(const std::string& name, const Bytes& bytes) const { return write(name, gzip(bytes)); }

  static Bytes gzip(const Bytes& bytes) {
    uLongf size = compressBound(static_cast<uLong>(bytes.size())) + 64;
    Bytes out(size);
    z_stream z{};
    // windowBits 15 + 16: a gzip header and trailer, as the gzip tool writes.
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) throw std::runtime_error("deflate");
    z.next_in = const_cast<Bytef*>(bytes.data());
    z.avail_in = static_cast<uInt>(bytes.size());
    z.next_out = out.data();
    z.avail_out = static_cast<uInt>(out.size());
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) throw std::runtime_error("deflate did not finish");
    out.resize(z.total_out);
    deflateEnd(&z);
    return out;
  }

 private:
  std::filesystem::path path_;
};

inline void put_be32(Bytes& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
}

// An IDX file: big-endian magic, sizes, then `payload`.
inline Bytes idx_bytes(std::uint32_t magic, const std::vector<std::uint32_t>& dims, const Bytes& payload) {
  Bytes out;
  put_be32(out, magic);
  for (auto d : dims) put_be32(out, d);
  out.insert(out.end(), payload.begin(), payload.end());
  return out;
}

// n images of rows x cols whose pixel j of image i is (7 * i + j) % 256, and labels i % 10.
inline Bytes idx_images(std::uint32_t n, std::uint32_t rows, std::uint32_t cols) {
  Bytes pixels(static_cast<std::size_t>(n) * rows * cols);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < std::size_t{rows} * cols; ++j)
      pixels[i * rows * cols + j] = static_cast<std::uint8_t>((7 * i + j) % 256);
  return idx_bytes(0x00000803, {n, rows, cols}, pixels);
}
inline Bytes idx_labels(std::uint32_t n) {
  Bytes labels(n);
  for (std::size_t i = 0; i < n; ++i) labels[i] = static_cast<std::uint8_t>(i % 10);
  return idx_bytes(0x00000801, {n}, labels);
}

}  // namespace ablate::datasets::testing
