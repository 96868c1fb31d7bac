// The backend registry: names, the reference factory, and the errors for an unknown name and
// a thread count below 1.
#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>

#include "kernels/registry.h"

namespace ablate::kernels {
namespace {

TEST(Registry, ListsTheCpuBackendsWithReferenceFirst) {
  std::vector<std::string> names = backend_names();
  ASSERT_GE(names.size(), 4u);
  EXPECT_EQ(names[0], "reference");
  for (const char* name : {"eigen", "openblas", "onednn"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end()) << name;
}

TEST(Registry, UnknownNameThrowsListingEveryBackend) {
  try {
    make_backend("nope");
    FAIL() << "make_backend(\"nope\") did not throw";
  } catch (const std::invalid_argument& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("'nope'"), std::string::npos) << what;
    for (const std::string& name : backend_names()) EXPECT_NE(what.find(name), std::string::npos) << what;
  }
}

TEST(Registry, ThreadsBelowOneThrow) {
  for (int threads : {0, -3}) {
    try {
      make_backend("reference", threads);
      FAIL() << "threads " << threads << " did not throw";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(threads)), std::string::npos) << e.what();
    }
  }
}

TEST(Registry, ReferenceIsSingleThreadedWhateverIsSet) {
  auto b = make_backend("reference", 4);
  EXPECT_EQ(b->name(), "reference");
  EXPECT_EQ(b->library_version(), "plain C++ loops");
  EXPECT_EQ(b->threads(), 1);
  EXPECT_TRUE(b->deterministic());
  EXPECT_EQ(b->device(), Device::cpu);
  EXPECT_THROW(b->set_threads(0), std::invalid_argument);
}

}  // namespace
}  // namespace ablate::kernels
