// Image folders through stb_image (see image_folder_reader.h).
#include "datasets/image_folder_reader.h"

#include <stb_image.h>
#include <stb_image_resize.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <memory>
#include <stdexcept>

#include "datasets/stb_guard.h"

namespace ablate::datasets {

namespace {

namespace fs = std::filesystem;

struct ClassFolder {
  std::string name;
  std::vector<std::string> files;  // full paths, sorted
};

bool hidden(const fs::path& p) { return p.filename().string().rfind('.', 0) == 0; }

bool image_extension(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg" || ext == ".bmp";
}

std::vector<fs::path> sorted_entries(const fs::path& dir) {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(dir))
    if (!hidden(entry.path())) out.push_back(entry.path());
  std::sort(out.begin(), out.end(), [](const fs::path& a, const fs::path& b) { return a.filename().string() < b.filename().string(); });
  return out;
}

// The class sub-folders of DIR and their image files; throws naming what is wrong.
std::vector<ClassFolder> list_classes(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw std::runtime_error("image folder " + dir + (fs::exists(dir, ec) ? " is not a directory" : " does not exist") +
                             "; expected one sub-folder of PNG/JPEG/BMP images per class");
  std::vector<ClassFolder> classes;
  for (const fs::path& sub : sorted_entries(dir)) {
    if (!fs::is_directory(sub, ec)) continue;  // plain files next to the class folders are not read
    ClassFolder folder{sub.filename().string(), {}};
    for (const fs::path& file : sorted_entries(sub)) {
      if (fs::is_directory(file, ec))
        throw std::runtime_error("image folder " + dir + ": " + file.string() +
                                 " is a folder inside class folder '" + folder.name +
                                 "'; expected only image files there (nested folders are not read)");
      if (!image_extension(file))
        throw std::runtime_error("image folder " + dir + ": " + file.string() +
                                 " is not a .png, .jpg, .jpeg or .bmp file; expected only images in class folders");
      folder.files.push_back(file.string());
    }
    if (folder.files.empty())
      throw std::runtime_error("image folder " + dir + ": class folder " + sub.string() +
                               " holds no images; expected at least one .png, .jpg, .jpeg or .bmp file");
    classes.push_back(std::move(folder));
  }
  if (classes.empty())
    throw std::runtime_error("image folder " + dir +
                             " has no class sub-folders; expected DIR/<class>/<image>.png (one sub-folder per class)");
  return classes;
}

// Channels of an image with `components` (stb_image: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA).
int channels_of(int components) { return components <= 2 ? 1 : 3; }

// Throws naming `what` when height x width is empty (stb_image 2.27 gives a BMP of height 0) or
// beyond `max_pixels`.
void check_pixel_count(const std::string& what, std::int64_t h, std::int64_t w, std::int64_t max_pixels) {
  if (h <= 0 || w <= 0)
    throw std::runtime_error(what + " is " + std::to_string(h) + "x" + std::to_string(w) +
                             " (height x width); expected a positive height and width");
  if (h * w > max_pixels)
    throw std::runtime_error(what + " is " + std::to_string(h) + "x" + std::to_string(w) + " (height x width), " +
                             std::to_string(h * w) + " pixels; expected at most " + std::to_string(max_pixels) +
                             " pixels per image");
}

[[noreturn]] void unreadable(const std::string& path, const std::string& reason) {
  throw std::runtime_error("cannot read image " + path + ": " + reason + "; expected a readable PNG, JPEG or BMP file");
}

// A file's bytes, checked and cleaned of what stb_image would mishandle (stb_guard.h);
// stb_image then decodes from memory.
std::vector<unsigned char> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) unreadable(path, "the file cannot be opened");
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (bytes.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) unreadable(path, "larger than 2 GB");
  const std::string bad_jpeg = jpeg_huffman_table_error(bytes.data(), bytes.size());
  if (!bad_jpeg.empty()) unreadable(path, bad_jpeg);
  drop_empty_png_idat_chunks(bytes);
  return bytes;
}

struct Header {
  int height = 0, width = 0, components = 0;
};

// The image's size and components from its header alone (stbi_info), within the pixel limit.
Header read_header(const std::string& path, const std::vector<unsigned char>& bytes, std::int64_t max_pixels) {
  Header h;
  if (!stbi_info_from_memory(bytes.data(), static_cast<int>(bytes.size()), &h.width, &h.height, &h.components))
    unreadable(path, stbi_failure_reason());
  check_pixel_count("image " + path, h.height, h.width, max_pixels);
  return h;
}

Header read_header(const std::string& path, std::int64_t max_pixels) {
  return read_header(path, read_bytes(path), max_pixels);
}

using Pixels = std::unique_ptr<unsigned char, void (*)(void*)>;

