// Reader of CIFAR-10's binary version (cifar-10-binary.tar.gz, as Caffe's and TF's CIFAR-10
// examples read it). Each file is a run of 3073-byte records: 1 label byte in 0..9, then
// 1024 red, 1024 green and 1024 blue bytes of a 32x32 image, row-major, which is already the
// channel-planar C x H x W layout of an ImageSet.
#include "datasets/cifar10_reader.h"

#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "datasets/gzip_file.h"

namespace ablate::datasets {

namespace {

constexpr int kSide = 32, kChannels = 3, kClasses = 10;
constexpr std::size_t kPixels = kChannels * kSide * kSide;  // 3072
constexpr std::size_t kRecord = 1 + kPixels;                // 3073

// Appends the records of one file to `set`.
void append_file(const std::string& path, ImageSet& set) {
  GzipFile file(path);
  std::vector<std::uint8_t> bytes;
  const std::size_t chunk = std::size_t{1} << 22;
  for (;;) {
    std::size_t held = bytes.size();
    bytes.resize(held + chunk);
    std::size_t got = file.read(bytes.data() + held, chunk);
    bytes.resize(held + got);
    if (got < chunk) break;
  }
  const std::string where = path + (file.compressed() ? " (after gunzip)" : "");
  if (bytes.empty()) throw std::runtime_error(where + ": empty; expected 3073-byte CIFAR-10 records");
  if (bytes.size() % kRecord != 0) {
    std::string hint = bytes.size() % (kRecord + 1) == 0
                           ? " (a multiple of 3074, the CIFAR-100 record with coarse and fine labels: wrong data set?)"
                           : "";
    throw std::runtime_error(where + ": size " + std::to_string(bytes.size()) +
                             " bytes is not a multiple of the 3073-byte CIFAR-10 record (1 label + 3x32x32 pixels): " +
                             std::to_string(bytes.size() / kRecord) + " whole records and " +
                             std::to_string(bytes.size() % kRecord) + " bytes left over" + hint);
  }
  const std::size_t records = bytes.size() / kRecord;
  set.labels.reserve(set.labels.size() + records);
  set.pixels.reserve(set.pixels.size() + records * kPixels);
  for (std::size_t r = 0; r < records; ++r) {
    const std::uint8_t* record = bytes.data() + r * kRecord;
    if (record[0] >= kClasses)
      throw std::runtime_error(where + ": record " + std::to_string(r) + " (byte offset " +
                               std::to_string(r * kRecord) + ") has label " + std::to_string(record[0]) +
                               "; expected 0..9");
    set.labels.push_back(record[0]);
    set.pixels.insert(set.pixels.end(), record + 1, record + kRecord);
  }
}

}  // namespace

ImageSet read_cifar10_files(const std::vector<std::string>& paths, const std::string& name) {
  if (paths.empty()) throw std::invalid_argument(name + ": no CIFAR-10 files given");
  ImageSet set = empty_image_set(name, kChannels, kSide, kSide, kClasses);
  for (const auto& path : paths) append_file(path, set);
  return set;
}

TrainTest read_cifar10_dir(const std::string& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw std::runtime_error(std::string("cifar10: data directory ") + dir +
                             (fs::exists(dir, ec) ? " is not a directory" : " does not exist") +
                             "; expected the CIFAR-10 binary files (data_batch_1.bin .. data_batch_5.bin, "
                             "test_batch.bin) or their cifar-10-batches-bin folder");
  fs::path root = dir;
  if (fs::is_directory(root / "cifar-10-batches-bin", ec)) root /= "cifar-10-batches-bin";

  std::vector<std::string> expected;
  for (int i = 1; i <= 5; ++i) expected.push_back("data_batch_" + std::to_string(i) + ".bin");
  expected.push_back("test_batch.bin");
  std::vector<std::string> paths;
  for (const auto& file : expected) {
    fs::path path = root / file;
    if (!fs::is_regular_file(path, ec)) {
      std::ostringstream msg;
      msg << "cifar10: " << path.string() << " not found; expected in " << root.string() << ": ";
      for (std::size_t k = 0; k < expected.size(); ++k) msg << (k ? ", " : "") << expected[k];
      throw std::runtime_error(msg.str());
    }
    paths.push_back(path.string());
  }
  TrainTest sets;
  sets.test = read_cifar10_files({paths.back()}, "cifar10/test");
  paths.pop_back();
  sets.train = read_cifar10_files(paths, "cifar10/train");
  return sets;
}

}  // namespace ablate::datasets
