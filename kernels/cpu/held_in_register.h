// For loops written with GCC vector extensions (conv_few_channels.cpp, tiled_gemm.cpp).
#pragma once

namespace ablate::kernels::cpu {

// Keeps a loaded vector in a register: without it GCC folds the load into every FMA that uses
// it (a memory operand each time), and a register tile, which reuses each load several times,
// becomes load-bound.
template <class V> inline V held_in_register(V v) {
#if defined(__GNUC__) && defined(__AVX512VL__)
  asm("" : "+v"(v));
#elif defined(__GNUC__) && defined(__AVX__)
  asm("" : "+x"(v));
#endif
  return v;
}

}  // namespace ablate::kernels::cpu
