// One SGDSolver iteration over the shared Optimizer (see solver.h).
#include "graph/layerwise/solver.h"

#include "graph/optim/divergence_error.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ablate::graph::layerwise {

Solver::Solver(Net& net, const OptimizerConfig& config, kernels::Backend& backend, std::uint64_t seed)
    : net_(net), optimizer_(config, backend), seed_(seed) {
  if (net.phase() != Phase::train) throw std::invalid_argument("a solver needs a net built for the train phase");
  for (const NetParameter& p : net.parameters())
    parameters_.push_back({p.name, p.blob->data(), p.blob->diff(), p.lr_mult, p.decay_mult});
  for (Parameter& p : parameters_) pointers_.push_back(&p);
}

double Solver::step(std::int64_t iteration) {
  if (iteration < 0)
    throw std::invalid_argument("train step at iteration " + std::to_string(iteration) + "; expected an iteration >= 0");
  const double loss = net_.forward(iteration, seed_);
  check_finite_loss(loss, iteration);
  net_.backward();
  optimizer_.step(pointers_, iteration);
  return loss;
}

}  // namespace ablate::graph::layerwise
