// What the image-folder reader does to a file's bytes before Debian's stb_image 2.27 decodes
// them, for two inputs stb_image mishandles (both found by fuzz_image_folder):
//   - a JPEG DHT segment whose 16 code counts add up to more than 256, which the JPEG
//     standard forbids (ITU T.81 B.2.4.2: at most 256 symbols per table): stb_image writes
//     past its Huffman tables (stbi__build_huffman's size[257], values[256]). Refused.
//   - a PNG whose first IDAT chunk is empty: stb_image copies 0 bytes to a null buffer
//     (memcpy(NULL, p, 0), undefined). Empty IDAT chunks hold no image data: removed.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ablate::datasets {

// Empty when `bytes` is no JPEG (does not start with 0xFF) or every DHT table in it has at
// most 256 codes; else what is wrong ("DHT table 1 (AC) at byte 161 has 1020 codes; ...").
// Conservative: every FF C4 pair in the file is read as a DHT segment the way stb_image would
// (bytes past the end read as 0), wherever stb_image's marker search might find it.
std::string jpeg_huffman_table_error(const unsigned char* bytes, std::size_t size);

// Removes every IDAT chunk of length 0 from a PNG (8-byte signature, then chunks of a 4-byte
// big-endian length, 4-byte type, data and CRC); other bytes, and a file that is no PNG or
// whose chunks stop making sense (from there on), are left as they are.
void drop_empty_png_idat_chunks(std::vector<unsigned char>& bytes);

}  // namespace ablate::datasets
