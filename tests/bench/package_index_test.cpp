// The repository names no package index and no host of one:
// scripts/setup-peers.sh and bench/peers/requirements install by package name from whatever
// index pip is configured with. Every text file of the source tree is searched (this file
// excepted: it spells the patterns), so an address added anywhere fails here.
#include <gtest/gtest.h>

#include <algorithm>
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

// Every file that reads as text, whatever its name (.model, .preset, .html, scripts without an
// extension): no NUL byte in its first 8 KiB.
bool text_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  char head[8192];
  in.read(head, sizeof head);
  return std::find(head, head + in.gcount(), '\0') == head + in.gcount();
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The set-up's own files: scripts/setup*.sh and bench/peers/requirements/*.txt.
std::vector<fs::path> setup_files(const fs::path& root) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(root / "scripts"))
    if (e.path().filename().string().rfind("setup", 0) == 0 && e.path().extension() == ".sh") files.push_back(e.path());
  for (const auto& e : fs::directory_iterator(root / "bench/peers/requirements"))
    if (e.path().extension() == ".txt") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
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
  EXPECT_NE(read_text(root / "scripts/setup-peers.sh").find("-r $requirements/pytorch.txt"), std::string::npos);
}

// The set-up names no host at all (no URL, no direct reference "name @ URL", no --index option),
// and every requirement line is a package name pinned with == (the versions that installed).
TEST(PackageIndex, SetUpInstallsPinnedPackagesByName) {
  const fs::path root = ABLATE_SOURCE_DIR;
  const std::regex url("[a-z][a-z0-9+.-]*://|\\bwww\\.|\\s@\\s", std::regex::icase);
  const std::regex pin("[A-Za-z0-9][A-Za-z0-9._-]*==[0-9][A-Za-z0-9.+!-]*");
  const std::vector<fs::path> files = setup_files(root);
  std::size_t requirement_files = 0, pins = 0;
  for (const fs::path& f : files) {
    const bool requirements = f.extension() == ".txt";
    requirement_files += requirements;
    std::istringstream in(read_text(f));
    std::string line;
    for (int n = 1; std::getline(in, line); ++n) {
      const std::string where = fs::relative(f, root).string() + ":" + std::to_string(n) + ": " + line;
      EXPECT_FALSE(std::regex_search(line, url)) << "a host or URL in the set-up: " << where;
      if (!requirements || line.empty() || line[0] == '#') continue;
      EXPECT_TRUE(std::regex_match(line, pin)) << "a requirement that is not a package pinned with ==: " << where;
      ++pins;
    }
  }
  EXPECT_GE(requirement_files, 5u) << "bench/peers/requirements/ was not found under " << root;
  EXPECT_GT(pins, 50u);
  EXPECT_TRUE(std::any_of(files.begin(), files.end(), [](const fs::path& f) { return f.filename() == "setup-peers.sh"; }));
}
