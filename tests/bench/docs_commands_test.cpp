// The documentation cannot drift from the program: every command block of README.md and
// docs/*.md marked with the HTML comment `<!-- doc-test -->` (invisible when rendered) is run
// here, each line a command (a trailing backslash continues it), with `build/ablate` replaced
// by the binary under test, in a fresh directory; each must exit 0. Marked commands are the
// cheap ones (synthetic data, a few iterations). A block of expected output marked
// `<!-- doc-expect -->` after a command block (docs/tour.md) holds the output a learner should
// see; its lines that start with "» " must each appear in what that block's commands printed,
// so the tour breaks loudly when the code changes; its other lines are abridged illustration.
// And every `--flag` that docs/running.md names must be an option `ablate run --help` lists.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "command_runner.h"

namespace fs = std::filesystem;

namespace {

using ablate::bench::testing::slurp;

struct DocCommand {
  std::string where;  // "docs/running.md:42"
  std::string command;
  int block = 0;      // the marked block it is in, counted over the file
};

struct DocExpectation {
  std::string where;  // "docs/tour.md:57"
  std::string line;   // what must appear in the block's output
  int block = 0;      // the command block before it
};

// The commands of the marked blocks of one Markdown file, and the marked lines of their
// expected-output blocks.
std::vector<DocCommand> marked_commands(const fs::path& file, const std::string& shown_name,
                                        std::vector<DocExpectation>* expected = nullptr) {
  std::ifstream in(file);
  std::vector<DocCommand> out;
  std::string line, pending;
  int number = 0, start = 0, block = 0;
  enum { outside, marked, inside, expect_marked, expect_inside } state = outside;
  while (std::getline(in, line)) {
    ++number;
    if (state == outside) {
      if (line.find("<!-- doc-test -->") != std::string::npos) state = marked, ++block;
      if (line.find("<!-- doc-expect -->") != std::string::npos) state = expect_marked;
    } else if (state == marked || state == expect_marked) {
      if (line.rfind("```", 0) == 0) state = state == marked ? inside : expect_inside;
    } else if (line.rfind("```", 0) == 0) {
      state = outside;
    } else if (state == expect_inside) {
      const std::string mark = "» ";
      if (expected && line.rfind(mark, 0) == 0)
        expected->push_back({shown_name + ":" + std::to_string(number), line.substr(mark.size()), block});
    } else {
      if (pending.empty()) start = number;
      const bool continued = !line.empty() && line.back() == '\\';
      pending += continued ? line.substr(0, line.size() - 1) : line;
      if (continued) continue;
      const auto first = pending.find_first_not_of(' ');
      if (first != std::string::npos && pending[first] != '#')
        out.push_back({shown_name + ":" + std::to_string(start), pending, block});
      pending.clear();
    }
  }
  return out;
}

std::vector<fs::path> documentation_files() {
  std::vector<fs::path> files = {fs::path(ABLATE_SOURCE_DIR) / "README.md"};
  for (const auto& entry : fs::directory_iterator(fs::path(ABLATE_SOURCE_DIR) / "docs"))
    if (entry.path().extension() == ".md") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

class DocCommands : public ablate::bench::testing::CommandTest {
 protected:
  // Runs one documented command in the test's directory (build/ablate and docs/models/ taken from
  // the source tree); returns the exit status and output.
  ablate::bench::testing::Outcome shell(std::string command) {
    const std::string program = "build/ablate";
    for (auto at = command.find(program); at != std::string::npos; at = command.find(program, at))
      command.replace(at, program.size(), ABLATE_BINARY), at += std::string(ABLATE_BINARY).size();
    const std::string models = "docs/models/", models_here = std::string(ABLATE_SOURCE_DIR) + "/docs/models/";
    for (auto at = command.find(models); at != std::string::npos; at = command.find(models, at))  // the docs' model files
      command.replace(at, models.size(), models_here), at += models_here.size();
    const fs::path out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    const std::string line = "cd '" + dir_.string() + "' && (" + command + ") >" + out.string() + " 2>" + err.string();
    const int status = std::system(line.c_str());
    ablate::bench::testing::Outcome o;
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    o.out = slurp(out);
    o.err = slurp(err);
    return o;
  }
};

TEST_F(DocCommands, EveryMarkedCommandRuns) {
  std::size_t count = 0, expectations = 0;
  bool readme_has_one = false;
  for (const fs::path& file : documentation_files()) {
    const std::string shown = fs::relative(file, ABLATE_SOURCE_DIR).string();
    std::vector<DocExpectation> expected;
    std::map<int, std::string> printed;  // per block, what its commands printed
    for (const DocCommand& c : marked_commands(file, shown, &expected)) {
      ++count;
      readme_has_one = readme_has_one || shown == "README.md";
      const auto o = shell(c.command);
      EXPECT_EQ(o.exit_code, 0) << c.where << ": `" << c.command << "` failed:\n" << o.err << o.out.substr(0, 2000);
      printed[c.block] += o.out;
    }
    for (const DocExpectation& e : expected) {
      ++expectations;
      EXPECT_NE(printed[e.block].find(e.line), std::string::npos)
          << e.where << ": expected output line '" << e.line << "' not printed; the commands printed:\n"
          << printed[e.block].substr(0, 4000);
    }
  }
  // The marks must be there: a test that finds nothing to run checks nothing.
  EXPECT_TRUE(readme_has_one) << "README.md has no <!-- doc-test --> block";
  EXPECT_GE(count, 8u) << "fewer documented commands are tested than the docs mark";
  EXPECT_GE(expectations, 12u) << "docs/tour.md's lessons mark fewer expected lines than they did";
}

TEST_F(DocCommands, EveryRunFlagOfTheDocsExists) {
  const std::string help = ablate("run --help").out;
  ASSERT_FALSE(help.empty());
  const std::string text = slurp(fs::path(ABLATE_SOURCE_DIR) / "docs" / "running.md");
  const std::regex flag("--[a-z][a-z0-9-]*");
  std::set<std::string> flags;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), flag); it != std::sregex_iterator(); ++it)
    flags.insert(it->str());
  EXPECT_GE(flags.size(), 30u);
  for (const std::string& f : flags)
    EXPECT_TRUE(std::regex_search(help, std::regex(f + "(?![a-z0-9-])")))
        << "docs/running.md names " << f << ", which `ablate run --help` does not list";
}

}  // namespace
