// Conformance cases of LRN across channels: window sizes 1, 3, 5 and 9 (TF's cifar10 radius
// 4), channel counts below, at and above the window, Caffe's and TF's constants and a strong
// alpha, forward and backward.
#include <sstream>

#include "conformance.h"

namespace ablate::kernels::test {

std::vector<Case> lrn_cases() {
  std::vector<Case> cases;
  Rng rng(0x1A2);
  std::uint64_t seed = 5000;
  const LrnParams settings[] = {
      {5, 1e-4, 0.75, 1.0},          // Caffe's defaults (AlexNet, cifar10_full)
      {9, 0.001, 0.75, 1.0},         // TF cifar10: radius 4, alpha 0.001 / 9 * 9
      {3, 0.8, 0.6, 1.5},            // strong: normalisation dominates
      {1, 0.5, 0.9, 2.0},            // window of one channel
      {5, 2.0, 0.75, 1.0},
  };
  for (const LrnParams& p : settings)
    for (int i = 0; i < 4; ++i) {
      // The last shape has the channel count of TF's cifar10 LRN layers (64).
      Shape shape{random_int(rng, 1, 3), i == 3 ? 64 : random_int(rng, 1, 11), random_int(rng, 1, 6),
                  random_int(rng, 1, 6)};
      std::ostringstream name;
      name << "size " << p.size << ", alpha " << p.alpha << ", beta " << p.beta << ", k " << p.k << ", x "
           << shape_string(shape);
      double window = p.size;
      cases.push_back({"lrn_forward", name.str(), seed++, [p, shape, window](OpRun& r) {
                         Tensor x = r.input(shape, -2.0, 2.0), y = r.output(shape), workspace;
                         r.backend().lrn_forward(x, y, workspace, p);
                         r.keep("y", y, window);
                       }});
      cases.push_back({"lrn_backward", name.str(), seed++, [p, shape, window](OpRun& r) {
                         Tensor x = r.input(shape, -2.0, 2.0), y = r.output(shape), workspace;
                         r.backend().lrn_forward(x, y, workspace, p);
                         Tensor dy = r.input(shape), dx = r.output(shape);
                         r.backend().lrn_backward(x, y, dy, workspace, dx, p);
                         r.keep("dx", dx, window);
                       }});
    }
  return cases;
}

}  // namespace ablate::kernels::test
