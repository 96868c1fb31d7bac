// Dataset names -> readers, with the directory each reads by default (see dataset_registry.h).
#include "datasets/dataset_registry.h"

#include <stdexcept>

#include "datasets/cifar10_reader.h"
#include "datasets/idx_reader.h"
#include "datasets/image_folder_reader.h"
#include "datasets/synthetic.h"

namespace ablate::datasets {

namespace {

struct DatasetInfo {
  const char* name;
  const char* family;        // "" if it depends on the data (folder)
  const char* default_dir;  // "" if --data is required
  const char* expected;     // what the directory must hold, for messages
};

constexpr DatasetInfo kDatasets[] = {
    {"fashion-mnist", "mnist", "/usr/share/datasets/fashion-mnist",
     "train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte (raw or .gz)"},
    {"mnist", "mnist", "",
     "train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte, t10k-labels-idx1-ubyte (raw or .gz)"},
    {"cifar10", "cifar10", "", "data_batch_1.bin .. data_batch_5.bin and test_batch.bin (CIFAR-10 binary version)"},
    {"synthetic", "mnist", "", ""},
    {"synthetic-cifar10", "cifar10", "", ""},
    {"folder", "", "",
     "train/ and test/ sub-folders, each with one sub-folder of .png/.jpg/.jpeg/.bmp images per class"},
};

constexpr std::int64_t kSyntheticTrain = 6000, kSyntheticTest = 1000;

// A name, or folder:HxW (the folder entry).
const DatasetInfo& find(const std::string& name) {
  int h = 0, w = 0;
  const std::string key = parse_folder_dataset_name(name, h, w) ? "folder" : name;
  for (const auto& info : kDatasets)
    if (key == info.name) return info;
  std::string known;
  for (const auto& info : kDatasets) known += std::string(known.empty() ? "" : ", ") + info.name;
  throw std::invalid_argument("dataset '" + name + "' is not known; expected one of: " + known);
}

}  // namespace

std::vector<std::string> dataset_names() {
  std::vector<std::string> names;
  for (const auto& info : kDatasets) names.emplace_back(info.name);
  return names;
}

std::string dataset_family(const std::string& name, const std::string& data_dir) {
  const DatasetInfo& info = find(name);
  if (*info.family) return info.family;
  if (data_dir.empty())
    throw std::invalid_argument("dataset '" + name + "' needs --data DIR to tell its family (from its images' channels); "
                                "expected a directory holding " + info.expected);
  try {
    return image_folder_channels(data_dir) == 1 ? "mnist" : "cifar10";
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("cannot load dataset '" + name + "': " + e.what());
  }
}

std::string default_data_dir(const std::string& name) { return find(name).default_dir; }

TrainTest load_dataset(const std::string& name, const std::string& data_dir, std::uint64_t seed) {
  const DatasetInfo& info = find(name);
  if (name == "synthetic" || name == "synthetic-cifar10") {
    const int channels = name == "synthetic" ? 1 : 3, side = name == "synthetic" ? 28 : 32;
    TrainTest sets;
    sets.train = make_synthetic(kSyntheticTrain + kSyntheticTest, channels, side, side, 10, seed, name + "/train");
    sets.test = split_tail(sets.train, kSyntheticTest, name + "/test");
    return sets;
  }
  const std::string dir = data_dir.empty() ? info.default_dir : data_dir;
  if (dir.empty())
    throw std::invalid_argument("dataset '" + name + "' has no default directory; give --data DIR, a directory holding " +
                                info.expected);
  try {
    if (name == "cifar10") return read_cifar10_dir(dir);
    int height = 0, width = 0;
    if (parse_folder_dataset_name(name, height, width)) return read_image_folder_dir(dir, height, width);
    return read_mnist_dir(dir, name);
  } catch (const std::runtime_error& e) {
    // The readers name the set ("mnist: ...") or the file; say once which dataset failed.
    std::string what = e.what();
    if (what.rfind(name + ": ", 0) == 0) what.erase(0, name.size() + 2);
    throw std::runtime_error("cannot load dataset '" + name + "': " + what);
  }
}

}  // namespace ablate::datasets
