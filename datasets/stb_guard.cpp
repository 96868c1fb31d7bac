// The byte checks before stb_image (stb_guard.h): a JPEG DHT segment walked as
// stbi__process_marker does, and the PNG chunk walk.
#include "datasets/stb_guard.h"

#include <algorithm>
#include <cstdint>

namespace ablate::datasets {

std::string jpeg_huffman_table_error(const unsigned char* bytes, std::size_t size) {
  if (size == 0 || bytes[0] != 0xFF) return {};
  auto at = [&](std::size_t i) -> int { return i < size ? bytes[i] : 0; };  // stb_image: 0 past the end
  for (std::size_t marker = 0; marker + 1 < size; ++marker) {
    if (bytes[marker] != 0xFF || bytes[marker + 1] != 0xC4) continue;
    std::size_t p = marker + 2;
    long remaining = (at(p) << 8 | at(p + 1)) - 2;  // the segment length counts its own 2 bytes
    p += 2;
    while (remaining > 0 && p < size) {
      const int q = at(p++);
      if (q >> 4 > 1 || (q & 15) > 3) break;  // stb_image rejects the table class or id itself
      long codes = 0;
      for (int i = 0; i < 16; ++i) codes += at(p++);
      if (codes > 256)
        return "DHT table " + std::to_string(q & 15) + ((q >> 4) ? " (AC)" : " (DC)") + " at byte " +
               std::to_string(marker) + " has " + std::to_string(codes) +
               " codes; a JPEG Huffman table has at most 256 (ITU T.81 B.2.4.2)";
      p += static_cast<std::size_t>(codes);
      remaining -= 17 + codes;
    }
  }
  return {};
}

void drop_empty_png_idat_chunks(std::vector<unsigned char>& bytes) {
  static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
  if (bytes.size() < 8 || !std::equal(signature, signature + 8, bytes.begin())) return;
  std::size_t p = 8;
  while (p + 12 <= bytes.size()) {
    const std::uint64_t length = std::uint64_t{bytes[p]} << 24 | std::uint64_t{bytes[p + 1]} << 16 |
                                 std::uint64_t{bytes[p + 2]} << 8 | bytes[p + 3];
    if (length == 0 && std::equal(bytes.begin() + static_cast<std::ptrdiff_t>(p + 4),
                                  bytes.begin() + static_cast<std::ptrdiff_t>(p + 8), "IDAT")) {
      bytes.erase(bytes.begin() + static_cast<std::ptrdiff_t>(p), bytes.begin() + static_cast<std::ptrdiff_t>(p + 12));
      continue;
    }
    if (length > bytes.size() - p - 12) return;  // a chunk beyond the end: stb_image's to report
    p += 12 + static_cast<std::size_t>(length);
  }
}

}  // namespace ablate::datasets
