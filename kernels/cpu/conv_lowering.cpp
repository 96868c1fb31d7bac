// Names of the lowerings and threadings, and their resolution into a ConvSetup (conv_lowering.h).
#include "kernels/cpu/conv_lowering.h"

#include <stdexcept>

namespace ablate::kernels::cpu {
namespace {

template <class E, class Name> std::string joined_names(const std::vector<E>& values, Name name) {
  std::string out;
  for (E v : values) out += (out.empty() ? "" : ", ") + std::string(name(v));
  return out;
}

template <class E, class Name>
E parse_name(const std::string& text, const std::vector<E>& values, Name name, const char* what) {
  for (E v : values)
    if (text == name(v)) return v;
  throw std::invalid_argument(std::string(what) + " '" + text + "' is not known; expected one of " +
                              joined_names(values, name));
}

bool is_gemm(ConvLowering l) {
  return l == ConvLowering::per_image_gemm || l == ConvLowering::batched_gemm || l == ConvLowering::omp_per_image ||
         l == ConvLowering::tiled_gemm;
}

}  // namespace

const char* conv_lowering_name(ConvLowering lowering) {
  switch (lowering) {
    case ConvLowering::per_image_gemm: return "per_image_gemm";
    case ConvLowering::batched_gemm: return "batched_gemm";
    case ConvLowering::eigen_spatial: return "eigen_spatial";
    case ConvLowering::direct: return "direct";
    case ConvLowering::omp_per_image: return "omp_per_image";
    case ConvLowering::tiled_gemm: return "tiled_gemm";
  }
  return "?";
}

const char* threading_name(Threading threading) {
  switch (threading) {
    case Threading::library: return "library";
    case Threading::openmp_images: return "openmp_images";
    case Threading::openmp_frames: return "openmp_frames";
    case Threading::intra_inter: return "intra_inter";
  }
  return "?";
}

std::vector<ConvLowering> all_conv_lowerings() {
  return {ConvLowering::per_image_gemm, ConvLowering::batched_gemm, ConvLowering::eigen_spatial, ConvLowering::direct,
          ConvLowering::omp_per_image, ConvLowering::tiled_gemm};
}

std::vector<Threading> all_threadings() {
  return {Threading::library, Threading::openmp_images, Threading::openmp_frames, Threading::intra_inter};
}

ConvLowering parse_conv_lowering(const std::string& name) {
  return parse_name(name, all_conv_lowerings(), conv_lowering_name, "convolution lowering");
}

Threading parse_threading(const std::string& name) {
  return parse_name(name, all_threadings(), threading_name, "threading model");
}

std::vector<Threading> threadings_of(ConvLowering lowering) {
  switch (lowering) {
    case ConvLowering::per_image_gemm: return {Threading::library, Threading::openmp_images, Threading::openmp_frames};
    case ConvLowering::batched_gemm: return {Threading::library, Threading::openmp_images};
    case ConvLowering::eigen_spatial: return {Threading::intra_inter};
    case ConvLowering::direct: return {Threading::library};
    case ConvLowering::omp_per_image: return {Threading::openmp_images};
    case ConvLowering::tiled_gemm: return {Threading::openmp_images};
  }
  return {};
}

GemmLoops gemm_loops_of(ConvMode mode) {
  switch (mode) {
    case ConvMode::per_image: return {false, Threading::library};
    case ConvMode::batched: return {true, Threading::library};
    case ConvMode::omp_per_image: return {false, Threading::openmp_images};
    case ConvMode::omp_batched: return {true, Threading::openmp_images};
  }
  return {};
}

std::optional<ConvMode> conv_mode_of(const GemmLoops& loops) {
  for (ConvMode m : {ConvMode::per_image, ConvMode::batched, ConvMode::omp_per_image, ConvMode::omp_batched})
    if (gemm_loops_of(m) == loops) return m;
  return std::nullopt;
}

ConvSetup resolve_conv_setup(ConvLowering backend_default, std::optional<ConvMode> conv_mode,
                             std::optional<ConvLowering> lowering, std::optional<Threading> threading) {
  if (conv_mode && (lowering || threading))
    throw std::invalid_argument(std::string("conv_mode '") + conv_mode_name(*conv_mode) +
                                "' is the older switch for a conv_lowering and a threading: give conv_mode or those, "
                                "not both");
  ConvSetup s;
  s.loops = gemm_loops_of(conv_mode.value_or(default_conv_mode()));
  // A threading alone applies to the backend's GEMM lowering, per image.
  ConvLowering asked = lowering.value_or(backend_default);
  if (!lowering && threading && backend_default == ConvLowering::omp_per_image) asked = ConvLowering::per_image_gemm;
  if (!lowering && conv_mode && is_gemm(backend_default))
    asked = s.loops.batched ? ConvLowering::batched_gemm : ConvLowering::per_image_gemm;
  const std::vector<Threading> allowed = threadings_of(asked);
  Threading chosen = conv_mode && is_gemm(asked) ? s.loops.threading : threading.value_or(allowed.front());
  bool ok = false;
  for (Threading t : allowed) ok = ok || t == chosen;
  if (!ok)
    throw std::invalid_argument(std::string("threading '") + threading_name(chosen) + "' does not apply to conv_lowering '" +
                                conv_lowering_name(asked) + "' (it runs under " + joined_names(allowed, threading_name) +
                                ")");
  s.threading = chosen;
  s.lowering = asked == ConvLowering::omp_per_image ? ConvLowering::per_image_gemm : asked;
  s.few_channels = asked == ConvLowering::omp_per_image;
  if (is_gemm(asked)) s.loops = {asked == ConvLowering::batched_gemm, chosen};
  return s;
}

}  // namespace ablate::kernels::cpu
