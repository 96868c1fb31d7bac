// The repository names no package index and no host of one:
// scripts/setup-peers.sh and bench/peers/requirements install by package name from whatever
// index pip is configured with. Every text file of the source tree is searched (this file
// excepted: it spells the patterns), so an address added anywhere fails here.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

bool skipped_folder(const fs::path& p) {
  const std::string name = p.filename().string();
  return name == ".git" || name == ".peers" || name == "results" || name == "__pycache__" || name.rfind("build", 0) == 0;
}

bool text_file(const fs::path& p) {
  static const std::vector<std::string> kinds = {".sh", ".txt", ".md", ".py", ".cpp", ".h", ".cmake", ".cfg", ".toml",
                                                 ".ini", ".yml", ".yaml", ".json", ".in", ".conf", ""};
  for (const auto& k : kinds)
    if (p.extension() == k) return true;
  return p.filename() == "CMakeLists.txt";
}

}  // namespace

TEST(PackageIndex, NoAddressOfAnIndexInTheRepository) {
  const std::regex address(
      "(pypi\\.org|pythonhosted\\.org|download\\.pytorch\\.org|anaconda\\.(org|com)|--(extra-)?index-url|"
      "--find-links|--trusted-host|\\bindex-url\\s*=)",
      std::regex::icase);
  const fs::path root = ABLATE_SOURCE_DIR;
  std::size_t searched = 0;
  std::vector<std::string> found;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && skipped_folder(it->path())) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || !text_file(it->path()) || it->path().filename() == "package_index_test.cpp") continue;
    if (it->file_size() > 2'000'000) continue;
    ++searched;
    std::ifstream in(it->path());
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
      if (std::regex_search(line, address))
        found.push_back(fs::relative(it->path(), root).string() + ":" + std::to_string(n) + ": " + line);
  }
  EXPECT_GT(searched, 100u) << "the source tree was not found at " << root;
  std::ostringstream list;
  for (const auto& f : found) list << f << "\n";
  EXPECT_TRUE(found.empty()) << "package index addresses in the repository:\n" << list.str();
  // The set-up script names the requirement files, not an index: its pip line is by name.
  std::ifstream setup(root / "scripts/setup-peers.sh");
  std::stringstream text;
  text << setup.rdbuf();
  EXPECT_NE(text.str().find("-r $requirements/pytorch.txt"), std::string::npos);
}
