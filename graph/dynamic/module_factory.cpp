// The table of layer types and their modules (see module_factory.h).
#include "graph/dynamic/module_factory.h"

#include <stdexcept>
#include <utility>

#include "graph/dynamic/function_modules.h"
#include "graph/dynamic/parameter_modules.h"

namespace ablate::graph::dynamic {
namespace {

using Maker = std::unique_ptr<Module> (*)(const models::LayerSpec&, std::vector<Variable>);

template <class M>
std::unique_ptr<Module> with_parameters(const models::LayerSpec& spec, std::vector<Variable> parameters) {
  return std::make_unique<M>(spec, std::move(parameters));
}

template <class M>
std::unique_ptr<Module> plain(const models::LayerSpec& spec, std::vector<Variable>) {
  return std::make_unique<M>(spec);
}

template <kernels::Activation A>
std::unique_ptr<Module> activation_module(const models::LayerSpec& spec, std::vector<Variable>) {
  return std::make_unique<ActivationModule>(spec, A);
}

template <LossModule::Kind K>
std::unique_ptr<Module> loss_module(const models::LayerSpec& spec, std::vector<Variable>) {
  return std::make_unique<LossModule>(spec, K);
}

const std::vector<std::pair<std::string, Maker>>& makers() {
  static const std::vector<std::pair<std::string, Maker>> table = {
      {"convolution", with_parameters<ConvolutionModule>},
      {"conv_map", with_parameters<ConvMapModule>},
      {"pooling", plain<PoolingModule>},
      {"inner_product", with_parameters<InnerProductModule>},
      {"bias", with_parameters<BiasModule>},
      {"relu", activation_module<kernels::Activation::relu>},
      {"tanh", activation_module<kernels::Activation::tanh>},
      {"sigmoid", activation_module<kernels::Activation::sigmoid>},
      {"lrn", plain<LrnModule>},
      {"dropout", plain<DropoutModule>},
      {"softmax_loss", loss_module<LossModule::Kind::softmax_cross_entropy>},
      {"log_softmax", plain<LogSoftmaxModule>},
      {"nll_loss", loss_module<LossModule::Kind::nll>},
  };
  return table;
}

Maker find_maker(const std::string& type) {
  for (const auto& [name, maker] : makers())
    if (name == type) return maker;
  return nullptr;
}

}  // namespace

std::vector<std::string> module_types() {
  std::vector<std::string> types;
  for (const auto& entry : makers()) types.push_back(entry.first);
  return types;
}

void check_module_type(const models::LayerSpec& spec) {
  if (find_maker(spec.type)) return;
  std::string known;
  for (const auto& type : module_types()) known += (known.empty() ? "" : ", ") + type;
  throw std::invalid_argument((spec.source.empty() ? "" : spec.source + ": ") + "layer '" + spec.name + "': type '" +
                              spec.type + "' has no module in the dynamic strategy (it has " + known + ")");
}

std::unique_ptr<Module> make_module(const models::LayerSpec& spec, std::vector<Variable> parameters) {
  check_module_type(spec);
  return find_maker(spec.type)(spec, std::move(parameters));
}

}  // namespace ablate::graph::dynamic
