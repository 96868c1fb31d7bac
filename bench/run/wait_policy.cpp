// The threads' waiting policy and its one re-execution (wait_policy.h).
#include "bench/run/wait_policy.h"

#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "bench/run/text_format.h"

namespace ablate::bench::run {

const char* const kWaitPolicyMarker = "ABLATE_WAIT_POLICY_APPLIED";

namespace {

constexpr const char* kUserVariables[] = {"OMP_WAIT_POLICY", "GOMP_SPINCOUNT"};

WaitPolicyChoice& chosen() {
  static WaitPolicyChoice choice;
  return choice;
}

std::string getenv_or_empty(const char* name) {
  const char* value = std::getenv(name);
  return value ? value : "";
}

// The user's own waiting variables ("OMP_WAIT_POLICY=passive GOMP_SPINCOUNT=10"), "" for none.
std::string user_variables() {
  std::vector<std::string> set;
  for (const char* name : kUserVariables)
    if (!getenv_or_empty(name).empty()) set.push_back(std::string(name) + "=" + getenv_or_empty(name));
  return join(set, " ");
}

std::string variables_text(const WaitPolicy& policy) {
  std::vector<std::string> set;
  for (const auto& [name, value] : wait_policy_variables(policy)) set.push_back(name + "=" + value);
  return join(set, " ");
}

std::string policy_note(const WaitPolicy& policy, const std::string& source) {
  const std::string why = source == "--wait-policy" ? "asked for with --wait-policy: " : "ablate's default: ";
  switch (policy.kind) {
    case WaitKind::spin:
      return why + "libgomp's own waiting, 300,000 spins before sleeping (fastest alone, collapses when another "
                   "process holds a core)";
    case WaitKind::passive:
      return why + "threads sleep at once at a barrier (graceful under load, slower alone)";
    case WaitKind::bounded:
      return why + "threads spin " + std::to_string(policy.spin_count) +
             " times, then sleep (docs/benchmarks.md: most of the quiet speed, no collapse under load)";
  }
  return why;
}

// The last --wait-policy value in argv after the command's name; "" when none.
std::string flag_in_argv(int argc, char** argv) {
  std::string value;
  const std::string name = "--wait-policy", prefix = name + "=";
  for (int i = 2; i < argc; ++i) {
    const std::string word = argv[i];
    if (word == "--") break;
    if (word == name && i + 1 < argc) value = argv[++i];
    else if (word.rfind(prefix, 0) == 0) value = word.substr(prefix.size());
  }
  return value;
}

// After the re-execution: the marker "POLICY|SOURCE|NAME=VALUE ..." names what the parent set.
// The variables are checked (a marker without them is not trusted) and removed with the marker.
// The path of this program's file (readlink /proc/self/exe); "" when it was removed or renamed
// since it started (a rebuild: "... (deleted)").
std::string own_path() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "";
  const std::string path(buf, static_cast<std::size_t>(n));
  return ::access(path.c_str(), X_OK) == 0 ? path : "";
}

// The name ps and top show, kept as the program's file name when the image came through
// /proc/self/exe after all (the kernel names the process after the path it executed).
void keep_process_name(const char* argv0) {
  char comm[17] = {};
  if (::prctl(PR_GET_NAME, comm) != 0 || std::string(comm) != "exe" || !argv0) return;
  const std::string name = std::filesystem::path(argv0).filename().string();
  if (!name.empty() && name != "exe") ::prctl(PR_SET_NAME, name.substr(0, 15).c_str());
}

void adopt_marker(const std::string& marker) {
  WaitPolicyChoice& c = chosen();
  const auto bar1 = marker.find('|'), bar2 = marker.find('|', bar1 == std::string::npos ? 0 : bar1 + 1);
  bool consistent = bar1 != std::string::npos && bar2 != std::string::npos;
  if (consistent) {
    c.policy = marker.substr(0, bar1);
    c.source = marker.substr(bar1 + 1, bar2 - bar1 - 1);
    c.variables = marker.substr(bar2 + 1);
    std::istringstream assignments(c.variables);
    for (std::string assignment; assignments >> assignment;) {
      const auto eq = assignment.find('=');
      if (eq == std::string::npos || getenv_or_empty(assignment.substr(0, eq).c_str()) != assignment.substr(eq + 1)) {
        consistent = false;
        continue;
      }
      ::unsetenv(assignment.substr(0, eq).c_str());
    }
  }
  ::unsetenv(kWaitPolicyMarker);
  if (!consistent) {
    c = {"unknown", "not chosen", user_variables(),
         std::string("the environment held a malformed ") + kWaitPolicyMarker + "='" + marker +
             "'; ablate did not choose (libgomp read the environment as it was)"};
    return;
  }
  try {
    c.note = policy_note(parse_wait_policy(c.policy, kWaitPolicyMarker), c.source);
  } catch (const std::invalid_argument&) {
    c.note = "set by a parent ablate";
  }
  c.reexecuted = true;
}

}  // namespace

