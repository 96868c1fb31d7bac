// Reading and writing the checkpoint format (see checkpoint_file.h).
#include "graph/checkpoint_file.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <filesystem>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

namespace ablate::graph {

namespace {

constexpr char kMagic[8] = {'A', 'B', 'L', 'A', 'T', 'E', 'C', 'K'};
constexpr std::size_t kHeader = 20;

template <class T>
void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}

void put_string(std::string& out, const std::string& s) {
  put<std::uint32_t>(out, static_cast<std::uint32_t>(s.size()));
  out += s;
}

std::uint8_t dtype_code(kernels::DType t) { return static_cast<std::uint8_t>(t); }

std::uint32_t crc_of(const char* data, std::size_t size) {
  uLong crc = crc32(0L, Z_NULL, 0);
  while (size > 0) {  // zlib takes uInt lengths
    const uInt chunk = static_cast<uInt>(std::min<std::size_t>(size, 1u << 30));
    crc = crc32(crc, reinterpret_cast<const Bytef*>(data), chunk);
    data += chunk;
    size -= chunk;
  }
  return static_cast<std::uint32_t>(crc);
}

// Reads the payload field by field; every read checks that the bytes are there.
class Reader {
 public:
  Reader(const std::string& bytes, std::size_t begin, std::size_t end, const std::string& source)
      : bytes_(bytes), pos_(begin), end_(end), source_(source) {}

  template <class T>
  T get(const char* what) {
    need(sizeof(T), what);
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  std::string get_string(const char* what) {
    const auto size = get<std::uint32_t>(what);
    need(size, what);
    std::string s = bytes_.substr(pos_, size);
    pos_ += size;
    return s;
  }
  void get_bytes(void* out, std::size_t size, const char* what) {
    need(size, what);
    if (size > 0) std::memcpy(out, bytes_.data() + pos_, size);
    pos_ += size;
  }
  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("checkpoint " + source_ + ": " + what + " (at byte " + std::to_string(pos_) + ")");
  }
  bool done() const { return pos_ == end_; }

 private:
  void need(std::size_t size, const char* what) const {
    if (size > end_ - pos_) fail(std::string("truncated ") + what);
  }
  const std::string& bytes_;
  std::size_t pos_, end_;
  const std::string& source_;
};

}  // namespace

const std::string& Checkpoint::meta(const std::string& key) const {
  auto it = metadata.find(key);
  if (it == metadata.end()) throw std::invalid_argument("checkpoint has no metadata '" + key + "'");
  return it->second;
}

const kernels::Tensor& Checkpoint::tensor(const std::string& name) const {
  for (const auto& [n, t] : tensors)
    if (n == name) return t;
  throw std::invalid_argument("checkpoint has no tensor '" + name + "'");
}

void write_checkpoint(const std::string& path, const Checkpoint& c) {
  std::string payload;
  put<std::uint32_t>(payload, static_cast<std::uint32_t>(c.metadata.size()));
  for (const auto& [key, value] : c.metadata) {
    put_string(payload, key);
    put_string(payload, value);
  }
  put<std::uint32_t>(payload, static_cast<std::uint32_t>(c.tensors.size()));
  for (const auto& [name, t] : c.tensors) {
    if (t.device() != kernels::Device::cpu)
      throw std::invalid_argument("checkpoint tensor '" + name + "' must be on the host to be written");
    put_string(payload, name);
    put<std::uint8_t>(payload, dtype_code(t.dtype()));
    put<std::uint32_t>(payload, static_cast<std::uint32_t>(t.ndim()));
    for (std::int64_t d : t.shape()) put<std::int64_t>(payload, d);
    if (t.bytes() > 0) payload.append(static_cast<const char*>(t.raw_data()), t.bytes());
  }
  std::string file(kMagic, sizeof kMagic);
  put<std::uint32_t>(file, kCheckpointVersion);
  put<std::uint64_t>(file, payload.size());
  file += payload;
  put<std::uint32_t>(file, crc_of(payload.data(), payload.size()));

  const std::string tmp = path + ".tmp";
  std::error_code ignored;  // a missing folder is made; a failure shows in open's error below
  if (const auto parent = std::filesystem::path(path).parent_path(); !parent.empty())
    std::filesystem::create_directories(parent, ignored);
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd < 0) throw std::runtime_error("checkpoint " + path + ": cannot create " + tmp + ": " + std::strerror(errno) +
                                       "; the previous checkpoint is kept");
  std::size_t written = 0;
  while (written < file.size()) {
    const ssize_t n = ::write(fd, file.data() + written, file.size() - written);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      std::remove(tmp.c_str());
      throw std::runtime_error("checkpoint " + path + ": write failed (" + why + "); the previous checkpoint is kept");
    }
    written += static_cast<std::size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("checkpoint " + path + ": flush failed; the previous checkpoint is kept");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    std::remove(tmp.c_str());
    throw std::runtime_error("checkpoint " + path + ": cannot rename " + tmp + " into place");
  }
}

