// Image folders: PNG and BMP files the tests write with stb_image_write, read back with
// labels from sorted class names, planar pixels, the data set family from the channels,
// resizing, and every malformed folder giving an error that names the file or folder.
#define STB_IMAGE_WRITE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#pragma GCC diagnostic ignored "-Wsign-compare"
#include <stb_image_write.h>
#pragma GCC diagnostic pop

#include "datasets/image_folder_reader.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "datasets/dataset_registry.h"
#include "tests/datasets/expect_error.h"
#include "tests/datasets/scratch_dir.h"

namespace ablate::datasets {
namespace {

using testing::ScratchDir;

// h x w image with `comp` interleaved components; value of component k of pixel j: (seed + 3 j + 50 k) % 256.
std::vector<std::uint8_t> pattern(int h, int w, int comp, int seed) {
  std::vector<std::uint8_t> px(static_cast<std::size_t>(h) * w * comp);
  for (int j = 0; j < h * w; ++j)
    for (int k = 0; k < comp; ++k) px[static_cast<std::size_t>(j) * comp + k] = static_cast<std::uint8_t>((seed + 3 * j + 50 * k) % 256);
  return px;
}

std::string write_png(const ScratchDir& dir, const std::string& name, int h, int w, int comp, int seed) {
  const std::string path = dir.file(name);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  auto px = pattern(h, w, comp, seed);
  if (!stbi_write_png(path.c_str(), w, h, comp, px.data(), w * comp)) throw std::runtime_error("test could not write " + path);
  return path;
}

std::string write_bmp(const ScratchDir& dir, const std::string& name, int h, int w, int seed) {
  const std::string path = dir.file(name);
  std::filesystem::create_directories(std::filesystem::path(path).parent_path());
  auto px = pattern(h, w, 3, seed);
  if (!stbi_write_bmp(path.c_str(), w, h, 3, px.data())) throw std::runtime_error("test could not write " + path);
  return path;
}

TEST(ImageFolder, GrayPngLabelsFollowSortedClassNames) {
  ScratchDir dir;
  // Classes cat, ant, bird -> labels ant 0, bird 1, cat 2; files in byte order ("10" < "2").
  write_png(dir, "train/cat/2.png", 3, 4, 1, 20);
  write_png(dir, "train/cat/10.png", 3, 4, 1, 10);
  write_png(dir, "train/ant/a.png", 3, 4, 1, 30);
  write_png(dir, "train/bird/b.png", 3, 4, 1, 40);
  write_png(dir, "train/bird/c.png", 3, 4, 1, 50);
  dir.write("train/bird/.DS_Store", {1, 2, 3});  // hidden files are skipped
  dir.write("train/README", {'h', 'i'});        // plain files next to the classes are not read
  write_png(dir, "test/cat/x.png", 3, 4, 1, 60);
  EXPECT_EQ(dataset_family("folder", dir.path()), "mnist");
  TrainTest sets = load_dataset("folder", dir.path());
  const ImageSet& train = sets.train;
  EXPECT_EQ(train.name, "folder/train");
  EXPECT_EQ(train.channels, 1);
  EXPECT_EQ(train.height, 3);
  EXPECT_EQ(train.width, 4);
  EXPECT_EQ(train.classes, 3);
  EXPECT_EQ(train.labels, (std::vector<std::int32_t>{0, 1, 1, 2, 2}));
  // Image 3 is cat/10.png (seed 10), image 4 cat/2.png (seed 20).
  auto expect = [](const ImageSet& s, int i, int seed) {
    auto px = pattern(3, 4, 1, seed);
    EXPECT_EQ(std::vector<std::uint8_t>(s.image(i), s.image(i) + 12), px) << s.name << " image " << i;
  };
  expect(train, 0, 30);
  expect(train, 3, 10);
  expect(train, 4, 20);
  EXPECT_EQ(sets.test.count(), 1);
  EXPECT_EQ(sets.test.classes, 3);
  EXPECT_EQ(sets.test.labels, (std::vector<std::int32_t>{2}));  // cat keeps the training label
  expect(sets.test, 0, 60);
}

TEST(ImageFolder, RgbBmpIsReadChannelPlanarAsCifar10Family) {
  ScratchDir dir;
  write_bmp(dir, "train/a/1.bmp", 2, 3, 5);
  write_png(dir, "train/b/gray.png", 2, 3, 1, 9);   // gray in an RGB set: replicated
  write_png(dir, "train/b/rgba.png", 2, 3, 4, 70);  // alpha dropped
  write_bmp(dir, "test/a/1.bmp", 2, 3, 6);
  EXPECT_EQ(dataset_family("folder", dir.path()), "cifar10");
  TrainTest sets = load_dataset("folder", dir.path());
  const ImageSet& s = sets.train;
  ASSERT_EQ(s.channels, 3);
  ASSERT_EQ(s.count(), 3);
  auto bmp = pattern(2, 3, 3, 5), gray = pattern(2, 3, 1, 9), rgba = pattern(2, 3, 4, 70);
  for (int c = 0; c < 3; ++c)
    for (int j = 0; j < 6; ++j) {
      EXPECT_EQ(s.image(0)[c * 6 + j], bmp[j * 3 + c]) << c << "," << j;
      EXPECT_EQ(s.image(1)[c * 6 + j], gray[j]) << c << "," << j;
      EXPECT_EQ(s.image(2)[c * 6 + j], rgba[j * 4 + c]) << c << "," << j;
    }
}

TEST(ImageFolder, ResizesEveryImageWhenTheNameGivesASize) {
  ScratchDir dir;
  // A constant image stays constant through the filter; sizes differ on purpose.
  const std::string flat = dir.file("train/a/flat.png");
  std::filesystem::create_directories(dir.file("train/a"));
  std::vector<std::uint8_t> px(8 * 8, 77);
  ASSERT_TRUE(stbi_write_png(flat.c_str(), 8, 8, 1, px.data(), 8));
  write_png(dir, "train/b/small.png", 3, 4, 1, 1);
  write_png(dir, "test/a/big.png", 10, 7, 1, 2);
  TrainTest sets = load_dataset("folder:4x6", dir.path());
  EXPECT_EQ(sets.train.height, 4);
  EXPECT_EQ(sets.train.width, 6);
  EXPECT_EQ(sets.test.height, 4);
  EXPECT_EQ(sets.test.pixels.size(), 24u);
  for (int j = 0; j < 24; ++j) EXPECT_EQ(sets.train.image(0)[j], 77);
}

TEST(ImageFolder, UnreadableImageNamesTheFile) {
  ScratchDir dir;
  write_png(dir, "train/a/good.png", 3, 3, 1, 1);
  const std::string bad = dir.write("train/a/zbad.png", {'n', 'o', 't', ' ', 'a', ' ', 'p', 'n', 'g'});
  write_png(dir, "test/a/good.png", 3, 3, 1, 1);
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder", dir.path()), "cannot load dataset 'folder'",
                        "cannot read image " + bad, "expected a readable PNG, JPEG or BMP file");
  // The first image unreadable: the family cannot be told either.
  const std::string first = dir.write("train/a/a.png", {0, 1, 2});
  EXPECT_ERROR_CONTAINS(std::runtime_error, dataset_family("folder", dir.path()), first, "cannot read image");
}

TEST(ImageFolder, ImageOfAnotherSizeNamesTheFileAndBothSizes) {
  ScratchDir dir;
  const std::string first = write_png(dir, "train/a/1.png", 3, 4, 1, 1);
  const std::string odd = write_png(dir, "train/b/2.png", 4, 4, 1, 1);
  write_png(dir, "test/a/1.png", 3, 4, 1, 1);
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder", dir.path()), odd, "is 4x4 (height x width)",
                        "expected 3x4 like " + first, "folder:HxW");
  // A test image must have the training images' size.
  std::filesystem::remove(odd);
  write_png(dir, "train/b/2.png", 3, 4, 1, 1);
  const std::string test_odd = write_png(dir, "test/b/9.png", 5, 4, 1, 1);
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder", dir.path()), test_odd, "is 5x4",
                        "expected 3x4 like the training images");
}

