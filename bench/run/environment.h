// The environment recorded with every result (DESIGN.md, Conventions): CPU model, cores,
// backend and library versions, thread settings, BLAS environment variables, compiler,
// build type and git revision; and how the OpenMP threads wait (wait_policy.h: wait_policy,
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

}  // namespace ablate::bench::run
