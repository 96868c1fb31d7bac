// The backend side of a run, in one place: which math backend, at how many threads, asked for
// bit-identical runs or not, and the one function that builds it. Resolution fills it from
// flags and presets (run_config.cpp); the assembly (prepared_run.cpp) builds the backend here.
//
// The backend's own switches are kernels::BackendOptions (kernels/backend_options.h): threads,
// the CPU backends' convolution mode, oneDNN's convolution layout, determinism. Each is a flag
// and a preset key (run_config.cpp), recorded in the record's config and in a snapshot's
// fingerprint; nothing in bench/ reads an environment variable for them.
#pragma once

#include <memory>
#include <string>

#include "kernels/backend.h"
#include "kernels/backend_options.h"

namespace ablate::bench::run {

struct BackendSettings {
  std::string name;                 // reference, eigen, openblas, onednn, cuda (kernels/registry.h)
  kernels::BackendOptions options;  // threads, conv_mode/lowering/threading, onednn_conv_layout, pool_gradient, deterministic
};

// Checks the name against the build's backends; throws naming `where` and listing them.
void check_backend_name(const std::string& name, const std::string& where);
// The backend made with its options (kernels::make_backend); with `deterministic` it makes its
// deterministic choices or throws "--deterministic: ..." naming the backend.
std::unique_ptr<kernels::Backend> make_backend(const BackendSettings& settings);

}  // namespace ablate::bench::run
