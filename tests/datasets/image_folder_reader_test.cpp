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
#include <fstream>
#include <iterator>

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

// A 24-bit BMP header claiming h x w pixels, followed by only 12 bytes of pixels.
testing::Bytes forged_bmp(std::int32_t h, std::int32_t w) {
  testing::Bytes out = {'B', 'M'};
  auto le32 = [&](std::uint32_t v) {
    for (int shift = 0; shift < 32; shift += 8) out.push_back(static_cast<std::uint8_t>(v >> shift));
  };
  auto le16 = [&](std::uint16_t v) { out.push_back(v & 0xFF), out.push_back(static_cast<std::uint8_t>(v >> 8)); };
  le32(54 + 12), le16(0), le16(0), le32(54);                   // file header: size, reserved, pixel offset
  le32(40), le32(static_cast<std::uint32_t>(w)), le32(static_cast<std::uint32_t>(h));  // BITMAPINFOHEADER
  le16(1), le16(24), le32(0), le32(12), le32(2835), le32(2835), le32(0), le32(0);
  out.resize(out.size() + 12, 7);
  return out;
}

// A PNG whose IHDR claims h x w (its CRC recomputed), with a real 2x2 image's pixel data.
testing::Bytes forged_png(const ScratchDir& dir, std::uint32_t h, std::uint32_t w) {
  const std::string small = write_png(dir, "forge/small.png", 2, 2, 1, 1);
  std::ifstream in(small, std::ios::binary);
  testing::Bytes png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::filesystem::remove_all(dir.file("forge"));
  // 8-byte signature, IHDR length (4) and type (4), then width and height, big-endian.
  for (int k = 0; k < 4; ++k) {
    png[16 + k] = static_cast<std::uint8_t>(w >> (24 - 8 * k));
    png[20 + k] = static_cast<std::uint8_t>(h >> (24 - 8 * k));
  }
  const uLong crc = crc32(0, png.data() + 12, 4 + 13);
  for (int k = 0; k < 4; ++k) png[29 + k] = static_cast<std::uint8_t>(crc >> (24 - 8 * k));
  return png;
}

// A header claiming 60000x60000 (fuzz_image_folder's seeds broken_*_huge_header) would have
// stbi_load allocate about 10 GB; the reader refuses it from the header alone.
TEST(ImageFolder, HeaderClaimingTooManyPixelsIsRefusedBeforeDecoding) {
  ScratchDir dir;
  const std::string bmp = dir.write("train/a/huge.bmp", forged_bmp(60000, 60000));
  write_png(dir, "test/a/1.png", 2, 2, 1, 1);
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder", dir.path()), "image " + bmp, "60000x60000",
                        "3600000000 pixels", "at most 16777216 pixels");
  // Also when it is not the first image (whose header sets the size), and when resizing.
  std::filesystem::remove(bmp);
  write_png(dir, "train/a/1.png", 2, 2, 1, 1);
  // 20000x20000 gray passes stb_image's own limit (2^30 bytes), and would be decoded.
  const std::string png = dir.write("train/b/huge.png", forged_png(dir, 20000, 20000));
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder", dir.path()), "image " + png, "20000x20000");
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder:4x4", dir.path()), "image " + png, "20000x20000");
  // The size to resize to is held to the same limit.
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder:5000x4000", dir.path()), "the size to resize to",
                        "5000x4000");
  // The limit itself is allowed (ImageFolderOptions::max_pixels, lowered here to 12).
  ScratchDir small;
  write_png(small, "a/1.png", 3, 4, 1, 1);
  ImageFolderOptions options;
  options.max_pixels = 12;
  EXPECT_EQ(read_image_folder(small.path(), "small", options).count(), 1);
  const std::string over = write_png(small, "a/2.png", 3, 5, 1, 1);
  EXPECT_ERROR_CONTAINS(std::runtime_error, read_image_folder(small.path(), "small", options), "image " + over, "3x5",
                        "at most 12 pixels");
}

// Found by fuzz_image_folder: stb_image 2.27 decodes a BMP of height 0, and resizing it
// divided by 0 (UBSan: NaN converted to int in stbir__calculate_sample_range_upsample).
TEST(ImageFolder, ImageWithoutPixelsIsRefused) {
  ScratchDir dir;
  write_png(dir, "train/a/1.png", 2, 2, 3, 1);
  const std::string empty = dir.write("train/b/empty.bmp", forged_bmp(0, 31748));
  write_png(dir, "test/a/1.png", 2, 2, 3, 1);
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder:8x8", dir.path()), "image " + empty, "0x31748",
                        "expected a positive height and width");
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder", dir.path()), "image " + empty, "0x31748");
}

// Found by fuzz_image_folder: a DHT segment whose 16 code counts add up to more than 256 made
// Debian's stb_image 2.27 write past its Huffman tables (UBSan: index 257 out of bounds in
// stbi__build_huffman). The reader refuses such a JPEG before stb_image sees it.
TEST(ImageFolder, JpegHuffmanTableWithTooManyCodesIsRefused) {
  ScratchDir dir;
  testing::Bytes jpeg = {0xFF, 0xD8, 0xFF, 0xC4, 0x00, 0x13, 0x11};  // SOI, DHT of 19 bytes: table 1 (AC)
  for (int i = 0; i < 16; ++i) jpeg.push_back(i < 2 ? 200 : 0);      // 400 codes of lengths 1 and 2
  jpeg.push_back(0xFF), jpeg.push_back(0xD9);
  const std::string bad = dir.write("train/a/bad.jpg", jpeg);
  write_png(dir, "test/a/1.png", 2, 2, 1, 1);
  EXPECT_ERROR_CONTAINS(std::runtime_error, load_dataset("folder", dir.path()), "cannot read image " + bad,
                        "DHT table 1 (AC) at byte 2 has 400 codes", "at most 256");
  // 256 codes pass the guard (stb_image then finds the file corrupt itself).
  jpeg[7] = 128, jpeg[8] = 128;
  dir.write("train/a/bad.jpg", jpeg);
  try {
    load_dataset("folder", dir.path());
    ADD_FAILURE() << "a JPEG without image data was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()).find("DHT"), std::string::npos) << e.what();
  }
}

// Found by fuzz_image_folder (UBSan): an empty first IDAT chunk made stb_image 2.27 memcpy 0
// bytes to a null buffer. The reader drops empty IDAT chunks: the image reads as without them.
TEST(ImageFolder, PngWithEmptyIdatChunksReadsAsWithout) {
  ScratchDir dir;
  const std::string plain = write_png(dir, "train/a/1.png", 3, 2, 1, 5);
  write_png(dir, "test/a/1.png", 3, 2, 1, 5);
  std::ifstream in(plain, std::ios::binary);
  testing::Bytes png((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const testing::Bytes empty_idat = {0, 0, 0, 0, 'I', 'D', 'A', 'T', 0x35, 0xAF, 0x06, 0x1E};
  png.insert(png.begin() + 33, empty_idat.begin(), empty_idat.end());  // after the 8 + 25 bytes of signature and IHDR
  png.insert(png.end() - 12, empty_idat.begin(), empty_idat.end());   // and before IEND
  dir.write("train/b/1.png", png);
  const TrainTest sets = load_dataset("folder", dir.path());
  ASSERT_EQ(sets.train.count(), 2);
  for (std::int64_t j = 0; j < sets.train.image_size(); ++j) EXPECT_EQ(sets.train.image(1)[j], sets.train.image(0)[j]);
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
