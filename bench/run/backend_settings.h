// The backend side of a run, in one place: which math backend, at how many threads, asked for
// bit-identical runs or not, and the one function that builds it. Resolution fills it from
// flags and presets (run_config.cpp); the assembly (prepared_run.cpp) builds the backend here.
//
// SEAM for the backends' own switches (issue 14, item 3): kernels/ is replacing the
// environment variables ABLATE_CONV_MODE and ABLATE_ONEDNN_CONV_LAYOUT with a typed
// kernels::BackendOptions. When it lands:
//   1. add `kernels::BackendOptions options;` to BackendSettings below;
//   2. in run_config.cpp, apply_preset / apply_flags / check: one line each per switch (a preset
//      key and a flag, e.g. conv_mode / --conv-mode; run_flags.cpp lists the flag and its help);
//   3. pass `settings.options` to the kernels' factory in make_backend() below;
//   4. record it: result_record.cpp's config_json (beside "backend" and "threads"), and the
//      fingerprint of snapshots (run_snapshot.cpp) if a switch changes the numbers.
// Nothing else in bench/ reads backend switches.
#pragma once

#include <memory>
#include <string>

#include "kernels/backend.h"

namespace ablate::bench::run {

struct BackendSettings {
  std::string name;            // reference, eigen, openblas, onednn, cuda (kernels/registry.h)
  int threads = 1;             // intra-op threads for OpenMP, the BLAS and oneDNN
  bool deterministic = false;  // --deterministic: an error if the backend cannot promise it
};

// Checks the name against the build's backends; throws naming `where` and listing them.
void check_backend_name(const std::string& name, const std::string& where);
// The backend with its threads applied and, if asked, its deterministic choices made; throws
// "--deterministic: backend 'B' cannot promise bit-identical runs (VERSION)" when it cannot.
std::unique_ptr<kernels::Backend> make_backend(const BackendSettings& settings);

}  // namespace ablate::bench::run