WaitPolicy parse_wait_policy(const std::string& text, const std::string& what) {
  WaitPolicy p;
  if (text == "spin") p.kind = WaitKind::spin;
  else if (text == "passive") p.kind = WaitKind::passive;
  else if (text == "bounded") p.kind = WaitKind::bounded;
  else if (text.rfind("bounded:", 0) == 0) {
    const std::string count = text.substr(8);
    const bool digits = !count.empty() && count.size() <= 12 && count.find_first_not_of("0123456789") == std::string::npos;
    if (!digits)
      throw std::invalid_argument(what + " " + text + ": expected bounded:N with N a whole number of spins >= 0");
    p.spin_count = std::stoll(count);
  } else {
    throw std::invalid_argument(what + " " + text + ": expected spin, passive, bounded or bounded:N");
  }
  return p;
}

std::string wait_policy_name(const WaitPolicy& p) {
  switch (p.kind) {
    case WaitKind::spin: return "spin";
    case WaitKind::passive: return "passive";
    case WaitKind::bounded: return "bounded:" + std::to_string(p.spin_count);
  }
  return "?";
}

std::vector<std::pair<std::string, std::string>> wait_policy_variables(const WaitPolicy& p) {
  switch (p.kind) {
    case WaitKind::spin: return {};
    case WaitKind::passive: return {{"OMP_WAIT_POLICY", "passive"}};
    case WaitKind::bounded: return {{"GOMP_SPINCOUNT", std::to_string(p.spin_count)}};
  }
  return {};
}

void apply_wait_policy(int argc, char** argv, const std::vector<std::string>& training_commands) {
  if (const char* marker = std::getenv(kWaitPolicyMarker)) {  // the re-executed image: never again
    adopt_marker(marker);
    keep_process_name(argc > 0 ? argv[0] : nullptr);
    return;
  }
  WaitPolicyChoice& c = chosen();
  bool trains = false;
  for (const auto& name : training_commands) trains = trains || (argc > 1 && name == argv[1]);
  if (!trains) return;  // "not chosen": list, report, graph, --help keep libgomp's default
  const std::string flag = flag_in_argv(argc, argv);
  const std::string user = user_variables();
  if (!user.empty()) {
    c = {user, "user environment", user,
         "the user's " + user + " (libgomp obeys it; ablate sets nothing)"};
    if (!flag.empty()) {
      c.note += "; --wait-policy " + flag + " ignored";
      std::fprintf(stderr, "ablate: --wait-policy %s ignored: the environment sets %s, which libgomp obeys\n",
                   flag.c_str(), user.c_str());
    }
    return;
  }
  WaitPolicy policy;
  try {
    if (!flag.empty()) policy = parse_wait_policy(flag, "--wait-policy");
  } catch (const std::invalid_argument&) {
    return;  // the command's own option check reports it
  }
  const std::string source = flag.empty() ? "ablate's default" : "--wait-policy";
  c = {wait_policy_name(policy), source, variables_text(policy), policy_note(policy, source)};
  if (policy.kind == WaitKind::spin) return;

  for (const auto& [name, value] : wait_policy_variables(policy)) ::setenv(name.c_str(), value.c_str(), 1);
  const std::string marker = c.policy + "|" + c.source + "|" + c.variables;
  ::setenv(kWaitPolicyMarker, marker.c_str(), 1);
  std::fflush(stdout);
  std::fflush(stderr);
  // Through the program's own path, so that ps and top still show its name (a re-execution of
  // /proc/self/exe would be shown as "exe"); /proc/self/exe only when that path is gone.
  const std::string self = own_path();
  if (!self.empty()) ::execv(self.c_str(), argv);
  ::execv("/proc/self/exe", argv);
  const int err = errno;  // still here: run on with libgomp's default, and say so
  ::unsetenv(kWaitPolicyMarker);
  for (const auto& [name, value] : wait_policy_variables(policy)) ::unsetenv(name.c_str());
  c = {"spin", source, "", "wanted " + c.policy + " but could not re-execute /proc/self/exe (" + std::strerror(err) +
                               "): libgomp's own waiting applies"};
}

WaitPolicyChoice wait_policy_choice() {
  const WaitPolicyChoice& c = chosen();
  if (!c.source.empty()) return c;
  const std::string user = user_variables();
  if (!user.empty()) return {user, "user environment", user, "the environment's " + user + " (not started through ablate's main)"};
  return {"spin", "not chosen", "", "libgomp's own waiting: this process did not choose (not a training command of ablate's main)"};
}

void add_wait_policy(std::map<std::string, std::string>& environment) {
  const WaitPolicyChoice c = wait_policy_choice();
  environment["wait_policy"] = c.policy;
  environment["wait_policy.source"] = c.source;
  environment["wait_policy.variables"] = c.variables;
  environment["wait_policy.note"] = c.note;
}

FlagSpec wait_policy_flag() {
  return {"wait-policy", "spin|passive|bounded[:N]",
          "how the OpenMP threads wait at a barrier (default bounded:" + std::to_string(kDefaultSpinCount) +
              "; the user's OMP_WAIT_POLICY or GOMP_SPINCOUNT win)"};
}

void check_wait_policy_flag(const Flags& args) {
  if (!args.has("wait-policy")) return;
  const std::string text = args.get("wait-policy");
  const WaitPolicy asked = parse_wait_policy(text, "--wait-policy");
  const WaitPolicyChoice c = wait_policy_choice();
  if (c.source == "--wait-policy" && c.policy != wait_policy_name(asked) && c.note.find("could not") == std::string::npos)
    throw std::logic_error("--wait-policy " + text + ": the process runs with " + c.policy +
                           " (ablate's main read the command line differently)");
}

}  // namespace ablate::bench::run
