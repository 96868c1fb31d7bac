// Writer of IDX files (LeCun's format, as idx_reader.h reads them), so another program can
// train on exactly the images ablate loaded: `ablate compare --with-peers` hands its data to
// the PyTorch yardstick this way. Big-endian magic 0x000008DD (unsigned bytes, DD dims):
//   images of one channel:  0x00000803 [N, H, W]   (MNIST's, read back by read_idx_pair)
//   images of C > 1:        0x00000804 [N, C, H, W] (channel-planar, as ImageSet holds them)
//   labels:                 0x00000801 [N]
// Raw files (no gzip). A failed write throws naming the file.
#pragma once

#include <string>

#include "datasets/image_set.h"

namespace ablate::datasets {

void write_idx_images(const std::string& path, const ImageSet& set);
// Labels must lie in 0..255 (u8); one that does not is an error naming the set and item.
void write_idx_labels(const std::string& path, const ImageSet& set);

}  // namespace ablate::datasets