Checkpoint parse_checkpoint(const std::string& bytes, const std::string& source) {
  auto fail = [&](const std::string& what) { throw std::invalid_argument("checkpoint " + source + ": " + what); };
  if (bytes.size() < kHeader || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    fail("not an ablate checkpoint (no ABLATECK magic at the start)");
  std::uint32_t version;
  std::uint64_t size;
  std::memcpy(&version, bytes.data() + 8, 4);
  std::memcpy(&size, bytes.data() + 12, 8);
  if (version != kCheckpointVersion)
    fail("format version " + std::to_string(version) + " is not supported (this build reads version " +
         std::to_string(kCheckpointVersion) + ")");
  if (size > bytes.size() - kHeader || bytes.size() - kHeader - size < 4)
    fail("truncated: the header announces " + std::to_string(size) + " payload bytes, the file has " +
         std::to_string(bytes.size() - kHeader) + " after the header");
  if (bytes.size() - kHeader - size != 4) fail("trailing bytes after the checksum");
  std::uint32_t stored;
  std::memcpy(&stored, bytes.data() + kHeader + size, 4);
  if (crc_of(bytes.data() + kHeader, size) != stored) fail("checksum mismatch: the file is corrupted");

  Reader in(bytes, kHeader, kHeader + size, source);
  Checkpoint c;
  const auto entries = in.get<std::uint32_t>("metadata count");
  for (std::uint32_t i = 0; i < entries; ++i) {
    std::string key = in.get_string("metadata key");
    c.metadata[key] = in.get_string("metadata value");
  }
  const auto count = in.get<std::uint32_t>("tensor count");
  for (std::uint32_t i = 0; i < count; ++i) {
    std::string name = in.get_string("tensor name");
    const auto code = in.get<std::uint8_t>("tensor dtype");
    if (code > dtype_code(kernels::DType::u8)) in.fail("tensor '" + name + "' has unknown dtype " + std::to_string(code));
    const auto rank = in.get<std::uint32_t>("tensor rank");
    if (rank > 8) in.fail("tensor '" + name + "' has rank " + std::to_string(rank) + " (at most 8)");
    kernels::Shape shape;
    std::uint64_t numel = 1;
    for (std::uint32_t d = 0; d < rank; ++d) {
      const auto dim = in.get<std::int64_t>("tensor dims");
      if (dim < 0 || (dim > 0 && numel > std::numeric_limits<std::uint64_t>::max() / 8 / static_cast<std::uint64_t>(dim)))
        in.fail("tensor '" + name + "' has a bad dimension " + std::to_string(dim));
      numel *= static_cast<std::uint64_t>(dim);
      shape.push_back(dim);
    }
    const auto dtype = static_cast<kernels::DType>(code);
    if (numel * kernels::dtype_size(dtype) > size) in.fail("truncated tensor '" + name + "' data");
    kernels::Tensor t(shape, dtype);
    in.get_bytes(t.raw_data(), t.bytes(), "tensor data");
    c.tensors.emplace_back(std::move(name), std::move(t));
  }
  if (!in.done()) in.fail("unexpected bytes after the last tensor");
  return c;
}

Checkpoint read_checkpoint(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument("checkpoint " + path + ": cannot be opened");
  std::stringstream bytes;
  bytes << in.rdbuf();
  return parse_checkpoint(bytes.str(), path);
}

}  // namespace ablate::graph
