// Forward of the modules of several inputs (see table_modules.h).
#include "graph/dynamic/table_modules.h"

#include "graph/dynamic/module_factory.h"
#include "graph/dynamic/ops.h"

namespace ablate::graph::dynamic {

Variable AddModule::forward(const std::vector<Variable>& xs, const ForwardContext&) {
  if (xs.size() < 2) fail("given " + std::to_string(xs.size()) + " inputs; it adds two or more");
  return add(xs);
}

Variable ConcatModule::forward(const std::vector<Variable>& xs, const ForwardContext&) {
  if (xs.size() < 2) fail("given " + std::to_string(xs.size()) + " inputs; it joins two or more");
  return concat(xs);
}

ABLATE_DYNAMIC_MODULE(add, module_maker<AddModule>());
ABLATE_DYNAMIC_MODULE(concat, module_maker<ConcatModule>());

}  // namespace ablate::graph::dynamic
