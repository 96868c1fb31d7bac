// Tests of the host allocator's huge-page policy (kernels/huge_pages.h): under madvise a block of
// 2 MiB or more is 2 MiB-aligned and marked, so the kernel reports its mapping eligible for
// transparent huge pages; a smaller block, or any block under system, is left as malloc gives it.
#include "kernels/huge_pages.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>

#include "kernels/tensor.h"

using namespace ablate::kernels;

namespace {

// Restores the process's policy after a test.
class HugePagesTest : public ::testing::Test {
 protected:
  void TearDown() override { set_host_huge_pages(HugePages::system); }
};

// The THPeligible field of the /proc/self/smaps mapping that holds `p`, or -1 where not found.
int thp_eligible(const void* p) {
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  std::ifstream in("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::istringstream head(line);
    if (head >> std::hex >> begin >> dash >> end && dash == '-') {
      inside = begin <= address && address < end;
      continue;
    }
    if (inside && line.rfind("THPeligible:", 0) == 0) return std::stoi(line.substr(12));
  }
  return -1;
}

}  // namespace

TEST(HugePages, ParsesItsTwoNamesAndNamesTheBadOne) {
  EXPECT_EQ(parse_huge_pages("system", "--huge-pages"), HugePages::system);
  EXPECT_EQ(parse_huge_pages("madvise", "--huge-pages"), HugePages::madvise);
  EXPECT_STREQ(huge_pages_name(HugePages::madvise), "madvise");
  try {
    parse_huge_pages("always", "--huge-pages");
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("--huge-pages 'always'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("madvise"), std::string::npos) << e.what();
  }
}

TEST_F(HugePagesTest, MadviseAlignsAndMarksLargeTensorsOnly) {
  set_host_huge_pages(HugePages::madvise);
  const HugePageHints before = host_huge_page_hints();
  Tensor large({3 << 20}, DType::f32);  // 12 MiB
  Tensor small({1 << 10}, DType::f32);  // 4 KiB
  const HugePageHints after = host_huge_page_hints();
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large.raw_data()) % kHugePageBytes, 0u);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(small.raw_data()) % 64, 0u);
  EXPECT_EQ(after.marked + after.refused, before.marked + before.refused + 1) << "the large block only";
  const std::string mode = transparent_huge_pages_mode();
  if (mode != "always" && mode != "madvise") GTEST_SKIP() << "the kernel's transparent huge pages are " << mode;
  EXPECT_EQ(after.refused, before.refused) << "the kernel refused MADV_HUGEPAGE";
  EXPECT_EQ(thp_eligible(large.raw_data()), 1) << "the large tensor's mapping is eligible for huge pages";
  EXPECT_GE(process_huge_page_bytes(), 0);
}

TEST_F(HugePagesTest, SystemMarksNothing) {
  set_host_huge_pages(HugePages::system);
  const HugePageHints before = host_huge_page_hints();
  Tensor large({3 << 20}, DType::f32);
  const HugePageHints after = host_huge_page_hints();
  EXPECT_EQ(after.marked, before.marked);
  EXPECT_EQ(after.refused, before.refused);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(large.raw_data()) % 64, 0u);
}
