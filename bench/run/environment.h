// The environment recorded with every result (DESIGN.md, Conventions): CPU model, cores,
// backend and library versions, thread settings, BLAS environment variables, compiler,
// build type, what -march=native resolved to (compiled_for) and git revision; and how the OpenMP threads wait (wait_policy.h: wait_policy,
// wait_policy.source, wait_policy.variables, wait_policy.note). env.OMP_WAIT_POLICY and
// env.GOMP_SPINCOUNT hold what the user set; wait_policy.variables what libgomp read.
#pragma once

#include <map>
#include <string>

namespace ablate::bench::run {

struct Environment {
  std::map<std::string, std::string> values;  // key -> value, written as JSON strings
};

// Reads /proc/cpuinfo, the environment variables that steer BLAS and OpenMP
// (OPENBLAS_NUM_THREADS, OPENBLAS_CORETYPE, OPENBLAS_L2_SIZE, OMP_NUM_THREADS, ...) and the
// build's compiler, type and git revision.
Environment capture_environment();

// What -march=native resolved to at configure time ("-march=native: cooperlake, tuned generic"),
// the record's compiled_for.
std::string compiled_for();

// "" unless OpenBLAS (where built) runs kernels older than this CPU can: its DYNAMIC_ARCH takes a
// CPU it does not know for a Prescott (SSE3), as 0.3.21 does an Emerald Rapids Xeon. Then a
// warning that names the core and the OPENBLAS_CORETYPE values that pick newer kernels;
// ablate never sets it (the user's machine, the user's choice).
std::string openblas_core_warning();
// The same for an openblas backend's library_version() and the CPU's features.
std::string openblas_core_warning(const std::string& library_version, bool avx512, bool avx2);

}  // namespace ablate::bench::run