// Decodes `path` into `set` (interleaved HWC from stb_image -> planar CHW).
// `size_origin` says where the expected size comes from, for the error.
void append_image(const std::string& path, const std::string& size_origin, const ImageFolderOptions& options,
                  ImageSet& set) {
  const std::vector<unsigned char> bytes = read_bytes(path);
  read_header(path, bytes, options.max_pixels);  // a header beyond the limit is refused before stb_image allocates
  int w = 0, h = 0, comp = 0;
  Pixels pixels(stbi_load_from_memory(bytes.data(), static_cast<int>(bytes.size()), &w, &h, &comp, set.channels),
                stbi_image_free);
  if (!pixels) unreadable(path, stbi_failure_reason());
  check_pixel_count("image " + path, h, w, options.max_pixels);  // as the header said, but cheap to be sure
  const int c = set.channels;
  std::vector<unsigned char> resized;
  const unsigned char* src = pixels.get();
  if (options.resize && (h != set.height || w != set.width)) {
    resized.resize(static_cast<std::size_t>(set.height) * set.width * c);
    if (!stbir_resize_uint8(src, w, h, 0, resized.data(), set.width, set.height, 0, c))
      throw std::runtime_error("cannot resize image " + path + " from " + std::to_string(h) + "x" + std::to_string(w) +
                               " to " + std::to_string(set.height) + "x" + std::to_string(set.width));
    src = resized.data();
  } else if (h != set.height || w != set.width) {
    throw std::runtime_error("image " + path + " is " + std::to_string(h) + "x" + std::to_string(w) +
                             " (height x width); expected " + std::to_string(set.height) + "x" +
                             std::to_string(set.width) + " " + size_origin +
                             " (every image must have one size, or name the data set folder:HxW to resize them)");
  }
  const std::size_t plane = static_cast<std::size_t>(set.height) * set.width;
  const std::size_t start = set.pixels.size();
  set.pixels.resize(start + plane * c);
  for (std::size_t j = 0; j < plane; ++j)
    for (int k = 0; k < c; ++k) set.pixels[start + k * plane + j] = src[j * c + k];
}

}  // namespace

ImageSet read_image_folder(const std::string& dir, const std::string& name, const ImageFolderOptions& options,
                           std::vector<std::string>* class_names) {
  if (options.resize && (options.height <= 0 || options.width <= 0))
    throw std::invalid_argument("image folder " + dir + ": resizing needs a positive height and width, got " +
                                std::to_string(options.height) + "x" + std::to_string(options.width));
  if (options.channels != 0 && options.channels != 1 && options.channels != 3)
    throw std::invalid_argument("image folder " + dir + ": channels " + std::to_string(options.channels) +
                                "; expected 0 (the first image decides), 1 or 3");
  if (options.resize)
    check_pixel_count("image folder " + dir + ": the size to resize to", options.height, options.width,
                      options.max_pixels);
  const std::vector<ClassFolder> folders = list_classes(dir);
  std::vector<std::string> names = options.classes;
  if (names.empty())
    for (const auto& f : folders) names.push_back(f.name);

  const std::string& first = folders.front().files.front();
  ImageSet set = empty_image_set(name, options.channels, options.height, options.width, static_cast<int>(names.size()));
  if (set.channels == 0) set.channels = channels_of(read_header(first, options.max_pixels).components);
  const std::string size_origin = set.height == 0 || set.width == 0 ? "like " + first
                                  : options.classes.empty()        ? std::string("(the size given)")
                                                                   : std::string("like the training images");
  if (set.height == 0 || set.width == 0) {
    const Header header = read_header(first, options.max_pixels);
    set.height = header.height, set.width = header.width;
  }
  for (const auto& folder : folders) {
    auto it = std::find(names.begin(), names.end(), folder.name);
    if (it == names.end())
      throw std::runtime_error("image folder " + dir + ": class folder '" + folder.name +
                               "' is not a class of the training set; expected one of its " +
                               std::to_string(names.size()) + " classes");
    const auto label = static_cast<std::int32_t>(it - names.begin());
    for (const auto& file : folder.files) {
      append_image(file, size_origin, options, set);
      set.labels.push_back(label);
    }
  }
  if (class_names) *class_names = names;
  return set;
}

TrainTest read_image_folder_dir(const std::string& dir, int height, int width, std::int64_t max_pixels) {
  const fs::path root = dir;
  std::error_code ec;
  if (!fs::is_directory(root, ec))
    throw std::runtime_error("image folder " + dir + (fs::exists(root, ec) ? " is not a directory" : " does not exist") +
                             "; expected train/ and test/ sub-folders, each with one sub-folder of images per class");
  for (const char* part : {"train", "test"})
    if (!fs::is_directory(root / part, ec))
      throw std::runtime_error("image folder " + dir + " has no " + part +
                               "/ sub-folder; expected train/ and test/, each with one sub-folder of images per class");
  ImageFolderOptions options;
  options.height = height, options.width = width, options.resize = height > 0 && width > 0;
  options.max_pixels = max_pixels;
  TrainTest sets;
  std::vector<std::string> classes;
  sets.train = read_image_folder((root / "train").string(), "folder/train", options, &classes);
  options.classes = classes;
  options.channels = sets.train.channels;
  options.height = sets.train.height, options.width = sets.train.width;
  // The test images must match (or are resized to) the training images' size.
  sets.test = read_image_folder((root / "test").string(), "folder/test", options);
  return sets;
}

int image_folder_channels(const std::string& dir) {
  const std::string train = (fs::path(dir) / "train").string();
  return channels_of(read_header(list_classes(train).front().files.front(), kMaxImageFolderPixels).components);
}

bool parse_folder_dataset_name(const std::string& name, int& height, int& width) {
  height = width = 0;
  if (name == "folder") return true;
  if (name.rfind("folder:", 0) != 0) return false;
  const std::string size = name.substr(7);
  auto number = [&](const std::string& text, int& out) {
    auto result = std::from_chars(text.data(), text.data() + text.size(), out);
    return !text.empty() && result.ec == std::errc() && result.ptr == text.data() + text.size() && out > 0;
  };
  const auto x = size.find('x');
  if (x == std::string::npos || !number(size.substr(0, x), height) || !number(size.substr(x + 1), width))
    throw std::invalid_argument("dataset '" + name + "': size '" + size +
                                "' is not HxW of positive integers; expected e.g. folder:32x32 (or folder to keep the "
                                "images' own size)");
  return true;
}

}  // namespace ablate::datasets
