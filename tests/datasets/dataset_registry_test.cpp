// Dataset registry: names, families, default directories, the synthetic set, and errors
// naming the dataset, the directory and what was expected.
#include "datasets/dataset_registry.h"

#include <gtest/gtest.h>

#include "tests/datasets/expect_error.h"
#include "tests/datasets/nearest_mean.h"
#include "tests/datasets/scratch_dir.h"

namespace ablate::datasets {
namespace {

TEST(DatasetRegistry, NamesFamiliesAndDirectories) {
  EXPECT_EQ(dataset_names(), (std::vector<std::string>{"fashion-mnist", "mnist", "cifar10", "synthetic", "synthetic-cifar10", "folder"}));
  EXPECT_EQ(dataset_family("fashion-mnist"), "mnist");
  EXPECT_EQ(dataset_family("mnist"), "mnist");
  EXPECT_EQ(dataset_family("synthetic"), "mnist");
  EXPECT_EQ(dataset_family("cifar10"), "cifar10");
  EXPECT_EQ(dataset_family("synthetic-cifar10"), "cifar10");
  EXPECT_EQ(default_data_dir("fashion-mnist"), "/usr/share/datasets/fashion-mnist");
  EXPECT_EQ(default_data_dir("mnist"), "");
  EXPECT_EQ(default_data_dir("cifar10"), "");
}

TEST(DatasetRegistry, UnknownNameListsKnownOnes) {
  for (auto call : {+[] { dataset_family("imagenet"); }, +[] { default_data_dir("imagenet"); },
                    +[] { load_dataset("imagenet", ""); }})
    EXPECT_ERROR_CONTAINS(std::invalid_argument, call(), "dataset 'imagenet' is not known",
                          "fashion-mnist, mnist, cifar10, synthetic, synthetic-cifar10, folder");
}

TEST(DatasetRegistry, SyntheticCifar10HasCifarShape) {
  TrainTest a = load_dataset("synthetic-cifar10", "", 3);
  EXPECT_EQ(a.train.count(), 6000);
  EXPECT_EQ(a.test.count(), 1000);
  EXPECT_EQ(a.test.name, "synthetic-cifar10/test");
  for (const ImageSet* s : {&a.train, &a.test}) {
    EXPECT_EQ(s->channels, 3);
    EXPECT_EQ(s->height, 32);
    EXPECT_EQ(s->width, 32);
    EXPECT_EQ(s->classes, 10);
    EXPECT_EQ(static_cast<std::int64_t>(s->pixels.size()), s->count() * 3 * 32 * 32);
  }
  EXPECT_EQ(load_dataset("synthetic-cifar10", "", 3).train.pixels, a.train.pixels);
}

TEST(DatasetRegistry, SyntheticTrainAndTestShareClasses) {
  TrainTest a = load_dataset("synthetic", "", 3);
  EXPECT_EQ(a.train.count(), 6000);
  EXPECT_EQ(a.test.count(), 1000);
  EXPECT_EQ(a.train.name, "synthetic/train");
  EXPECT_EQ(a.test.name, "synthetic/test");
  for (const ImageSet* s : {&a.train, &a.test}) {
    EXPECT_EQ(s->channels, 1);
    EXPECT_EQ(s->height, 28);
    EXPECT_EQ(s->width, 28);
    EXPECT_EQ(s->classes, 10);
  }
  TrainTest b = load_dataset("synthetic", "/ignored", 3);
  EXPECT_EQ(a.test.pixels, b.test.pixels);
  EXPECT_EQ(a.train.labels, b.train.labels);
  EXPECT_NE(load_dataset("synthetic", "", 4).test.pixels, a.test.pixels);
  // Test images are not copies of train images, yet the train class means classify them.
  EXPECT_NE(std::vector<std::uint8_t>(a.test.pixels.begin(), a.test.pixels.begin() + 784),
            std::vector<std::uint8_t>(a.train.pixels.begin(), a.train.pixels.begin() + 784));
  ImageSet head = a.test;
  split_tail(head, 800, "rest");  // 200 test images are enough here
  EXPECT_GT(testing::nearest_mean_accuracy(a.train, head), 0.95);
}

TEST(DatasetRegistry, DirectoryErrorsNameDatasetAndDirectory) {
  EXPECT_ERROR_CONTAINS(std::invalid_argument, load_dataset("mnist", ""), "dataset 'mnist'", "--data DIR",
                        "train-images-idx3-ubyte");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, load_dataset("cifar10", ""), "dataset 'cifar10'", "--data DIR",
                        "data_batch_1.bin");
  testing::ScratchDir dir;
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("mnist", dir.file("none")),
                        "cannot load dataset 'mnist'", dir.file("none"), "does not exist");
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("cifar10", dir.path()), "cannot load dataset 'cifar10'",
                        dir.file("data_batch_1.bin"), "not found");
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("fashion-mnist", dir.path()),
                        "cannot load dataset 'fashion-mnist'", dir.file("train-images-idx3-ubyte"), "not found");
}

TEST(DatasetRegistry, LoadsMnistFormatDirectory) {
  testing::ScratchDir dir;
  dir.write_gzip("train-images-idx3-ubyte.gz", testing::idx_images(12, 28, 28));
  dir.write_gzip("train-labels-idx1-ubyte.gz", testing::idx_labels(12));
  dir.write("t10k-images-idx3-ubyte", testing::idx_images(5, 28, 28));
  dir.write("t10k-labels-idx1-ubyte", testing::idx_labels(5));
  TrainTest sets = load_dataset("mnist", dir.path());
  EXPECT_EQ(sets.train.name, "mnist/train");
  EXPECT_EQ(sets.train.count(), 12);
  EXPECT_EQ(sets.test.count(), 5);
  // A file error keeps the file's path and the problem.
  dir.write("t10k-labels-idx1-ubyte", testing::idx_labels(6));
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("mnist", dir.path()), "cannot load dataset 'mnist'",
                        "image count 5", "label count 6", dir.file("t10k-labels-idx1-ubyte"));
}

}  // namespace
}  // namespace ablate::datasets
