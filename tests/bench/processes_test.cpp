// How ablate starts other programs and writes shared files: without a shell (posix_spawn with
// an argument vector, so a quote or a space in a path passes as it is), through unique
// temporaries (two `compare` runs at once in one folder leave whole files), and the wait
// policy's re-executed process keeps the name `ablate` in ps and top.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/experiments/peer_process.h"
#include "bench/experiments/spawned_program.h"
#include "bench/run/text_file.h"
#include "command_runner.h"

namespace fs = std::filesystem;
using namespace ablate::bench::experiments;
using ablate::bench::testing::slurp;

namespace {

using Processes = ablate::bench::testing::CommandTest;

// Starts ablate ARGS in `cwd` with stdout and stderr to `log`; returns its pid.
pid_t start_ablate(const std::vector<std::string>& args, const fs::path& cwd, const fs::path& log) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(cwd.c_str()) != 0) ::_exit(126);
    const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<std::string> all = {ABLATE_BINARY};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::unsetenv("OMP_WAIT_POLICY");  // ablate's own wait policy, which re-executes the process
    ::unsetenv("GOMP_SPINCOUNT");
    ::execv(ABLATE_BINARY, argv.data());
    ::_exit(127);
  }
  return pid;
}

int exit_code_of(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A PNG that was written to its end: the signature first and the IEND chunk last.
bool whole_png(const fs::path& p) {
  const std::string bytes = slurp(p);
  return bytes.size() > 20 && bytes.compare(0, 4, "\x89PNG") == 0 && bytes.compare(bytes.size() - 8, 4, "IEND") == 0;
}

}  // namespace

TEST(SpawnedProgram, PassesEveryArgumentAsItIsWithoutAShell) {
  const ProgramOutput o = run_program({"/usr/bin/printf", "%s|", "it's", "a b", "$(echo no)", "*", "\"q\""});
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.output, "it's|a b|$(echo no)|*|\"q\"|");
  EXPECT_NE(o.command.find("'it'\\''s'"), std::string::npos) << "the command, for messages, quotes as a shell would: " << o.command;
}

TEST(SpawnedProgram, AddsVariablesOverTheEnvironmentAndBringsBackTheExitCode) {
  ::setenv("ABLATE_SPAWN_TEST", "old", 1);
  const ProgramOutput o = run_program({"/usr/bin/env"}, split_variables("ABLATE_SPAWN_TEST=new OTHER_SPAWN_TEST=2"));
  ::unsetenv("ABLATE_SPAWN_TEST");
  EXPECT_NE(o.output.find("ABLATE_SPAWN_TEST=new\n"), std::string::npos) << o.output;
  EXPECT_EQ(o.output.find("ABLATE_SPAWN_TEST=old"), std::string::npos) << "replaced, not doubled:\n" << o.output;
  EXPECT_NE(o.output.find("OTHER_SPAWN_TEST=2\n"), std::string::npos);
  EXPECT_EQ(run_program({"/bin/false"}).exit_code, 1);
  EXPECT_EQ(run_program({"/bin/sh", "-c", "echo out; echo err >&2; exit 4"}).output, "out\nerr\n") << "stderr joins stdout";
}

TEST_F(Processes, OutputGoesToAFileWhosePathHasAQuote) {
  const fs::path dir = dir_ / "it's here";
  fs::create_directories(dir);
  const ProgramOutput o = run_program({"/usr/bin/printf", "%s", "done"}, {}, (dir / "out.log").string());
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.output, "");
  EXPECT_EQ(slurp(dir / "out.log"), "done");
  // The peer's model file goes into the caller's own directory, quote and all.
  const std::string model = model_file_for_peer("lenet", dir.string());
  EXPECT_EQ(fs::path(model).parent_path(), dir);
  EXPECT_NE(slurp(model).find("conv"), std::string::npos);
}

