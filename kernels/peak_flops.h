// FMA-throughput probe: the machine's measured single-precision peak, the denominator of
// every "peak_frac" counter in ablate_micro and of the model FLOP utilisation (MFU) that
// `ablate run` records. Independent chains of vector FMAs
// (AVX-512 when compiled for it, else AVX2+FMA, else scalar) hide the FMA latency so the
// loop runs at the FMA pipes' throughput; 1 FMA on L lanes counts 2*L flops.
#pragma once

#include <string>

namespace ablate::kernels {

struct PeakFlops {
  std::string isa;            // "avx512", "avx2" or "scalar": the code the probe ran
  double gflops_1t = 0.0;     // one thread
  double gflops_2t = 0.0;     // two OpenMP threads, each running its own chains
  double flops_for(int threads) const;  // FLOP/s for 1 or 2 threads (more: scaled from 2)
};

// Runs the probe (about 0.5 s): the best of many short runs per thread count.
PeakFlops measure_peak_flops();
// The higher of two readings at each thread count: another load on the machine only slows the
// probe, so of two readings around a measurement (before and after its rounds) the higher is the
// nearer the CPU's peak at its clock (a share over the lower one can exceed 100%).
PeakFlops higher_peak(const PeakFlops& a, const PeakFlops& b);
// FLOP/s of `threads` threads only, probing for about `seconds` (a training run's MFU).
double measure_peak_flops_at(int threads, double seconds = 0.1);

// The peak measured at start-up, which benchmarks divide by; set once by main.
void set_measured_peak(const PeakFlops& peak);
const PeakFlops& measured_peak();

}  // namespace ablate::kernels
