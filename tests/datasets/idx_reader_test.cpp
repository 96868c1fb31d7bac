// IDX reader: raw and gzip files the tests write, and every malformed-file error naming the
// file and the values at fault.
#include "datasets/idx_reader.h"

#include <gtest/gtest.h>

#include "tests/datasets/expect_error.h"
#include "tests/datasets/scratch_dir.h"

namespace ablate::datasets {
namespace {

using testing::Bytes;
using testing::idx_bytes;
using testing::idx_images;
using testing::idx_labels;
using testing::ScratchDir;

void expect_pattern(const ImageSet& set, int n, int rows, int cols) {
  ASSERT_EQ(set.count(), n);
  EXPECT_EQ(set.channels, 1);
  EXPECT_EQ(set.height, rows);
  EXPECT_EQ(set.width, cols);
  EXPECT_EQ(set.classes, 10);
  ASSERT_EQ(set.pixels.size(), static_cast<std::size_t>(n * rows * cols));
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(set.labels[i], i % 10);
    for (int j = 0; j < rows * cols; ++j) ASSERT_EQ(set.image(i)[j], (7 * i + j) % 256) << "image " << i;
  }
}

TEST(IdxReader, ReadsRawFiles) {
  ScratchDir dir;
  auto images = dir.write("im", idx_images(13, 3, 5));
  auto labels = dir.write("lb", idx_labels(13));
  ImageSet set = read_idx_pair(images, labels, "tiny/train");
  EXPECT_EQ(set.name, "tiny/train");
  expect_pattern(set, 13, 3, 5);
}

TEST(IdxReader, ReadsGzipFiles) {
  ScratchDir dir;
  Bytes raw = idx_images(40, 6, 4);
  Bytes gz = ScratchDir::gzip(raw);
  ASSERT_EQ(gz[0], 0x1f);  // really gzip
  ASSERT_NE(gz.size(), raw.size());
  auto images = dir.write("im.gz", gz);
  auto labels = dir.write_gzip("lb.gz", idx_labels(40));
  expect_pattern(read_idx_pair(images, labels, "tiny"), 40, 6, 4);
}

TEST(IdxReader, ClassCountLimitsLabels) {
  ScratchDir dir;
  auto images = dir.write("im", idx_images(4, 2, 2));
  auto labels = dir.write("lb", idx_labels(4));  // labels 0..3
  EXPECT_EQ(read_idx_pair(images, labels, "x", 4).classes, 4);
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(images, labels, "x", 3), labels, "label 3 of item 3",
                        "expected 0..2");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, read_idx_pair(images, labels, "x", 0), "0 classes");
}

TEST(IdxReader, WrongMagicNamesFileAndValues) {
  ScratchDir dir;
  auto images = dir.write("im", idx_bytes(0x00000802, {2, 2}, Bytes(4)));
  auto labels = dir.write("lb", idx_labels(2));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(images, labels, "x"), images,
                        "wrong magic number 0x00000802, expected 0x00000803 (IDX images)");
  auto bad_labels = dir.write("lb2", idx_bytes(0x00000901, {2}, Bytes(2)));
  auto good_images = dir.write("im2", idx_images(2, 2, 2));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(good_images, bad_labels, "x"), bad_labels,
                        "wrong magic number 0x00000901, expected 0x00000801 (IDX labels)");
}

TEST(IdxReader, SwappedAndLittleEndianFilesGetAHint) {
  ScratchDir dir;
  auto images = dir.write("im", idx_images(2, 2, 2));
  auto labels = dir.write("lb", idx_labels(2));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(labels, images, "x"), labels, "0x00000801",
                        "images and labels swapped");
  Bytes le = idx_images(2, 2, 2);
  std::swap(le[0], le[3]);
  std::swap(le[1], le[2]);
  auto little = dir.write("le", le);
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(little, labels, "x"), little, "0x03080000",
                        "byte-swapped");
}

TEST(IdxReader, TruncatedPixelsSayWhatTheHeaderPromised) {
  ScratchDir dir;
  Bytes bytes = idx_images(3, 4, 4);
  bytes.resize(16 + 20);
  auto images = dir.write("im", bytes);
  auto labels = dir.write("lb", idx_labels(3));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(images, labels, "x"), images,
                        "truncated: header says 3 images of 4x4 (48 bytes) but the file holds 20");
  auto gz = dir.write_gzip("im.gz", bytes);
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(gz, labels, "x"), gz, "(after gunzip)",
                        "header says 3 images of 4x4 (48 bytes) but the file holds 20");
  Bytes lb = idx_labels(3);
  lb.pop_back();
  auto short_labels = dir.write("lb-short", lb);
  auto full_images = dir.write("im-full", idx_images(3, 4, 4));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(full_images, short_labels, "x"), short_labels,
                        "header says 3 labels (3 bytes) but the file holds 2");
}

TEST(IdxReader, TruncatedHeader) {
  ScratchDir dir;
  Bytes bytes = idx_images(3, 4, 4);
  bytes.resize(10);
  auto images = dir.write("im", bytes);
  auto labels = dir.write("lb", idx_labels(3));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(images, labels, "x"), images,
                        "truncated: 10 bytes, shorter than the 16-byte header of IDX images");
  auto empty = dir.write("empty", {});
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(empty, labels, "x"), empty,
                        "0 bytes, shorter than the 4-byte magic number");
}