TEST(ImageFolder, MalformedFoldersNameTheFolderOrFile) {
  ScratchDir dir;
  write_png(dir, "train/a/1.png", 2, 2, 1, 1);
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder", dir.path()), "has no test/ sub-folder");
  std::filesystem::create_directories(dir.file("test/a"));
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder", dir.path()), "class folder " + dir.file("test/a"),
                        "holds no images");
  write_png(dir, "test/a/1.png", 2, 2, 1, 1);
  EXPECT_NO_THROW(load_dataset("folder", dir.path()));
  write_png(dir, "test/zebra/1.png", 2, 2, 1, 1);
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder", dir.path()), "class folder 'zebra'",
                        "not a class of the training set");
  std::filesystem::remove_all(dir.file("test/zebra"));
  const std::string notes = dir.write("train/a/notes.txt", {'x'});
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder", dir.path()), notes,
                        "not a .png, .jpg, .jpeg or .bmp file");
  std::filesystem::remove(notes);
  std::filesystem::create_directories(dir.file("train/a/nested"));
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder", dir.path()), dir.file("train/a/nested"),
                        "nested folders are not read");
  ScratchDir flat;
  write_png(flat, "train/1.png", 2, 2, 1, 1);
  std::filesystem::create_directories(flat.file("test"));
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder", flat.path()), flat.file("train"),
                        "has no class sub-folders", "one sub-folder per class");
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder", dir.file("missing")), dir.file("missing"),
                        "does not exist");
}

TEST(ImageFolder, NameAndDirectoryErrors) {
  EXPECT_ERROR_CONTAINS(std::invalid_argument, load_dataset("folder", ""), "dataset 'folder'", "--data DIR");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, dataset_family("folder", ""), "dataset 'folder'", "--data DIR",
                        "train/ and test/");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, dataset_family("folder:32", "/x"), "dataset 'folder:32'",
                        "size '32'", "folder:32x32");
  EXPECT_ERROR_CONTAINS(std::invalid_argument, load_dataset("folder:0x4", "/x"), "size '0x4'");
  int h = -1, w = -1;
  EXPECT_TRUE(parse_folder_dataset_name("folder:24x32", h, w));
  EXPECT_EQ(h, 24);
  EXPECT_EQ(w, 32);
  EXPECT_FALSE(parse_folder_dataset_name("folders", h, w));
  EXPECT_ERROR_CONTAINS(std::invalid_argument, dataset_family("folderx", "/x"), "dataset 'folderx' is not known",
                        "folder");
}

}  // namespace
}  // namespace ablate::datasets
