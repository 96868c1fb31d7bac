// Gives a Backend by name ("reference", "eigen", "openblas", "onednn", "cuda" when built),
// made with typed options (backend_options.h), and says which backend takes which option.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "kernels/backend_options.h"

namespace ablate::kernels {

// Names of the backends compiled into this build, in a stable order.
std::vector<std::string> backend_names();
// The host math libraries a speed comparison chooses among: every backend of the build but the
// reference loops (a correctness oracle) and the GPU.
std::vector<std::string> cpu_speed_backend_names();
// The options `backend` takes (threads, pool_gradient and deterministic: every backend;
// conv_mode, conv_lowering, threading: eigen, openblas, onednn; onednn_conv_layout: onednn).
// An unknown name throws listing the known ones.
std::vector<BackendOption> backend_options_of(const std::string& backend);
// The backends that take `option`, in registry order.
std::vector<std::string> backends_taking(BackendOption option);
// The conv_lowering values `backend` takes, its default first (empty: it takes none).
std::vector<cpu::ConvLowering> conv_lowerings_of(const std::string& backend);
// What is wrong with `option` as `options` sets it for `backend`, or "" when nothing is: an
// option the backend does not take, a lowering it does not run, a threading the lowering does
// not run under, conv_mode beside conv_lowering or threading. Names the option, its value, the
// backend and what would be taken:
//   "onednn_conv_layout 'nhwc' is an option of the onednn backend, not of 'openblas'"
//   "conv_lowering 'eigen_spatial' is not a lowering of the 'openblas' backend (it takes ...)"
std::string option_problem(const std::string& backend, const BackendOptions& options, BackendOption option);
// Throws std::invalid_argument when `backend` is unknown (listing the known ones), when
// threads < 1, or with the first option_problem of the options `options` sets.
void check_backend_options(const std::string& backend, const BackendOptions& options);
// A new backend made with `options` (checked as above); with options.deterministic it has
// switched to its deterministic choices, or the call throws saying why it cannot.
std::unique_ptr<Backend> make_backend(const std::string& name, const BackendOptions& options);
// make_backend(name, {threads}) with every other option at its default.
std::unique_ptr<Backend> make_backend(const std::string& name, int threads = 1);

}  // namespace ablate::kernels
