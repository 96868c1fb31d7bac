// Helpers of the sweep, paper and report tests: a fresh temporary directory per test and the
// ablate program run through the shell with its stdout, stderr and exit status captured.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace ablate::bench::testing {

struct Outcome {
  int exit_code = -1;
  std::string out, err;
};

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The first line of a file: a results file's first record.
inline std::string first_line(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::string line;
  std::getline(in, line);
  return line;
}

class CommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("ablate-" + std::to_string(::getpid()) + "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  Outcome ablate(const std::string& args) { return ablate_with_env("", args); }
  // The same with environment assignments ("NAME=value ...") before the program.
  Outcome ablate_with_env(const std::string& env, const std::string& args) {
    auto out = dir_ / "stdout.txt", err = dir_ / "stderr.txt";
    int status = std::system((env + (env.empty() ? "" : " ") + ABLATE_BINARY + " " + args + " >" + out.string() + " 2>" + err.string()).c_str());
    Outcome o;
    o.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    o.out = slurp(out);
    o.err = slurp(err);
    return o;
  }
  std::filesystem::path dir_;
};

}  // namespace ablate::bench::testing

#define EXPECT_HAS(haystack, needle) \
  EXPECT_NE((haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in:\n" << (haystack)
