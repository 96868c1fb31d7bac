// Resolves `--dataset NAME [--data DIR]` to train and test sets:
//   fashion-mnist  MNIST-format files; default DIR is where Debian's dataset-fashion-mnist
//                  package installs them (/usr/share/datasets/fashion-mnist, gzip files)
//   mnist          MNIST-format files from --data DIR (required)
//   cifar10        CIFAR-10 binary files from --data DIR (required)
//   synthetic      generated from the seed: 28x28x1, 10 classes, 6000 train + 1000 test
//                  images sharing the class prototypes (--data is ignored)
//   synthetic-cifar10  the same at CIFAR-10's shape: 32x32x3, 10 classes (family cifar10)
//   folder         your own images from --data DIR (required): DIR/train/<class>/*.png|jpg|bmp
//                  and DIR/test/<class>/..., every image of one size (image_folder_reader.h);
//                  folder:HxW resizes every image to H x W. Its family follows the channels of
//                  the first training image: 1 (grayscale) -> mnist, 3 (RGB) -> cifar10.
// An unknown name, or a missing directory, is an error naming it and what was expected.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "datasets/image_set.h"

namespace ablate::datasets {

std::vector<std::string> dataset_names();
// "mnist" for MNIST-format sets, "cifar10" for CIFAR-10 (the preset family). The folder
// data set needs its directory to tell (its first image's channels).
std::string dataset_family(const std::string& name, const std::string& data_dir = "");
std::string default_data_dir(const std::string& name);  // "" if none
TrainTest load_dataset(const std::string& name, const std::string& data_dir, std::uint64_t seed = 1);

}  // namespace ablate::datasets
