// libFuzzer target: the image-folder reader (datasets/image_folder_reader.h) over stb_image's
// PNG, JPEG and BMP decoders. The input becomes a small DIR/train + DIR/test tree:
//   byte 0      flags: bits 0-1 classes - 1 (1..3, 3 read as 1), bits 2-3 files per class - 1
//               (1..3, 3 read as 1), bit 4 resize every image to 8x8 (the data set name
//               folder:8x8), else every image must have the first one's size
//   then, for each image file in turn (class 0's files, class 1's, ...): a big-endian 2-byte
//               length L and L bytes (cut to what is left); the last file takes the rest.
// Files are named c<class>/<i>.png|.bmp|.jpg (by position; stb_image decodes by content, not by
// name) in DIR/train; DIR/test holds the last file of each class again, so the test pass (the
// training set's class names, channels and size) is read too, with a pixel limit of 64x64 per
// image (kMaxPixels; the reader's default is 4096x4096). DIR is a per-process folder in
// the temporary directory, rewritten each run and removed at exit.
// A clean rejection is std::invalid_argument or std::runtime_error naming the file or folder;
// both accepted sets must satisfy the ImageSet invariants and agree with each other.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <fstream>
#include <string>

#include "datasets/image_folder_reader.h"
#include "fuzz/clean_rejection.h"  // fuzz_check
#include "fuzz/image_set_checks.h"

using namespace ablate;
namespace fs = std::filesystem;

namespace {

// The per-process folder, removed when the fuzzer exits normally (a crash leaves it for replay).
struct ScratchFolder {
  fs::path root = fs::temp_directory_path() / ("ablate-fuzz-image-folder-" + std::to_string(::getpid()));
  ~ScratchFolder() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

void write_file(const fs::path& path, const std::uint8_t* data, std::size_t size) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!out) {
    std::fprintf(stderr, "fuzz harness could not write %s\n", path.c_str());
    std::abort();
  }
}

// The reader's pixel limit here: 64x64 rather than 4096x4096, so that a forged header costs
// milliseconds, not a second of decoding zeros; the check is the same code.
constexpr std::int64_t kMaxPixels = 64 * 64;

// The reader's errors name the image or folder at fault: all lie under `root`.
bool names(const std::exception& e, const fs::path& root) {
  return std::string(e.what()).find(root.string()) != std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static ScratchFolder scratch;
  if (size < 1) return 0;
  const std::uint8_t flags = data[0];
  const int classes = (flags & 3) % 3 + 1, files = (flags >> 2 & 3) % 3 + 1;
  const bool resize = flags & 16;
  ++data;
  --size;

  fs::remove_all(scratch.root);
  static const char* const extensions[] = {".png", ".bmp", ".jpg"};
  for (int c = 0; c < classes; ++c) {
    const fs::path train = scratch.root / "train" / ("c" + std::to_string(c));
    const fs::path test = scratch.root / "test" / ("c" + std::to_string(c));
    fs::create_directories(train);
    fs::create_directories(test);
    for (int f = 0; f < files; ++f) {
      const bool last = c == classes - 1 && f == files - 1;
      std::size_t length = size;
      if (!last) {
        length = size >= 2 ? (std::size_t{data[0]} << 8 | data[1]) : 0;
        const std::size_t header = size >= 2 ? 2 : size;
        data += header, size -= header;
        length = std::min(length, size);
      }
      const std::string name = std::to_string(f) + extensions[(c * files + f) % 3];
      write_file(train / name, data, length);
      if (f == files - 1) write_file(test / name, data, length);
      data += length, size -= length;
    }
  }

  datasets::TrainTest sets;
  const int side = resize ? 8 : 0;
  bool accepted = false;
  try {
    sets = datasets::read_image_folder_dir(scratch.root.string(), side, side, kMaxPixels);
    accepted = true;
  } catch (const std::invalid_argument& e) {
    fuzz::fuzz_check(names(e, scratch.root), "a rejection names the file or folder");
  } catch (const std::runtime_error& e) {
    fuzz::fuzz_check(names(e, scratch.root), "a rejection names the file or folder");
  }
  if (accepted) {
    fuzz::check_image_set(sets.train);
    fuzz::check_image_set(sets.test);
    fuzz::fuzz_check(sets.train.classes == classes && sets.test.classes == classes, "one class per folder");
    fuzz::fuzz_check(sets.train.count() == classes * files && sets.test.count() == classes, "one image per file");
    fuzz::fuzz_check(sets.train.channels == 1 || sets.train.channels == 3, "gray or RGB");
    fuzz::fuzz_check(sets.test.channels == sets.train.channels && sets.test.height == sets.train.height &&
                         sets.test.width == sets.train.width,
                     "test images shaped like the training images");
    if (resize) fuzz::fuzz_check(sets.train.height == 8 && sets.train.width == 8, "resized to 8x8");
    fuzz::fuzz_check(sets.train.image_size() <= kMaxPixels * 3, "images within the pixel limit");
  }
  return 0;
}
