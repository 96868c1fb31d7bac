// Local contrastive normalisation as Torch7's nn.SpatialContrastiveNormalization(1, kernel)
// computes it on one H x W plane (nn.SpatialSubtractiveNormalization, then
// nn.SpatialDivisiveNormalization, with a 1-D kernel applied along rows, then columns):
//   k       = kernel / sum(kernel)                          (nInputPlane = 1)
//   A(x)    = the separable filter k (x) k over x, zero padding of size/2 on every side
//   coef    = A(ones)                                        (the share of k inside the image)
//   z       = x - A(x) / coef
//   s       = sqrt(A(z^2)) / coef;  s = s > 1e-4 ? s : 1e-4  (nn.Threshold(1e-4, 1e-4))
//   out     = z / s
// Used by the Torch CIFAR-10 script with kernel image.gaussian1D(7) on the Y plane.
#pragma once

#include <vector>

namespace ablate::datasets {

// Torch's image.gaussian1D(size) with its defaults (sigma 0.25, amplitude 1, not normalised):
// g[i] = exp(-((i + 1 - centre) / (0.25 * size))^2 / 2), centre = size / 2 + 0.5, i = 0..size-1.
std::vector<double> torch_gaussian1d(int size);

// out[h*w] = the normalisation of in[h*w] (above) with `kernel` (odd length).
void spatial_contrastive_normalization(const double* in, int h, int w, const std::vector<double>& kernel,
                                       double* out, double threshold = 1e-4);

}  // namespace ablate::datasets