TEST(SpawnedProgram, AMissingProgramIsAnErrorNamingIt) {
  try {
    run_program({"/no/such/python3", "x.py"});
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/python3"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(python_has_module("/no/such/python3", "sys"));
  EXPECT_THROW(run_program({}), std::invalid_argument);
}

TEST_F(Processes, TextFilesGoThroughAUniqueTemporary) {
  const std::string path = (dir_ / "a.txt").string();
  std::vector<std::thread> writers;
  for (int w = 0; w < 4; ++w)
    writers.emplace_back([&, w] {
      for (int i = 0; i < 50; ++i) ablate::bench::run::write_text_file(path, std::string(10000, static_cast<char>('a' + w)), "test");
    });
  for (auto& t : writers) t.join();
  const std::string text = slurp(path);
  ASSERT_EQ(text.size(), 10000u);
  EXPECT_EQ(text, std::string(10000, text[0])) << "one writer's text, whole";
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir_)) files += e.path().filename().string().rfind("a.txt", 0) == 0;
  EXPECT_EQ(files, 1u) << "no temporary left beside a.txt";
}

TEST_F(Processes, TwoComparesAtOnceInOneFolderLeaveWholeFiles) {
  const fs::path report = dir_ / "it's a report";  // a quote in the path, passed to the plot script as it is
  const std::vector<std::string> args = {"compare", "--dataset", "synthetic", "--frameworks", "caffe,torch", "--scale", "0.001",
                                         "--threads", "1", "--quiet", "--test-iterations", "1", "--out", "runs.jsonl", "--report", report.filename().string()};
  const pid_t a = start_ablate(args, dir_, dir_ / "a.log"), b = start_ablate(args, dir_, dir_ / "b.log");
  EXPECT_EQ(exit_code_of(a), 0) << slurp(dir_ / "a.log");
  EXPECT_EQ(exit_code_of(b), 0) << slurp(dir_ / "b.log");
  std::ifstream runs(dir_ / "runs.jsonl");
  int lines = 0;
  for (std::string line; std::getline(runs, line); ++lines) EXPECT_NO_THROW(nlohmann::json::parse(line)) << line;
  EXPECT_EQ(lines, 4) << "two frameworks from each run, one whole line each";
  const std::string md = slurp(report / "report.md");
  EXPECT_NE(md.find("| caffe | completed |"), std::string::npos) << md;
  EXPECT_NE(md.find("| torch | completed |"), std::string::npos) << md;
  EXPECT_NO_THROW(nlohmann::json::parse(slurp(report / "compare.json")));
  for (const auto& e : fs::directory_iterator(report)) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name == "report.md" || name == "compare.json" || name == "plots.log" || name == "index.html" ||
                e.path().extension() == ".png")
        << "a temporary left behind: " << name;
    if (e.path().extension() == ".png") {
      EXPECT_TRUE(whole_png(e.path())) << name;
    }
  }
  if (md.find("Plots skipped") == std::string::npos) {
    EXPECT_TRUE(fs::exists(report / "compare_accuracy_vs_time.png")) << md;
  } else {
    EXPECT_NE(md.find("matplotlib is not installed"), std::string::npos) << "plots skipped for another reason:\n" << md;
  }
}

TEST_F(Processes, TheReexecutedProcessKeepsTheNameAblate) {
  // ablate's default wait policy re-executes a training command once (bench/run/wait_policy.h);
  // the marker it sets is in the new image's /proc/PID/environ from its first instruction on.
  const pid_t pid = start_ablate({"run", "--dataset", "synthetic", "--backend", "reference", "--iterations", "100000",
                                  "--batch", "8", "--quiet"},
                                 dir_, dir_ / "run.log");
  const fs::path proc = fs::path("/proc") / std::to_string(pid);
  std::string comm;
  for (int i = 0; i < 2000 && comm.empty(); ++i) {
    if (slurp(proc / "environ").find("ABLATE_WAIT_POLICY_APPLIED=") != std::string::npos) comm = slurp(proc / "comm");
    else std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(pid, SIGKILL);
  exit_code_of(pid);
  ASSERT_FALSE(comm.empty()) << "the run was not re-executed within 20 s:\n" << slurp(dir_ / "run.log");
  EXPECT_EQ(comm, fs::path(ABLATE_BINARY).filename().string() + "\n") << "ps and top show this name";
}
