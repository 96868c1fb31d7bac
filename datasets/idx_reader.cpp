// IDX reader for MNIST and Fashion-MNIST (LeCun's format), raw or gzip. An IDX file is a
// big-endian magic 0x0000TTDD (TT = 0x08: unsigned bytes, DD = number of dimensions), DD
// big-endian u32 sizes, then the bytes in row-major order:
//   images: 0x00000803, [N, rows, cols]     labels: 0x00000801, [N]
// Each check names the file and the values it found.
#include "datasets/idx_reader.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "datasets/gzip_file.h"

namespace ablate::datasets {

namespace {

constexpr std::uint32_t kImagesMagic = 0x00000803;
constexpr std::uint32_t kLabelsMagic = 0x00000801;
// No MNIST-format set comes near this; a larger header is a corrupt one.
constexpr std::uint64_t kMaxPayload = std::uint64_t{1} << 40;

std::string hex32(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08X", v);
  return buf;
}

std::uint32_t big_endian(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | p[3];
}

const char* kind_of(std::uint32_t magic) {
  return magic == kImagesMagic ? "IDX images" : magic == kLabelsMagic ? "IDX labels" : "IDX";
}

// What the header announces, for messages: "60000 images of 28x28" or "60000 labels".
std::string describe(const std::vector<std::uint32_t>& dims) {
  if (dims.size() == 3)
    return std::to_string(dims[0]) + " images of " + std::to_string(dims[1]) + "x" + std::to_string(dims[2]);
  return std::to_string(dims[0]) + " labels";
}

struct IdxArray {
  std::vector<std::uint32_t> dims;
  std::vector<std::uint8_t> data;
};

// Reads one IDX file whose magic must be `magic`; checks header, size and trailing bytes.
IdxArray read_idx(const std::string& path, std::uint32_t magic) {
  GzipFile file(path);
  const std::string where = path + (file.compressed() ? " (after gunzip)" : "");
  const std::size_t ndims = magic & 0xFF;
  const std::size_t header_bytes = 4 + 4 * ndims;

  unsigned char header[4 + 4 * 3];
  std::size_t got = file.read(header, 4);
  if (got < 4)
    throw std::runtime_error(where + ": truncated: " + std::to_string(got) +
                             " bytes, shorter than the 4-byte magic number of " + kind_of(magic));
  std::uint32_t found = big_endian(header);
  if (found != magic) {
    std::string hint;
    if (found == (kImagesMagic ^ kLabelsMagic ^ magic))
      hint = " (this is an " + std::string(kind_of(found)) + " file: images and labels swapped?)";
    else if (__builtin_bswap32(found) == magic)
      hint = " (byte-swapped: written little-endian)";
    throw std::runtime_error(where + ": wrong magic number " + hex32(found) + ", expected " + hex32(magic) + " (" +
                             kind_of(magic) + ")" + hint);
  }
  got = file.read(header + 4, header_bytes - 4);
  if (got < header_bytes - 4)
    throw std::runtime_error(where + ": truncated: " + std::to_string(4 + got) + " bytes, shorter than the " +
                             std::to_string(header_bytes) + "-byte header of " + kind_of(magic));

  IdxArray array;
  unsigned __int128 product = 1;  // up to three u32 sizes: cannot overflow 128 bits
  for (std::size_t d = 0; d < ndims; ++d) {
    array.dims.push_back(big_endian(header + 4 + 4 * d));
    product *= array.dims.back();
  }
  if (ndims == 3 && (array.dims[1] == 0 || array.dims[2] == 0 || array.dims[1] > 65535 || array.dims[2] > 65535))
    throw std::runtime_error(where + ": image size " + std::to_string(array.dims[1]) + "x" +
                             std::to_string(array.dims[2]) + " is not valid; expected rows and cols in 1..65535");
  if (product > kMaxPayload)
    throw std::runtime_error(where + ": header says " + describe(array.dims) +
                             ": more than 2^40 bytes, not a plausible " + kind_of(magic) + " file");
  const std::uint64_t payload = static_cast<std::uint64_t>(product);

  // Grow while reading, so a corrupt header cannot make us reserve what the file lacks.
  const std::size_t chunk = std::size_t{1} << 24;
  std::uint64_t held = 0;
  while (held < payload) {
    std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, payload - held));
    array.data.resize(static_cast<std::size_t>(held) + want);
    std::size_t n = file.read(array.data.data() + held, want);
    held += n;
    if (n < want) break;
  }
  if (held < payload)
    throw std::runtime_error(where + ": truncated: header says " + describe(array.dims) + " (" +
                             std::to_string(payload) + " bytes) but the file holds " + std::to_string(held) +
                             " bytes after the " + std::to_string(header_bytes) + "-byte header");
  std::uint64_t extra = file.count_rest();
  if (extra > 0)
    throw std::runtime_error(where + ": " + std::to_string(extra) + " bytes of trailing data after the " +
                             describe(array.dims) + " the header announces (" + std::to_string(payload) +
                             " bytes); expected the file to end there");
  return array;
}

}  // namespace

