// The forward pass of a checked model in the static graph (see forward_runner.h), run as
// StaticEngine runs its evaluation graph: variables in a VariableStore, one Session.
#include "graph/static/forward_runner.h"

#include <stdexcept>

#include "graph/static/model_builder.h"
#include "graph/static/session.h"
#include "models/parameters.h"

namespace ablate::graph::static_graph {

kernels::Tensor run_forward(const models::CheckedModel& model, kernels::Backend& backend, const kernels::Tensor& x,
                            const ForwardOptions& options) {
  if (x.ndim() != 4 || x.dim(0) < 1 || model.input_shape(x.dim(0)) != x.shape())
    throw std::invalid_argument("forward of model '" + model.name() + "' (" + model.spec().source + "): input " +
                                x.describe() + " does not fit the model's input " +
                                kernels::shape_string(model.input_shape(x.numel() > 0 && x.ndim() > 0 ? x.dim(0) : 1)));
  const std::int64_t batch = x.dim(0);
  ModelGraph m = build_model_graph(model, batch, options.dtype, Phase::test);
  VariableStore store;
  for (const auto& p : models::make_initial_parameters(model.spec(), options.dtype, options.seed))
    store.assign(p.name, p.value, backend);
  for (const auto& s : models::make_initial_state(model.spec(), options.dtype)) store.assign(s.name, s.value, backend);
  kernels::Tensor host(m.graph.type(m.output).shape, options.dtype);
  if (m.output.node == m.x.node) {  // a model whose layers are all the identity here (test-phase dropout)
    host.copy_from(x);
    return host;
  }
  m.graph.fetches = {m.output};
  Session session(std::move(m.graph), backend, store, SessionOptions{});
  session.feed("x", x);
  session.feed("labels", kernels::Tensor({batch}, kernels::DType::i32));
  session.run({});
  const kernels::Tensor& y = session.fetch(0);
  if (y.device() == kernels::Device::cpu) {
    host.copy_from(y);
  } else {
    kernels::Tensor staged(y.shape(), y.dtype());
    backend.copy(y, staged);
    host.copy_from(staged);
  }
  return host;
}

}  // namespace ablate::graph::static_graph
