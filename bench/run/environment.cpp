// Capture of the machine and build facts that go into every result record.
#include "bench/run/environment.h"
#include "bench/run/wait_policy.h"
#include "kernels/huge_pages.h"
#include "git_revision.h"  // generated at build time: ABLATE_GIT_REVISION

#include <cstdlib>
#include <fstream>
#include <thread>

namespace ablate::bench::run {

namespace {
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(' ', colon + 1));
    }
  }
  return "unknown";
}
}  // namespace

Environment capture_environment() {
  Environment env;
  env.values["cpu_model"] = cpu_model();
  env.values["logical_cores"] = std::to_string(std::thread::hardware_concurrency());
  // OPENBLAS_THREAD_TIMEOUT: how long OpenBLAS's pthreads spin after a product (docs/plan.md,
  // "Mixed plans"); MALLOC_MMAP_THRESHOLD_: glibc's threshold held, no longer dynamic.
  for (const char* var : {"OPENBLAS_NUM_THREADS", "OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_THREAD_TIMEOUT",
                          "MALLOC_MMAP_THRESHOLD_", "OMP_NUM_THREADS",
                          "OMP_WAIT_POLICY", "OMP_PROC_BIND", "GOMP_SPINCOUNT", "DNNL_MAX_CPU_ISA", "ONEDNN_MAX_CPU_ISA",
                          "GLIBC_TUNABLES"}) {
    const char* value = std::getenv(var);
    env.values[std::string("env.") + var] = value ? value : "";
  }
  env.values["compiler"] = ABLATE_COMPILER;
  env.values["build_type"] = ABLATE_BUILD_TYPE;
  env.values["git_revision"] = ABLATE_GIT_REVISION;
  add_wait_policy(env.values);  // how the OpenMP threads wait, and why
  env.values["transparent_huge_pages"] = kernels::transparent_huge_pages_mode();  // the kernel's setting
  return env;
}

}  // namespace ablate::bench::run
