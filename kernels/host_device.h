// ABLATE_HOST_DEVICE: marks the plain C++ formulas (gelu_math.h, activation_formulas.h) that
// nvcc also compiles for the device; empty for the host compiler.
#pragma once

#ifdef __CUDACC__
#define ABLATE_HOST_DEVICE __host__ __device__
#else
#define ABLATE_HOST_DEVICE
#endif
