// A check of JPEG files before stb_image decodes them: Debian's stb_image 2.27 writes past its
// Huffman tables (stbi__build_huffman's size[257], values[256]) when a DHT segment's 16 code
// counts add up to more than 256, which the JPEG standard forbids (ITU T.81 B.2.4.2: at most
// 256 symbols per table) but stb_image does not check. Found by fuzz_image_folder.
#pragma once

#include <cstddef>
#include <string>

namespace ablate::datasets {

// Empty when `bytes` is no JPEG (does not start with 0xFF) or every DHT table in it has at
// most 256 codes; else what is wrong ("DHT table 1 (AC) at byte 161 has 1020 codes; ...").
// Conservative: every FF C4 pair in the file is read as a DHT segment the way stb_image would
// (bytes past the end read as 0), wherever stb_image's marker search might find it.
std::string jpeg_huffman_table_error(const unsigned char* bytes, std::size_t size);

}  // namespace ablate::datasets
