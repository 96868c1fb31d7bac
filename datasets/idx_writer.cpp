// IDX writer: header (magic, sizes, all big-endian u32), then the bytes in row-major order.
#include "datasets/idx_writer.h"

#include <cstdint>
#include <fstream>
#include <stdexcept>
#include <vector>

namespace ablate::datasets {

namespace {

void put_u32(std::vector<unsigned char>& out, std::uint32_t v) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<unsigned char>(v >> shift));
}

void write_file(const std::string& path, const std::vector<std::uint32_t>& dims, const unsigned char* data,
                std::size_t bytes) {
  std::vector<unsigned char> header;
  put_u32(header, 0x00000800u | static_cast<std::uint32_t>(dims.size()));
  for (std::uint32_t d : dims) put_u32(header, d);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(header.data()), static_cast<std::streamsize>(header.size()));
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(bytes));
  out.close();
  if (!out) throw std::runtime_error(path + ": cannot write the IDX file");
}

std::uint32_t checked_u32(const ImageSet& set, const char* what, std::int64_t v) {
  if (v < 0 || v > 0xFFFFFFFFLL)
    throw std::invalid_argument(set.name + ": " + what + " " + std::to_string(v) + " does not fit an IDX size (u32)");
  return static_cast<std::uint32_t>(v);
}

}  // namespace

void write_idx_images(const std::string& path, const ImageSet& set) {
  if (static_cast<std::int64_t>(set.pixels.size()) != set.count() * set.image_size())
    throw std::invalid_argument(set.name + ": " + std::to_string(set.pixels.size()) + " pixel bytes for " +
                                std::to_string(set.count()) + " images of " + std::to_string(set.image_size()) +
                                " bytes; expected their product");
  std::vector<std::uint32_t> dims = {checked_u32(set, "image count", set.count())};
  if (set.channels != 1) dims.push_back(checked_u32(set, "channels", set.channels));
  dims.push_back(checked_u32(set, "height", set.height));
  dims.push_back(checked_u32(set, "width", set.width));
  write_file(path, dims, set.pixels.data(), set.pixels.size());
}

void write_idx_labels(const std::string& path, const ImageSet& set) {
  std::vector<unsigned char> bytes(set.labels.size());
  for (std::size_t i = 0; i < set.labels.size(); ++i) {
    if (set.labels[i] < 0 || set.labels[i] > 255)
      throw std::invalid_argument(set.name + ": label " + std::to_string(set.labels[i]) + " of item " +
                                  std::to_string(i) + " does not fit an IDX label file; expected 0..255");
    bytes[i] = static_cast<unsigned char>(set.labels[i]);
  }
  write_file(path, {checked_u32(set, "label count", set.count())}, bytes.data(), bytes.size());
}

}  // namespace ablate::datasets
