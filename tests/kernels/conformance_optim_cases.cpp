// Conformance cases of the optimizer updates: Caffe SGD (momentum, weight decay), Torch SGD
// (first step, momentum, dampening, Nesterov, weight decay) and Adam (t = 1 and later),
// three steps each so the state carries over; compares w and the optimizer state, not g
// (which an update may overwrite). And the weight gradient folded into each update
// (linear_backward_weights_update): one band and several (25,000 inputs: 4 rows a band on the
// CPU backends), with and without the bias gradient, two steps, and a NaN in x counted.
#include <cmath>
#include <sstream>
#include <utility>
#include <variant>
#include <vector>

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
  const struct {
    std::int64_t n, in, out;
    bool bias;
  } layers[] = {{5, 37, 11, true}, {3, 25000, 9, false}};
  const std::pair<const char*, UpdateParams> updates[] = {
      {"caffe_sgd momentum 0.9 wd 5e-4", CaffeSgdParams{0.01, 0.9, 5e-4}},
      {"torch_sgd nesterov wd 1e-3", TorchSgdParams{0.01, 0.9, 0.0, 1e-3, true, true}},
      {"adam from t 1", AdamParams{1e-3, 0.9, 0.999, 1e-8, 1}},
      {"adam from t 40", AdamParams{1e-3, 0.9, 0.999, 1e-8, 40}}};
  for (const auto& l : layers)
    for (const auto& [what, p] : updates) {
      std::ostringstream name;
      name << "x [" << l.n << ", " << l.in << "], " << l.out << " outputs" << (l.bias ? " and bias" : "") << ", " << what
           << ", 2 steps";
      cases.push_back({"linear_backward_weights_update", name.str(), seed++, [l, p](OpRun& r) {
                         const Shape ws{l.out, l.in};
                         Tensor w = r.input(ws), dbias = l.bias ? r.output({l.out}) : Tensor();
                         std::vector<Tensor> state;
                         for (std::size_t k = 0; k < update_state_count(p); ++k) state.push_back(r.input(ws, 0.0, 0.1));
                         std::vector<Tensor*> slots;
                         for (Tensor& t : state) slots.push_back(&t);
                         for (int step = 0; step < 2; ++step) {
                           UpdateParams q = p;
                           if (auto* torch = std::get_if<TorchSgdParams>(&q)) torch->first_step = step == 0;
                           if (auto* adam = std::get_if<AdamParams>(&q)) adam->t += step;
                           Tensor x = r.input({l.n, l.in}), dy = r.input({l.n, l.out});
                           r.keep_scalar("non-finite", static_cast<double>(r.backend().linear_backward_weights_update(
                                                           x, dy, w, slots, dbias, q, true)));
                         }
                         r.keep("w", w);
                         for (std::size_t k = 0; k < state.size(); ++k) r.keep("state " + std::to_string(k), state[k]);
                         if (l.bias) r.keep("dbias", dbias);
                       }});
    }
  // A NaN in one input column: that column of dw is NaN in every row, all of them counted.
  cases.push_back({"linear_backward_weights_update", "x [4, 30] with one NaN, 6 outputs, adam", seed++, [](OpRun& r) {
                     Tensor host({4, 30}, r.dtype());
                     for (std::int64_t i = 0; i < host.numel(); ++i) host.set(i, 0.01 * static_cast<double>(i % 17));
                     host.set(37, std::nan(""));
                     Tensor x = r.place(host), dy = r.input({4, 6}), w = r.input({6, 30});
                     Tensor m = r.input({6, 30}, 0.0, 0.1), v = r.input({6, 30}, 0.0, 0.1), none;
                     std::vector<Tensor*> slots{&m, &v};
                     r.keep_scalar("non-finite", static_cast<double>(r.backend().linear_backward_weights_update(
                                                     x, dy, w, slots, none, AdamParams{}, true)));
                   }});
  return cases;
}

}  // namespace ablate::kernels::test
