// libFuzzer target: the CIFAR-10 binary reader (datasets/cifar10_reader.h).
//   byte 0     flags: bit 0 gzip the file here (else the bytes go as they are), bit 1 read
//              the file twice as two batches (the appending path of read_cifar10_files)
//   the rest   the file, in memory (fuzz/memory_file.h).
// A clean rejection is std::invalid_argument or std::runtime_error; an accepted file must give
// 3 x 32 x 32 images with labels 0..9, one per 3073-byte record.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "datasets/cifar10_reader.h"
#include "fuzz/clean_rejection.h"
#include "fuzz/gzip_bytes.h"
#include "fuzz/image_set_checks.h"
#include "fuzz/memory_file.h"

using namespace ablate;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static fuzz::MemoryFile file("cifar10-batch");
  if (size < 1) return 0;
  const std::uint8_t flags = data[0];
  ++data;
  --size;
  std::size_t stored = size;
  if (flags & 1) {
    std::vector<std::uint8_t> packed = fuzz::gzip_bytes(data, size);
    file.assign(packed.data(), packed.size());
  } else {
    file.assign(data, size);
  }
  std::vector<std::string> paths = {file.path()};
  if (flags & 2) paths.push_back(file.path());

  datasets::ImageSet set;
  if (fuzz::accepts([&] { set = datasets::read_cifar10_files(paths, "fuzz"); })) {
    fuzz::check_image_set(set);
    fuzz::fuzz_check(set.channels == 3 && set.height == 32 && set.width == 32 && set.classes == 10,
                     "CIFAR-10 geometry");
    // Only raw bytes have a known record count (gzip seeds inflate to an unknown size).
    if (!(flags & 1) && stored % 3073 == 0 && !(stored >= 2 && data[0] == 0x1f && data[1] == 0x8b))
      fuzz::fuzz_check(set.count() == static_cast<std::int64_t>(paths.size() * (stored / 3073)),
                       "one image per 3073-byte record");
  }
  return 0;
}
