// The environment recorded with every result (DESIGN.md, Conventions): CPU model, cores,
// backend and library versions, thread settings, BLAS environment variables, compiler,
// build type and git revision.
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
