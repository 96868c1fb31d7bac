// Conformance cases of the optimizer updates: Caffe SGD (momentum, weight decay), Torch SGD
// (first step, momentum, dampening, Nesterov, weight decay) and Adam (t = 1 and later),
// three steps each so the state carries over; compares w and the optimizer state, not g
// (which an update may overwrite).
#include <sstream>

#include "conformance.h"

namespace ablate::kernels::test {

std::vector<Case> optimizer_cases() {
  std::vector<Case> cases;
  std::uint64_t seed = 9000;
  const Shape shapes[] = {{13}, {4, 3, 5, 5}};
  for (const Shape& s : shapes) {
    const std::string dims = shape_string(s);
    for (CaffeSgdParams p : {CaffeSgdParams{0.01, 0.0, 0.0}, CaffeSgdParams{0.01, 0.9, 5e-4}}) {
      std::ostringstream name;
      name << dims << ", lr " << p.lr << ", momentum " << p.momentum << ", wd " << p.weight_decay << ", 3 steps";
      cases.push_back({"caffe_sgd_update", name.str(), seed++, [s, p](OpRun& r) {
                         Tensor w = r.input(s), history = r.input(s, -0.1, 0.1);
                         for (int step = 0; step < 3; ++step) {
                           Tensor g = r.input(s);
                           r.backend().caffe_sgd_update(w, g, history, p);
                         }
                         r.keep("w", w);
                         r.keep("history", history);
                       }});
    }
    for (TorchSgdParams p : {TorchSgdParams{0.05, 0.0, 0.0, 0.0, false, false},
                             TorchSgdParams{0.01, 0.9, 0.1, 1e-3, false, false},
                             TorchSgdParams{0.01, 0.9, 0.0, 0.0, true, false}}) {
      std::ostringstream name;
      name << dims << ", lr " << p.lr << ", momentum " << p.momentum << ", dampening " << p.dampening << ", wd "
           << p.weight_decay << (p.nesterov ? ", nesterov" : "") << ", first step then 2";
      cases.push_back({"torch_sgd_update", name.str(), seed++, [s, p](OpRun& r) {
                         Tensor w = r.input(s), velocity = r.output(s);
                         for (int step = 0; step < 3; ++step) {
                           TorchSgdParams q = p;
                           q.first_step = step == 0;
                           Tensor g = r.input(s);
                           r.backend().torch_sgd_update(w, g, velocity, q);
                         }
                         r.keep("w", w);
                         r.keep("velocity", velocity);
                       }});
    }
    for (std::int64_t t0 : {1, 40}) {
      std::ostringstream name;
      name << dims << ", Adam lr 1e-3 from t " << t0 << ", 3 steps";
      cases.push_back({"adam_update", name.str(), seed++, [s, t0](OpRun& r) {
                         // From t = 1 the moments start at zero, later from some history.
                         Tensor w = r.input(s), m = r.input(s, -0.1, 0.1), v = r.input(s, 0.0, 0.1);
                         if (t0 == 1) {
                           m = r.place(Tensor(s, r.dtype()));  // two tensors: copies share storage
                           v = r.place(Tensor(s, r.dtype()));
                         }
                         for (std::int64_t t = t0; t < t0 + 3; ++t) {
                           Tensor g = r.input(s);
                           r.backend().adam_update(w, g, m, v, AdamParams{1e-3, 0.9, 0.999, 1e-8, t});
                         }
                         r.keep("w", w);
                         r.keep("m", m);
                         r.keep("v", v);
                       }});
    }
  }
  return cases;
}

}  // namespace ablate::kernels::test
