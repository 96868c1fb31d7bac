// CIFAR-10 binary reader: records, file order, the batches folder, and the size and label
// errors naming the file.
#include "datasets/cifar10_reader.h"

#include <gtest/gtest.h>

#include "tests/datasets/expect_error.h"
#include "tests/datasets/scratch_dir.h"

namespace ablate::datasets {
namespace {

using testing::Bytes;
using testing::ScratchDir;

constexpr std::size_t kRecord = 3073;

// n records; record r of file `file` has label (file + r) % 10 and pixel j = (file * 31 + r + j) % 256.
Bytes cifar_records(int n, int file) {
  Bytes out;
  for (int r = 0; r < n; ++r) {
    out.push_back(static_cast<std::uint8_t>((file + r) % 10));
    for (int j = 0; j < 3072; ++j) out.push_back(static_cast<std::uint8_t>((file * 31 + r + j) % 256));
  }
  return out;
}

void expect_records(const ImageSet& set, std::int64_t first, int n, int file) {
  for (int r = 0; r < n; ++r) {
    ASSERT_EQ(set.labels[first + r], (file + r) % 10);
    const std::uint8_t* image = set.image(first + r);
    // Channel-planar: green plane starts at 1024, blue at 2048, as in the file.
    for (int j : {0, 1, 1023, 1024, 2048, 3071}) ASSERT_EQ(image[j], (file * 31 + r + j) % 256);
  }
}

TEST(Cifar10Reader, ReadsFilesInOrder) {
  ScratchDir dir;
  auto a = dir.write("a.bin", cifar_records(3, 0));
  auto b = dir.write_gzip("b.bin.gz", cifar_records(2, 1));
  ImageSet set = read_cifar10_files({a, b}, "cifar10/mini");
  EXPECT_EQ(set.name, "cifar10/mini");
  EXPECT_EQ(set.count(), 5);
  EXPECT_EQ(set.channels, 3);
  EXPECT_EQ(set.height, 32);
  EXPECT_EQ(set.width, 32);
  EXPECT_EQ(set.classes, 10);
  EXPECT_EQ(set.pixels.size(), 5u * 3072);
  expect_records(set, 0, 3, 0);
  expect_records(set, 3, 2, 1);
}

void write_batches(const ScratchDir& dir, const std::string& folder) {
  for (int i = 1; i <= 5; ++i) dir.write(folder + "data_batch_" + std::to_string(i) + ".bin", cifar_records(i, i));
  dir.write(folder + "test_batch.bin", cifar_records(4, 9));
}

TEST(Cifar10Reader, ReadsDirectoryOrBatchesFolder) {
  for (std::string folder : {"", "cifar-10-batches-bin/"}) {
    ScratchDir dir;
    write_batches(dir, folder);
    TrainTest sets = read_cifar10_dir(dir.path());
    EXPECT_EQ(sets.train.name, "cifar10/train");
    EXPECT_EQ(sets.test.name, "cifar10/test");
    ASSERT_EQ(sets.train.count(), 1 + 2 + 3 + 4 + 5);
    ASSERT_EQ(sets.test.count(), 4);
    std::int64_t first = 0;
    for (int i = 1; i <= 5; ++i) {
      expect_records(sets.train, first, i, i);
      first += i;
    }
    expect_records(sets.test, 0, 4, 9);
  }
}

TEST(Cifar10Reader, SizeNotAMultipleOfTheRecord) {
  ScratchDir dir;
  Bytes bytes = cifar_records(2, 0);
  bytes.push_back(7);
  auto path = dir.write("data.bin", bytes);
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_cifar10_files({path}, "c"), path, "size 6147 bytes",
                        "not a multiple of the 3073-byte CIFAR-10 record", "2 whole records and 1 bytes left over");
  Bytes short_record(kRecord - 1, 0);
  auto cut = dir.write("cut.bin", short_record);
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_cifar10_files({cut}, "c"), cut, "size 3072 bytes",
                        "0 whole records");
}

TEST(Cifar10Reader, Cifar100FilesGetAHint) {
  ScratchDir dir;
  auto path = dir.write("train.bin", Bytes(3 * 3074, 0));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_cifar10_files({path}, "c"), path, "size 9222 bytes", "CIFAR-100");
}

TEST(Cifar10Reader, EmptyFile) {
  ScratchDir dir;
  auto path = dir.write("empty.bin", {});
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_cifar10_files({path}, "c"), path, "empty");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, read_cifar10_files({}, "cset"), "cset", "no CIFAR-10 files");
}

TEST(Cifar10Reader, LabelOutOfRange) {
  ScratchDir dir;
  Bytes bytes = cifar_records(3, 0);
  bytes[kRecord] = 10;
  auto path = dir.write("data.bin", bytes);
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_cifar10_files({path}, "c"), path, "record 1", "byte offset 3073",
                        "label 10", "expected 0..9");
}

TEST(Cifar10Reader, MissingFileListsExpectedNames) {
  ScratchDir dir;
  write_batches(dir, "");
  std::filesystem::remove(dir.file("data_batch_4.bin"));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_cifar10_dir(dir.path()), dir.file("data_batch_4.bin"),
                        "not found", "data_batch_1.bin, data_batch_2.bin", "test_batch.bin");
}

TEST(Cifar10Reader, MissingDirectoryNamesIt) {
  ScratchDir dir;
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_cifar10_dir(dir.file("nowhere")), dir.file("nowhere"),
                        "does not exist", "data_batch_1.bin");
}

}  // namespace
}  // namespace ablate::datasets
