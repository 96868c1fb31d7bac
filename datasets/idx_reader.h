// Reader of the IDX files of MNIST and Fashion-MNIST (LeCun's format: big-endian magic
// 0x00000803 for images [N, rows, cols] u8, 0x00000801 for labels [N] u8), raw or gzip.
// Every check failure names the file and what was wrong: magic, dimensions, truncation,
// label out of range, image and label counts that disagree.
#pragma once

#include <string>

#include "datasets/image_set.h"

namespace ablate::datasets {

// Reads images and labels into one set; `name` labels the set in messages.
ImageSet read_idx_pair(const std::string& images_path, const std::string& labels_path,
                       const std::string& name, int classes = 10);

// The train and test sets of an MNIST-format directory. Looks for train-images-idx3-ubyte
// and the three others, each raw or with ".gz"; a missing directory or file is an error
// naming it.
TrainTest read_mnist_dir(const std::string& dir, const std::string& name);

}  // namespace ablate::datasets
