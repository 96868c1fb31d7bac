// Reader of the CIFAR-10 binary version: data_batch_1.bin .. data_batch_5.bin and
// test_batch.bin, each a sequence of 3073-byte records (1 label byte, then 3 x 32 x 32
// channel-planar pixels). A file whose size is not a multiple of 3073, or a label >= 10,
// is an error naming the file.
#pragma once

#include <string>
#include <vector>

#include "datasets/image_set.h"

namespace ablate::datasets {

ImageSet read_cifar10_files(const std::vector<std::string>& paths, const std::string& name);
TrainTest read_cifar10_dir(const std::string& dir);

}  // namespace ablate::datasets
