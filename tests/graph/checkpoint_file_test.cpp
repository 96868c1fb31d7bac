// The checkpoint file format: a round trip, and every kind of damage (another file, another
// version, truncation at any byte, a flipped bit) rejected with a message naming the file;
// a failed write leaves the previous checkpoint whole.
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <sstream>

#include "graph/checkpoint_file.h"
#include "graph_test_util.h"

namespace ablate::graph {
namespace {

Checkpoint sample() {
  Checkpoint c;
  c.metadata["iteration"] = "1234";
  c.metadata["config"] = "framework caffe\nbatch 64\n";
  kernels::Tensor w({2, 3}, kernels::DType::f32), h({4}, kernels::DType::f64), l({3}, kernels::DType::i32);
  for (std::int64_t i = 0; i < 6; ++i) w.set(i, 0.5 * static_cast<double>(i) - 1.25);
  for (std::int64_t i = 0; i < 4; ++i) h.set(i, 1.0 / (3.0 + static_cast<double>(i)));
  for (std::int64_t i = 0; i < 3; ++i) l.set(i, static_cast<double>(7 * i));
  c.tensors = {{"conv1.weight", w}, {"conv1.weight.history", h}, {"labels", l}};
  return c;
}

std::string bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CheckpointFile, RoundTripIsExact) {
  const std::string path = ::testing::TempDir() + "/ablate_ckpt_roundtrip.ckpt";
  write_checkpoint(path, sample());
  const Checkpoint back = read_checkpoint(path);
  EXPECT_EQ(back.metadata, sample().metadata);
  ASSERT_EQ(back.tensors.size(), 3u);
  for (const auto& [name, t] : sample().tensors) {
    const kernels::Tensor& r = back.tensor(name);
    ASSERT_EQ(r.shape(), t.shape()) << name;
    ASSERT_EQ(r.dtype(), t.dtype()) << name;
    for (std::int64_t i = 0; i < t.numel(); ++i) EXPECT_EQ(r.at(i), t.at(i)) << name << "[" << i << "]";
  }
  EXPECT_EQ(back.meta("iteration"), "1234");
  testing::expect_error<std::invalid_argument>([&] { back.meta("epoch"); }, {"epoch"});
  std::remove(path.c_str());
}

TEST(CheckpointFile, EveryTruncationAndEveryFlippedByteIsRejected) {
  const std::string path = ::testing::TempDir() + "/ablate_ckpt_damage.ckpt";
  write_checkpoint(path, sample());
  const std::string good = bytes_of(path);
  for (std::size_t k = 0; k < good.size(); ++k)
    testing::expect_error<std::invalid_argument>([&] { parse_checkpoint(good.substr(0, k), "cut.ckpt"); },
                                                 {"checkpoint cut.ckpt"});
  for (std::size_t k = 20; k < good.size(); k += 7) {  // the payload and the checksum
    std::string bad = good;
    bad[k] = static_cast<char>(bad[k] ^ 0x10);
    testing::expect_error<std::invalid_argument>([&] { parse_checkpoint(bad, "flip.ckpt"); }, {"flip.ckpt"});
  }
  std::remove(path.c_str());
}

TEST(CheckpointFile, WrongMagicVersionAndMissingFileAreNamed) {
  testing::expect_error<std::invalid_argument>(
      [] { parse_checkpoint(std::string(40, 'x'), "other.bin"); }, {"other.bin", "not an ablate checkpoint"});
  const std::string path = ::testing::TempDir() + "/ablate_ckpt_version.ckpt";
  write_checkpoint(path, sample());
  std::string bytes = bytes_of(path);
  bytes[8] = 2;  // version 2
  testing::expect_error<std::invalid_argument>([&] { parse_checkpoint(bytes, "v2.ckpt"); },
                                               {"v2.ckpt", "version 2", "version 1"});
  testing::expect_error<std::invalid_argument>([] { read_checkpoint("/nonexistent/x.ckpt"); },
                                               {"/nonexistent/x.ckpt", "cannot be opened"});
  std::remove(path.c_str());
}

TEST(CheckpointFile, FailedWriteKeepsThePreviousCheckpoint) {
  const std::string path = ::testing::TempDir() + "/ablate_ckpt_keep.ckpt";
  write_checkpoint(path, sample());
  const std::string before = bytes_of(path);
  ASSERT_EQ(::mkdir((path + ".tmp").c_str(), 0755), 0);  // the temporary file cannot be made
  Checkpoint other = sample();
  other.metadata["iteration"] = "9999";
  testing::expect_error<std::runtime_error>([&] { write_checkpoint(path, other); }, {path, "previous"});
  EXPECT_EQ(bytes_of(path), before);
  ::rmdir((path + ".tmp").c_str());
  std::remove(path.c_str());
}

}  // namespace
}  // namespace ablate::graph
