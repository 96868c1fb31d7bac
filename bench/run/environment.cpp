// Capture of the machine and build facts that go into every result record.
#include "bench/run/environment.h"
#include "bench/run/wait_policy.h"
#include "kernels/huge_pages.h"
#include "kernels/registry.h"
#include "git_revision.h"  // generated at build time: ABLATE_GIT_REVISION

#include <algorithm>
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
  env.values["compiled_for"] = compiled_for();
  env.values["git_revision"] = ABLATE_GIT_REVISION;
  add_wait_policy(env.values);  // how the OpenMP threads wait, and why
  env.values["transparent_huge_pages"] = kernels::transparent_huge_pages_mode();  // the kernel's setting
  return env;
}

std::string compiled_for() { return ABLATE_COMPILED_FOR; }

std::string openblas_core_warning(const std::string& version, bool avx512, bool avx2) {
  const auto at = version.find("; core ");  // "OpenBLAS 0.3.21 (...; core Prescott; ...)"
  if (at == std::string::npos) return "";
  const std::string core = version.substr(at + 7, version.find(';', at + 7) - at - 7);
  // OpenBLAS's x86 cores without AVX kernels, the fallbacks of DYNAMIC_ARCH.
  static const char* const before_avx[] = {"Prescott", "Core2", "Penryn", "Dunnington", "Nehalem", "Atom",
                                           "Opteron", "Opteron(SSE3)", "Barcelona", "Nano"};
  const bool old_core = std::any_of(std::begin(before_avx), std::end(before_avx), [&](const char* c) { return core == c; });
  if (!old_core || !(avx512 || avx2)) return "";
  return "OpenBLAS runs its " + core + " kernels (no AVX) on a CPU with " + (avx512 ? "AVX-512" : "AVX2") + ": " +
         version.substr(0, version.find(" (")) + " does not know this CPU. OPENBLAS_CORETYPE=" + (avx512 ? "SkylakeX" : "Haswell") +
         " picks newer kernels; ablate leaves it unset, and its openblas rows are slower than they could be";
}

std::string openblas_core_warning() {
  const auto names = kernels::backend_names();
  if (std::find(names.begin(), names.end(), "openblas") == names.end()) return "";
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f"), avx2 = __builtin_cpu_supports("avx2");
#else
  const bool avx512 = false, avx2 = false;
#endif
  return openblas_core_warning(kernels::make_backend("openblas")->library_version(), avx512, avx2);
}

}  // namespace ablate::bench::run
