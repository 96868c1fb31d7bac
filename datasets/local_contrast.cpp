// Torch7's SpatialContrastiveNormalization on one plane (see local_contrast.h).
#include "datasets/local_contrast.h"

#include <cmath>
#include <numeric>

namespace ablate::datasets {

namespace {

// out = A(in): rows filtered with k, then columns, zero outside the plane (Torch's
// SpatialZeroPadding + SpatialConvolutionMap(1 x size) + SpatialConvolution(size x 1)).
void separable_average(const double* in, int h, int w, const std::vector<double>& k, std::vector<double>& tmp,
                       double* out) {
  const int size = static_cast<int>(k.size()), half = size / 2;
  tmp.assign(static_cast<std::size_t>(h) * w, 0.0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double s = 0;
      for (int b = 0; b < size; ++b) {
        const int xx = x + b - half;
        if (xx >= 0 && xx < w) s += k[b] * in[y * w + xx];
      }
      tmp[static_cast<std::size_t>(y) * w + x] = s;
    }
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      double s = 0;
      for (int a = 0; a < size; ++a) {
        const int yy = y + a - half;
        if (yy >= 0 && yy < h) s += k[a] * tmp[static_cast<std::size_t>(yy) * w + x];
      }
      out[y * w + x] = s;
    }
}

}  // namespace

std::vector<double> torch_gaussian1d(int size) {
  std::vector<double> g(static_cast<std::size_t>(size));
  const double centre = size / 2.0 + 0.5, sigma = 0.25 * size;
  for (int i = 1; i <= size; ++i) {
    const double t = (i - centre) / sigma;
    g[static_cast<std::size_t>(i - 1)] = std::exp(-(t * t) / 2);
  }
  return g;
}

void spatial_contrastive_normalization(const double* in, int h, int w, const std::vector<double>& kernel,
                                       double* out, double threshold) {
  const double total = std::accumulate(kernel.begin(), kernel.end(), 0.0);
  std::vector<double> k(kernel);
  for (double& v : k) v /= total;
  const std::size_t n = static_cast<std::size_t>(h) * w;
  std::vector<double> tmp, coef(n), mean(n), z(n), local(n);
  const std::vector<double> ones(n, 1.0);
  separable_average(ones.data(), h, w, k, tmp, coef.data());
  separable_average(in, h, w, k, tmp, mean.data());
  for (std::size_t j = 0; j < n; ++j) z[j] = in[j] - mean[j] / coef[j];
  std::vector<double> z2(n);
  for (std::size_t j = 0; j < n; ++j) z2[j] = z[j] * z[j];
  separable_average(z2.data(), h, w, k, tmp, local.data());
  for (std::size_t j = 0; j < n; ++j) {
    double s = std::sqrt(local[j]) / coef[j];
    if (!(s > threshold)) s = threshold;
    out[j] = z[j] / s;
  }
}

}  // namespace ablate::datasets
