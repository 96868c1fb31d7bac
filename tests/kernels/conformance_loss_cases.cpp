// Conformance cases of softmax, log-softmax and the losses: row counts 1 and more, class
// counts from 1, ordinary logits and large ones (|x| up to 60, where a naive exp overflows
// in f32), every forward, backward and the returned loss value.
#include <sstream>

#include "conformance.h"

namespace ablate::kernels::test {

std::vector<Case> loss_cases() {
  std::vector<Case> cases;
  Rng rng(0x1055);
  std::uint64_t seed = 6000;
  for (int i = 0; i < 12; ++i) {
    std::int64_t N = random_int(rng, 1, 9), K = i == 0 ? 1 : random_int(rng, 2, 12);
    double range = i % 4 == 3 ? 60.0 : 3.0;
    std::ostringstream name;
    name << "logits [" << N << ", " << K << "] in +-" << range;
    double k = double(K), n = double(N);
    Shape rows{N, K};
    cases.push_back({"softmax_forward", name.str(), seed++, [rows, range, k](OpRun& r) {
                       Tensor x = r.input(rows, -range, range), y = r.output(rows);
                       r.backend().softmax_forward(x, y);
                       r.keep("y", y, k);
                     }});
    cases.push_back({"log_softmax_forward", name.str(), seed++, [rows, range, k](OpRun& r) {
                       Tensor x = r.input(rows, -range, range), y = r.output(rows);
                       r.backend().log_softmax_forward(x, y);
                       r.keep("y", y, k);
                     }});
    cases.push_back({"log_softmax_backward", name.str(), seed++, [rows, k](OpRun& r) {
                       Tensor y = r.input(rows, -5.0, 0.0), dy = r.input(rows), dx = r.output(rows);
                       r.backend().log_softmax_backward(y, dy, dx);
                       r.keep("dx", dx, k);
                     }});
    cases.push_back({"softmax_xent_forward", name.str(), seed++, [rows, range, k, n](OpRun& r) {
                       Tensor logits = r.input(rows, -range, range), labels = r.labels(rows[0], rows[1]);
                       Tensor prob = r.output(rows);
                       double loss = r.backend().softmax_xent_forward(logits, labels, prob);
                       r.keep("prob", prob, k);
                       r.keep_scalar("loss", loss, k * n);
                     }});
    cases.push_back({"softmax_xent_backward", name.str(), seed++, [rows, n](OpRun& r) {
                       Tensor prob = r.input(rows, 0.0, 1.0), labels = r.labels(rows[0], rows[1]);
                       Tensor dlogits = r.output(rows);
                       r.backend().softmax_xent_backward(prob, labels, 1.0 / n, dlogits);
                       r.keep("dlogits", dlogits);
                     }});
    cases.push_back({"nll_forward", name.str(), seed++, [rows, n](OpRun& r) {
                       Tensor logp = r.input(rows, -8.0, 0.0), labels = r.labels(rows[0], rows[1]);
                       r.keep_scalar("loss", r.backend().nll_forward(logp, labels), n);
                     }});
    cases.push_back({"nll_backward", name.str(), seed++, [rows, n](OpRun& r) {
                       Tensor labels = r.labels(rows[0], rows[1]), dlogp = r.output(rows);
                       r.backend().nll_backward(labels, 0.5 / n, dlogp);
                       r.keep("dlogp", dlogp);
                     }});
  }
  return cases;
}

}  // namespace ablate::kernels::test
