// Reader of a folder of images, one sub-folder per class, so users can bring their own data:
//   DIR/<class name>/<image>.png|.jpg|.jpeg|.bmp
// decoded by stb_image (Debian's libstb-dev). Class names sorted byte-wise give labels
// 0, 1, 2, ...; files in a class folder are read in sorted order.
//   Channels: the first image (first class, first file) decides: grayscale (1 channel) when it
//     has 1 or 2 components (gray, gray + alpha), RGB (3) when it has 3 or 4; every image is
//     converted to that by stb_image (gray replicated to RGB, RGB to luminance), alpha dropped.
//   Size: without resizing, every image must have the first image's height and width; with a
//     size (the data set name folder:HxW), every image is resized to it by stb_image_resize's
//     stbir_resize_uint8 (its default filters: Mitchell when shrinking, Catmull-Rom when
//     growing, edges clamped), whatever its own size.
// Errors name the file or folder: an unreadable or undecodable image (with stb_image's
// reason, or a JPEG Huffman table stb_image would overflow: stb_guard.h), an image whose header claims more than kMaxImageFolderPixels pixels (checked with
// stbi_info before decoding, so a forged 60000x60000 header costs no allocation), an image of
// another size, a file that is not .png/.jpg/.jpeg/.bmp, a nested
// folder, an empty class folder, a folder without class sub-folders. Names starting with '.'
// are skipped; plain files directly in DIR are ignored.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "datasets/image_set.h"

namespace ablate::datasets {

// The most pixels (height x width) one image, or the size images are resized to, may have:
// 4096 x 4096. stb_image alone accepts up to 2^24 per side, whose decoding would allocate
// gigabytes for a header that claims it.
inline constexpr std::int64_t kMaxImageFolderPixels = std::int64_t{1} << 24;

struct ImageFolderOptions {
  int height = 0, width = 0;  // 0: the first image's size; else the size every image must have
  bool resize = false;        // true (with height, width): resize every image to that size
  int channels = 0;           // 0: the first image decides; 1 or 3: convert every image to it
  std::int64_t max_pixels = kMaxImageFolderPixels;  // per image, and the resize size (fuzzing lowers it)
  // The label of each class name, in order; empty: the sorted sub-folder names of DIR. A
  // sub-folder not in a given list is an error (a test class the training set lacks).
  std::vector<std::string> classes;
};

// Reads DIR as one labelled set named `name`. classes = the number of class names.
ImageSet read_image_folder(const std::string& dir, const std::string& name, const ImageFolderOptions& options = {},
                           std::vector<std::string>* class_names = nullptr);

// DIR/train and DIR/test: the test set takes the training set's class names, channels and
// size (resized to it when resize is set). Height and width 0: no resizing.
TrainTest read_image_folder_dir(const std::string& dir, int height = 0, int width = 0,
                                std::int64_t max_pixels = kMaxImageFolderPixels);

// Channels (1 or 3) the reader will give DIR/train, from its first image's header alone.
int image_folder_channels(const std::string& dir);

// "folder" -> true with 0x0; "folder:HxW" -> true with H and W; other names -> false.
// Throws std::invalid_argument for "folder:" followed by anything but HxW of positive integers.
bool parse_folder_dataset_name(const std::string& name, int& height, int& width);

}  // namespace ablate::datasets
