// The onednn backend's identity, threads and GEMM (see onednn_backend_impl.h): an engine and
// a stream on CPU 0, dnnl_sgemm for f32 (row-major, as oneDNN's C API defines it) and
// OpenBLAS's cblas_dgemm for f64, which oneDNN 2.6 does not compute on CPU.
#include "kernels/onednn/onednn_backend_impl.h"

#include <cblas.h>
#include <omp.h>

#include <optional>
#include <stdexcept>
#include <string>

#include "kernels/onednn/conv_autotune.h"
#include "kernels/onednn/onednn_backend.h"
#include "kernels/shared_tuning.h"

namespace ablate::kernels {
namespace onednn {

namespace {

const char* isa_name(dnnl::cpu_isa isa) {
  switch (isa) {
    case dnnl::cpu_isa::sse41: return "sse41";
    case dnnl::cpu_isa::avx: return "avx";
    case dnnl::cpu_isa::avx2: return "avx2";
    case dnnl::cpu_isa::avx2_vnni: return "avx2_vnni";
    case dnnl::cpu_isa::avx512_mic: return "avx512_mic";
    case dnnl::cpu_isa::avx512_mic_4ops: return "avx512_mic_4ops";
    case dnnl::cpu_isa::avx512_core: return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni: return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16: return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx: return "avx512_core_amx";
    default: return "all";
  }
}

}  // namespace

OnednnBackend::OnednnBackend(OnednnOptions options, const cpu::ConvSetup& setup)
    : CpuBackend(setup), options_(options), engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {}

std::string OnednnBackend::library_version() const {
  const dnnl_version_t* v = dnnl_version();
  std::string text = "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
                     std::to_string(v->patch) + " (" + isa_name(dnnl::get_effective_cpu_isa()) + ", OpenMP";
  text += std::string("; conv layout ") + conv_layout_name(options_.conv_layout);
  text += options_.conv_forward_training ? ", forward_training" : ", forward_inference";
  text += "; shared loops " + cpu_settings();
  text += "; f64 falls back to shared loops + OpenBLAS dgemm)";
  return text;
}

bool OnednnBackend::make_deterministic() {
  if (options_.conv_layout == ConvLayout::autotune) {
    if (cache_.size() > 0) return false;  // layouts were already timed and chosen
    options_.conv_layout = ConvLayout::plain;
  }
  return true;
}

std::vector<std::pair<std::string, std::string>> OnednnBackend::choices() const {
  std::vector<std::pair<std::string, std::string>> out = CpuBackend::choices();
  out.emplace_back("conv_layout_setting", conv_layout_name(options_.conv_layout));
  for (const auto& [key, layout] : conv_layouts()) out.emplace_back("conv " + key, layout);
  return out;
}

std::string OnednnBackend::op_setup(Op op) const {
  if (op == Op::batch_norm_forward_training || op == Op::batch_norm_forward_inference || op == Op::batch_norm_backward)
    return "";
  return CpuBackend::op_setup(op);
}

// CpuBackend::set_threads has set OpenMP's count for this thread (oneDNN's primitives and
// dnnl_sgemm run on OpenMP); OpenBLAS (f64 dgemm) keeps its own pool, held to one thread only
// around f64 work (library_serves).
void OnednnBackend::set_library_threads(int threads) { blas_threads_.set(threads); }

// OpenMP's thread count is an attribute of the calling thread: a thread of a static graph's
// inter-op pool starts with the default (all cores) until told otherwise.
static void apply_threads(int threads) {
  if (omp_get_max_threads() != threads) omp_set_num_threads(threads);
}

void OnednnBackend::sgemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda,
                          const float* b, int ldb, float beta, float* c, int ldc) {
  apply_threads(threads_);
  dnnl_status_t status = dnnl_sgemm(trans_a ? 'T' : 'N', trans_b ? 'T' : 'N', m, n, k, alpha, a, lda, b, ldb,
                                    beta, c, ldc);
  if (status != dnnl_success)
    throw std::runtime_error("dnnl_sgemm(m=" + std::to_string(m) + ", n=" + std::to_string(n) + ", k=" +
                             std::to_string(k) + ") failed with status " + std::to_string(status));
}

void OnednnBackend::dgemm(bool trans_a, bool trans_b, int m, int n, int k, double alpha, const double* a,
                          int lda, const double* b, int ldb, double beta, double* c, int ldc) {
  blas_threads_.before_product();  // process-wide: another backend may have changed it
  cblas_dgemm(CblasRowMajor, trans_a ? CblasTrans : CblasNoTrans, trans_b ? CblasTrans : CblasNoTrans, m, n, k,
              alpha, a, lda, b, ldb, beta, c, ldc);
}

CachedPrimitive& OnednnBackend::primitive(CacheKey& key, const Builder& build) {
  apply_threads(threads_);
  // A primitive partitions its work for the thread count it was built with.
  key.add(threads_);
  return cache_.get(key, [&] {
    auto entry = std::make_unique<CachedPrimitive>();
    build(*entry);
    return entry;
  });
}

CachedPrimitive& OnednnBackend::conv_primitive(CacheKey& key, const ConvBuilder& build,
                                               std::initializer_list<Binding> bindings, bool blocked_tensors) {
  apply_threads(threads_);
  const ConvLayout layout = blocked_tensors ? ConvLayout::blocked : options_.conv_layout;
  key.add(threads_).add(static_cast<std::int64_t>(layout)).add(options_.conv_forward_training);
  return cache_.get(key, [&] {
    auto built = [&](ConvLayout l) {  // one layout's primitive, labelled with its name
      auto entry = std::make_unique<CachedPrimitive>();
      build(*entry, l);
      entry->label = conv_layout_name(l);
      return entry;
    };
    if (layout != ConvLayout::autotune) return built(layout);
    // A winner another backend timed for this key while a SharedTuning scope lives (the plan's
    // measurement): built alone, not timed again.
    const std::string shared_key = "onednn " + key.str();
    if (const std::optional<std::string> winner = SharedTuning::winner(shared_key))
      return built(parse_conv_layout(*winner));
    std::vector<std::unique_ptr<CachedPrimitive>> candidates;
    std::vector<std::string> names;
    for (ConvLayout l : {ConvLayout::plain, ConvLayout::nhwc, ConvLayout::blocked}) {
      candidates.push_back(built(l));
      names.push_back(conv_layout_name(l));
    }
    std::unique_ptr<CachedPrimitive> best = fastest(std::move(candidates), names, stream_, bindings);
    SharedTuning::record(shared_key, best->label);
    return best;
  });
}

dnnl::primitive_attr OnednnBackend::attr() const {
  dnnl::primitive_attr a;
  a.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return a;
}

}  // namespace onednn

std::vector<cpu::ConvLowering> onednn_conv_lowerings() {
  using L = cpu::ConvLowering;
  return {L::direct, L::omp_per_image, L::per_image_gemm, L::batched_gemm};
}

std::unique_ptr<Backend> make_onednn_backend(const BackendOptions& options) {
  onednn::OnednnOptions own;
  if (options.onednn_conv_layout) {
    // Timing the layouts is what makes autotune fast and what makes it differ between runs.
    if (options.deterministic && *options.onednn_conv_layout == onednn::ConvLayout::autotune)
      throw std::invalid_argument(
          "onednn_conv_layout 'autotune' chooses layouts by timing them, which deterministic rules out; choose "
          "plain, nhwc or blocked");
    own.conv_layout = *options.onednn_conv_layout;
  }
  auto backend = std::make_unique<onednn::OnednnBackend>(own, cpu::resolve_conv_setup(onednn_conv_lowerings().front(),
                                                                                     options.conv_mode,
                                                                                     options.conv_lowering,
                                                                                     options.threading));
  backend->set_threads(options.threads);
  return backend;
}

}  // namespace ablate::kernels