ImageSet read_idx_pair(const std::string& images_path, const std::string& labels_path, const std::string& name,
                       int classes) {
  if (classes <= 0 || classes > 256)
    throw std::invalid_argument(name + ": " + std::to_string(classes) +
                                " classes is not valid for u8 IDX labels; expected 1..256");
  IdxArray images = read_idx(images_path, kImagesMagic);
  IdxArray labels = read_idx(labels_path, kLabelsMagic);
  if (images.dims[0] != labels.dims[0])
    throw std::runtime_error(name + ": image count " + std::to_string(images.dims[0]) + " in " + images_path +
                             " does not match label count " + std::to_string(labels.dims[0]) + " in " +
                             labels_path);
  ImageSet set =
      empty_image_set(name, 1, static_cast<int>(images.dims[1]), static_cast<int>(images.dims[2]), classes);
  set.labels.resize(labels.data.size());
  for (std::size_t i = 0; i < labels.data.size(); ++i) {
    int label = labels.data[i];
    if (label >= classes)
      throw std::runtime_error(labels_path + ": label " + std::to_string(label) + " of item " + std::to_string(i) +
                               " is out of range; expected 0.." + std::to_string(classes - 1) + " (" +
                               std::to_string(classes) + " classes)");
    set.labels[i] = label;
  }
  set.pixels = std::move(images.data);
  return set;
}

TrainTest read_mnist_dir(const std::string& dir, const std::string& name) {
  namespace fs = std::filesystem;
  static const char* const kFiles[4] = {"train-images-idx3-ubyte", "train-labels-idx1-ubyte",
                                        "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"};
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw std::runtime_error(name + ": data directory " + dir +
                             (fs::exists(dir, ec) ? " is not a directory" : " does not exist") +
                             "; expected a directory holding the four MNIST-format IDX files");
  std::string paths[4];
  for (int i = 0; i < 4; ++i) {
    fs::path raw = fs::path(dir) / kFiles[i];
    fs::path gz = fs::path(dir) / (std::string(kFiles[i]) + ".gz");
    if (fs::is_regular_file(raw, ec)) {
      paths[i] = raw.string();
    } else if (fs::is_regular_file(gz, ec)) {
      paths[i] = gz.string();
    } else {
      std::ostringstream msg;
      msg << name << ": " << raw.string() << " not found (nor with .gz); expected in " << dir << ": ";
      for (int k = 0; k < 4; ++k) msg << (k ? ", " : "") << kFiles[k];
      msg << " (each raw or .gz)";
      throw std::runtime_error(msg.str());
    }
  }
  TrainTest sets;
  sets.train = read_idx_pair(paths[0], paths[1], name + "/train");
  sets.test = read_idx_pair(paths[2], paths[3], name + "/test");
  return sets;
}

}  // namespace ablate::datasets
