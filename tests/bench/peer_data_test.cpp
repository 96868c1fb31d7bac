// The data handed to the PyTorch yardstick: IDX files written by datasets/idx_writer.h and
// read back by datasets/idx_reader.h (one channel), the 4-D layout of colour sets, and the
// validation split held out as the run holds it out.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <unistd.h>

#include "bench/experiments/peer_runner.h"
#include "datasets/dataset_registry.h"
#include "datasets/idx_reader.h"
#include "datasets/idx_writer.h"
#include "datasets/synthetic.h"

namespace ablate::bench::experiments {
namespace {

class PeerData : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("ablate-peer-data-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

std::vector<unsigned char> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST_F(PeerData, IdxRoundTripThroughTheReader) {
  datasets::ImageSet set = datasets::make_synthetic(37, 1, 28, 20, 10, 5, "written");
  datasets::write_idx_images(path("i.idx"), set);
  datasets::write_idx_labels(path("l.idx"), set);
  datasets::ImageSet back = datasets::read_idx_pair(path("i.idx"), path("l.idx"), "read", 10);
  EXPECT_EQ(back.count(), 37);
  EXPECT_EQ(back.height, 28);
  EXPECT_EQ(back.width, 20);
  EXPECT_EQ(back.pixels, set.pixels);
  EXPECT_EQ(back.labels, set.labels);
}

TEST_F(PeerData, ColourImagesAreFourDimensional) {
  datasets::ImageSet set = datasets::make_synthetic(3, 3, 4, 5, 10, 5, "colour");
  datasets::write_idx_images(path("c.idx"), set);
  std::vector<unsigned char> b = bytes_of(path("c.idx"));
  ASSERT_EQ(b.size(), 4 + 4 * 4 + set.pixels.size());
  EXPECT_EQ((std::vector<unsigned char>(b.begin(), b.begin() + 20)),
            (std::vector<unsigned char>{0, 0, 8, 4, 0, 0, 0, 3, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0, 5}));
  EXPECT_EQ(std::vector<unsigned char>(b.begin() + 20, b.end()), set.pixels);
}

TEST_F(PeerData, LabelsBeyondAByteAreRefused) {
  datasets::ImageSet set = datasets::make_synthetic(2, 1, 2, 2, 10, 5, "wide");
  set.labels[1] = 300;
  try {
    datasets::write_idx_labels(path("l.idx"), set);
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("label 300 of item 1"), std::string::npos) << e.what();
  }
}

TEST_F(PeerData, ValidationSplitIsHeldOutAsTheRunHoldsItOut) {
  run::RunConfig c;
  c.dataset = "synthetic";
  c.seed = 3;
  c.validation_count = 1000;
  write_peer_data(c, dir_.string());
  datasets::ImageSet train = datasets::read_idx_pair(path("train-images.idx"), path("train-labels.idx"), "train");
  datasets::ImageSet test = datasets::read_idx_pair(path("test-images.idx"), path("test-labels.idx"), "test");
  datasets::TrainTest loaded = datasets::load_dataset("synthetic", "", 3);
  datasets::split_tail(loaded.train, 1000, "validation");
  EXPECT_EQ(train.labels, loaded.train.labels);
  EXPECT_EQ(train.pixels, loaded.train.pixels);
  EXPECT_EQ(test.pixels, loaded.test.pixels);
}

}  // namespace
}  // namespace ablate::bench::experiments
