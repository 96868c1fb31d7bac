// TensorFlow's ExponentialMovingAverage of the weights (see weight_average.h), on Backend ops.
#include "graph/optim/weight_average.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace ablate::graph {

WeightAverage::WeightAverage(double decay, kernels::Backend& backend) : decay_(decay), backend_(backend) {
  if (!(decay > 0 && decay <= 1))
    throw std::invalid_argument("weight average decay " + std::to_string(decay) + ": expected a number in (0, 1]");
}

double WeightAverage::effective_decay(std::int64_t num_updates) const {
  const double t = static_cast<double>(num_updates);
  return std::min(decay_, (1 + t) / (10 + t));
}

void WeightAverage::begin(const std::vector<Parameter*>& params) {
  shadows_.clear();
  saved_.clear();
  for (const Parameter* p : params) {
    kernels::Tensor shadow(p->value.shape(), p->value.dtype(), &backend_.allocator());
    backend_.copy(p->value, shadow);
    shadows_.push_back(std::move(shadow));
    saved_.emplace_back(p->value.shape(), p->value.dtype(), &backend_.allocator());
  }
}

void WeightAverage::check(const std::vector<Parameter*>& params, const char* what) const {
  if (params.size() != shadows_.size())
    throw std::logic_error(std::string("weight average ") + what + ": " + std::to_string(params.size()) +
                           " parameters, " + std::to_string(shadows_.size()) + " shadows (begin() not called?)");
}

void WeightAverage::update(const std::vector<Parameter*>& params, std::int64_t num_updates) {
  check(params, "update");
  const double d = effective_decay(num_updates);
  for (std::size_t i = 0; i < params.size(); ++i) backend_.axpby(1 - d, params[i]->value, d, shadows_[i]);
}

WeightAverage::Swap::Swap(WeightAverage& average, const std::vector<Parameter*>& params)
    : average_(average), params_(params) {
  average_.check(params_, "swap");
  for (std::size_t i = 0; i < params_.size(); ++i) {
    average_.backend_.copy(params_[i]->value, average_.saved_[i]);
    average_.backend_.copy(average_.shadows_[i], params_[i]->value);
  }
}

WeightAverage::Swap::~Swap() {
  for (std::size_t i = 0; i < params_.size(); ++i) average_.backend_.copy(average_.saved_[i], params_[i]->value);
}

}  // namespace ablate::graph