TEST(IdxReader, CutOffGzipStream) {
  ScratchDir dir;
  Bytes gz = ScratchDir::gzip(idx_images(50, 10, 10));
  gz.resize(gz.size() / 2);
  auto images = dir.write("im.gz", gz);
  auto labels = dir.write("lb", idx_labels(50));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(images, labels, "x"), images, "gzip data is cut off");
}

TEST(IdxReader, TrailingBytes) {
  ScratchDir dir;
  Bytes bytes = idx_images(3, 2, 2);
  bytes.insert(bytes.end(), {1, 2, 3, 4, 5});
  auto images = dir.write("im", bytes);
  auto labels = dir.write("lb", idx_labels(3));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(images, labels, "x"), images,
                        "5 bytes of trailing data after the 3 images of 2x2");
}

TEST(IdxReader, MismatchedCountsNameBothFiles) {
  ScratchDir dir;
  auto images = dir.write("im", idx_images(3, 2, 2));
  auto labels = dir.write("lb", idx_labels(4));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(images, labels, "set"), images, labels,
                        "image count 3", "label count 4");
}

TEST(IdxReader, LabelOutOfRange) {
  ScratchDir dir;
  auto images = dir.write("im", idx_images(4, 2, 2));
  auto labels = dir.write("lb", idx_bytes(0x00000801, {4}, {1, 9, 10, 0}));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(images, labels, "x"), labels, "label 10 of item 2",
                        "expected 0..9");
}

TEST(IdxReader, BadDimensions) {
  ScratchDir dir;
  auto labels = dir.write("lb", idx_labels(0));
  auto zero_rows = dir.write("im", idx_bytes(0x00000803, {0, 0, 28}, {}));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(zero_rows, labels, "x"), zero_rows, "image size 0x28",
                        "expected rows and cols in 1..65535");
  auto huge = dir.write("huge", idx_bytes(0x00000803, {0xFFFFFFFFu, 60000, 60000}, {}));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(huge, labels, "x"), huge,
                        "header says 4294967295 images of 60000x60000", "not a plausible IDX images file");
}

TEST(IdxReader, EmptySetIsValid) {
  ScratchDir dir;
  auto images = dir.write("im", idx_images(0, 28, 28));
  auto labels = dir.write("lb", idx_labels(0));
  ImageSet set = read_idx_pair(images, labels, "x");
  EXPECT_EQ(set.count(), 0);
  EXPECT_EQ(set.height, 28);
}

TEST(IdxReader, MissingFileNamesIt) {
  ScratchDir dir;
  auto labels = dir.write("lb", idx_labels(1));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(dir.file("nope"), labels, "x"),
                        "cannot open " + dir.file("nope"));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_idx_pair(dir.path(), labels, "x"), dir.path(), "is a directory");
}

void write_mnist_dir(const ScratchDir& dir, bool gzip_train, bool gzip_test) {
  auto put = [&](const std::string& name, const Bytes& bytes, bool gz) {
    gz ? dir.write_gzip(name + ".gz", bytes) : dir.write(name, bytes);
  };
  put("train-images-idx3-ubyte", idx_images(20, 4, 3), gzip_train);
  put("train-labels-idx1-ubyte", idx_labels(20), gzip_train);
  put("t10k-images-idx3-ubyte", idx_images(7, 4, 3), gzip_test);
  put("t10k-labels-idx1-ubyte", idx_labels(7), !gzip_test);  // mixed on purpose
}

TEST(MnistDir, ReadsRawAndGzipFiles) {
  for (bool gz : {false, true}) {
    ScratchDir dir;
    write_mnist_dir(dir, gz, !gz);
    TrainTest sets = read_mnist_dir(dir.path(), "tiny");
    EXPECT_EQ(sets.train.name, "tiny/train");
    EXPECT_EQ(sets.test.name, "tiny/test");
    expect_pattern(sets.train, 20, 4, 3);
    expect_pattern(sets.test, 7, 4, 3);
  }
}

TEST(MnistDir, MissingFileListsExpectedNames) {
  ScratchDir dir;
  write_mnist_dir(dir, true, true);
  std::filesystem::remove(dir.file("t10k-images-idx3-ubyte.gz"));
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_mnist_dir(dir.path(), "tiny"), "tiny",
                        dir.file("t10k-images-idx3-ubyte"), "not found",
                        "train-images-idx3-ubyte, train-labels-idx1-ubyte, t10k-images-idx3-ubyte, "
                        "t10k-labels-idx1-ubyte");
}

TEST(MnistDir, MissingDirectoryNamesIt) {
  ScratchDir dir;
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_mnist_dir(dir.file("absent"), "tiny"), "tiny",
                        dir.file("absent"), "does not exist");
  auto file = dir.write("a-file", {1});
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_mnist_dir(file, "tiny"), file, "is not a directory");
}

}  // namespace
}  // namespace ablate::datasets
