// libFuzzer target: the IDX reader of MNIST and Fashion-MNIST (datasets/idx_reader.h), raw and
// gzip. The input is split into the two files of a pair:
//   byte 0      flags: bit 0 gzip the images file here, bit 1 gzip the labels file here
//               (else the bytes go as they are, so gzip seeds exercise zlib's own checks)
//   byte 1      classes - 1 (read_idx_pair accepts 1..256 classes)
//   bytes 2..3  big-endian length L of the images file (cut to what is left)
//   then L bytes of images file, the rest the labels file.
// Both files are in-memory (fuzz/memory_file.h). A clean rejection is std::invalid_argument
// or std::runtime_error; an accepted pair must satisfy the ImageSet invariants.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "datasets/idx_reader.h"
#include "fuzz/clean_rejection.h"
#include "fuzz/gzip_bytes.h"
#include "fuzz/image_set_checks.h"
#include "fuzz/memory_file.h"

using namespace ablate;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::MemoryFile images_file("idx-images"), labels_file("idx-labels");
  if (size < 4) return 0;
  const std::uint8_t flags = data[0];
  const int classes = data[1] + 1;
  std::size_t images_size = (std::size_t{data[2]} << 8) | data[3];
  data += 4;
  size -= 4;
  if (images_size > size) images_size = size;

  auto put = [](fuzz::MemoryFile& file, const std::uint8_t* bytes, std::size_t n, bool gzip) {
    if (gzip) {
      std::vector<std::uint8_t> packed = fuzz::gzip_bytes(bytes, n);
      file.assign(packed.data(), packed.size());
    } else {
      file.assign(bytes, n);
    }
  };
  put(images_file, data, images_size, flags & 1);
  put(labels_file, data + images_size, size - images_size, flags & 2);

  datasets::ImageSet set;
  if (fuzz::accepts([&] { set = datasets::read_idx_pair(images_file.path(), labels_file.path(), "fuzz", classes); })) {
    fuzz::check_image_set(set);
    fuzz::fuzz_check(set.channels == 1 && set.classes == classes, "IDX sets are 1-channel with the classes asked");
  }
  return 0;
}
