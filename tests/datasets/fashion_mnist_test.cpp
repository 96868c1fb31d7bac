// The real Fashion-MNIST as Debian's dataset-fashion-mnist installs it (gzip IDX files);
// skipped where the package is not installed.
#include <gtest/gtest.h>

#include <filesystem>

#include "datasets/dataset_registry.h"

namespace ablate::datasets {
namespace {

TEST(FashionMnist, DebianPackageHasTheFullSet) {
  const std::string dir = default_data_dir("fashion-mnist");
  if (!std::filesystem::is_directory(dir))
    GTEST_SKIP() << dir << " not found: install Debian's dataset-fashion-mnist to run this test";
  TrainTest sets = load_dataset("fashion-mnist", "");
  struct Expected {
    const ImageSet* set;
    std::int64_t count;
  };
  for (Expected e : {Expected{&sets.train, 60000}, Expected{&sets.test, 10000}}) {
    const ImageSet& s = *e.set;
    SCOPED_TRACE(s.name);
    ASSERT_EQ(s.count(), e.count);
    EXPECT_EQ(s.channels, 1);
    EXPECT_EQ(s.height, 28);
    EXPECT_EQ(s.width, 28);
    EXPECT_EQ(s.classes, 10);
    EXPECT_EQ(s.pixels.size(), static_cast<std::size_t>(e.count * 784));
    std::vector<std::int64_t> per_class(10, 0);
    for (auto label : s.labels) {
      ASSERT_GE(label, 0);
      ASSERT_LE(label, 9);
      ++per_class[label];
    }
    for (int k = 0; k < 10; ++k) EXPECT_EQ(per_class[k], e.count / 10) << "class " << k;
  }
  // Real images: dark background, bright garments, not a constant fill.
  std::int64_t zeros = 0, bright = 0;
  for (std::int64_t j = 0; j < 784 * 100; ++j) zeros += sets.train.pixels[j] == 0, bright += sets.train.pixels[j] > 200;
  EXPECT_GT(zeros, 784 * 100 / 5);
  EXPECT_GT(bright, 784 * 100 / 50);
}

}  // namespace
}  // namespace ablate::datasets
