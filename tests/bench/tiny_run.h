// Helpers of the bench tests: a tiny model file and a short in-process run on synthetic data
// (eigen, 1 thread), so that the training loop's bookkeeping is tested in well under a second.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "bench/run/run_config.h"
#include "datasets/image_set.h"
#include "datasets/synthetic.h"

namespace ablate::bench::tiny {

// A 4-channel convolution, pooling and one inner product over 28x28x1, in a file removed
// when the test program ends.
inline std::string tiny_model_path() {
  struct File {
    std::filesystem::path path =
        std::filesystem::temp_directory_path() / ("ablate-bench-tiny-" + std::to_string(::getpid()) + ".model");
    File() {
      std::ofstream(path) << "model tiny\ninput 1 28 28\nclasses 10\n"
                             "layer c1 convolution outputs=4 kernel=5\n"
                             "layer p1 pooling mode=max kernel=4 stride=4\n"
                             "layer fc inner_product outputs=10\n"
                             "layer loss softmax_loss\n";
    }
    ~File() { std::filesystem::remove(path); }
  };
  static const File file;
  return file.path.string();
}

// `train` training images and 100 test images sharing class prototypes.
inline datasets::TrainTest tiny_data(std::int64_t train = 300) {
  datasets::TrainTest d;
  d.train = datasets::make_synthetic(train + 100, 1, 28, 28, 10, 3, "tiny/train");
  d.test = datasets::split_tail(d.train, 100, "tiny/test");
  return d;
}

// A resolved configuration that trains the tiny model quickly.
inline run::RunConfig tiny_config() {
  run::RunConfig c;
  c.framework = "caffe";
  c.model = tiny_model_path();
  c.strategy = "layerwise";
  c.backend.name = "eigen";
  c.backend.options.threads = 1;
  c.optimizer.type = "caffe_sgd";
  c.optimizer.lr.base_lr = 0.01;
  c.optimizer.momentum = 0.9;
  c.batch = 20;
  c.iterations = 12;
  c.test_batch = 50;
  c.transform = "scale:0.00390625";
  c.quiet = true;
  return c;
}

}  // namespace ablate::bench::tiny
