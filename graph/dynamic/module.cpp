// Module base: parameters and the error prefix shared by every module (see module.h).
#include "graph/dynamic/module.h"

#include <stdexcept>

namespace ablate::graph::dynamic {

Module::Module(const models::LayerSpec& spec, std::vector<Variable> parameters)
    : spec_(spec), parameters_(std::move(parameters)) {}

Variable Module::forward(const std::vector<Variable>& xs, const ForwardContext& context) {
  if (xs.size() != 1) fail("given " + std::to_string(xs.size()) + " inputs; it takes one");
  return forward(xs[0], context);
}

Variable Module::forward(const Variable&, const ForwardContext&) {
  fail("given one input; it takes several (a list of inputs)");
}

std::string Module::where() const { return spec_.where(); }

void Module::fail(const std::string& what) const { spec_.fail(what); }

void Module::expect_parameters(std::size_t count) const {
  if (parameters_.size() != count)
    fail("given " + std::to_string(parameters_.size()) + " parameters; expected " + std::to_string(count));
}

}  // namespace ablate::graph::dynamic
