// Shared machinery of ablate_micro: one "op case" (a named op on fixed shapes, with its FLOP
// count per call) is registered as one Google Benchmark per backend, with the thread count
// (1, 2) as the benchmark argument. The timed loop, the FLOP/s and peak-fraction counters
// and the random inputs live here so each op family file only states shapes and calls.
#pragma once

#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernels/backend.h"
#include "kernels/tensor.h"

namespace ablate::micro {

// One call of the op under test, with its tensors already bound.
using OpRunner = std::function<void()>;
// Allocates the op's tensors on `backend` and returns the call (run once per iteration).
using OpFactory = std::function<OpRunner(kernels::Backend& backend)>;

struct OpCase {
  std::string name;   // "conv/lenet_conv1/forward": family/shape/pass
  double flops = 0;   // per call; 0 for ops without a FLOP count (no FLOP/s counter)
  OpFactory make;
  double bytes = 0;   // bytes read and written per call, counted once per tensor pass; 0: no bytes/s counter
  bool blocked = false;  // takes channel-blocked or channels-last tensors: only backends with a
                         // channel block (kernels::Backend::channel_block) run it
};

// Cases with more FLOPs than this skip the (slow) reference backend unless asked for.
constexpr double kReferenceFlopLimit = 50e6;

// Whether the reference backend runs heavy cases too: --micro_reference on the command line
// (removed from argv by main) or ABLATE_MICRO_REFERENCE=1 in the environment.
void set_include_reference(bool include);
bool include_reference();

// The backends of kernels::backend_names() that can be made here (a CUDA backend without a
// GPU cannot), with their library versions; each one that cannot is named on stderr once.
const std::vector<std::pair<std::string, std::string>>& usable_backends();

// Registers `op` as "<op.name>/<backend>/threads:{1,2}" for every usable backend (that runs
// blocked tensors, for a blocked op). Counters: FLOP/s (rate) and peak_frac (achieved over the
// probe's peak at that thread count) when op.flops > 0; bytes_per_second and `bytes` (per call) when op.bytes > 0.
void register_case(const OpCase& op);

// The layout every 4-D tensor of a case is in (kernels/tensor.h): NCHW, channels-last (one
// block of all C) or the backend's channel block (nChw16c with AVX-512); the last two are
// blocked cases (OpCase::blocked).
enum class CaseLayout { nchw, nhwc, blocked };
constexpr CaseLayout kCaseLayouts[] = {CaseLayout::nchw, CaseLayout::nhwc, CaseLayout::blocked};
// The channel block of `layout` for `channels` channels on `backend` (0: NCHW).
int case_block(CaseLayout layout, std::int64_t channels, const kernels::Backend& backend);
// "" (NCHW), "_nhwc", "_blocked": the suffix of a case's shape name.
const char* case_layout_suffix(CaseLayout layout);

// Tensors on the backend's device: uniform in [-1, 1) (host backends) from a fixed-seed
// generator; labels i32 uniform in [0, classes). Non-host backends get constant values.
class TensorMaker {
 public:
  explicit TensorMaker(kernels::Backend& backend, std::uint32_t seed = 42) : backend_(backend), rng_(seed) {}
  kernels::Tensor random(const kernels::Shape& shape);
  kernels::Tensor zeros(const kernels::Shape& shape);
  kernels::Tensor labels(std::int64_t n, int classes);

 private:
  kernels::Backend& backend_;
  std::mt19937 rng_;
};

// The op families, each in its own file; main calls them once.
void register_conv_benchmarks();
void register_conv_map_benchmarks();
void register_pool_benchmarks();
void register_lrn_benchmarks();
void register_linear_benchmarks();
void register_softmax_benchmarks();
void register_gemm_benchmarks();
void register_fused_benchmarks();
void register_update_benchmarks();
void register_conv_epilogue_benchmarks();
void register_residual_benchmarks();

}  // namespace ablate::micro
