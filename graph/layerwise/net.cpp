// Net construction (blobs, in-place decisions, set-up), forward, backward and parameter
// sharing (see net.h).
#include "graph/layerwise/net.h"

#include <map>
#include <stdexcept>

#include "graph/layerwise/layer_factory.h"
#include "kernels/op_label.h"
#include "models/layer_params.h"

namespace ablate::graph::layerwise {

Net::~Net() = default;

Blob* Net::make_blob(const std::string& name, kernels::DType dtype, bool with_diff) {
  blobs_.push_back(std::make_unique<Blob>(name, dtype, backend_.allocator(), with_diff));
  return blobs_.back().get();
}

void Net::check_batch_size(std::int64_t batch) const {
  if (batch <= 0)
    throw std::invalid_argument("net of model '" + model_.name() + "': batch size " + std::to_string(batch) +
                                "; expected a positive count");
}

Net::Net(const models::CheckedModel& model, kernels::Backend& backend, const NetOptions& options)
    : model_(model), backend_(backend), options_(options) {
  check_batch_size(options.batch);
  batch_ = options.batch;
  input_ = make_blob("data", options.dtype, true);
  input_->reshape(model_.input_shape(batch_));
  labels_ = make_blob("label", kernels::DType::i32, false);
  labels_->reshape({batch_});

  const std::size_t count = model_.size();
  layer_output_.resize(count);
  bottoms_.resize(count);
  tops_.resize(count);
  propagate_down_.resize(count);
  std::map<int, std::size_t> reader;
  for (std::size_t i = 0; i < count; ++i) add_layer(i, reader);
  loss_layer_ = count - 1;
  collect_parameters();
}

// Creates layer i, connects it to its input blob (in place where its type allows and its
// producer's backward does not read the output it would overwrite, as Caffe's prototxts
// write ReLU and Dropout) and sets it up. `reader` maps each output (-1: the model input)
// to the layer that reads it: the layer-wise net runs chains (Caffe would insert a Split
// layer for a blob read twice).
void Net::add_layer(std::size_t i, std::map<int, std::size_t>& reader) {
  const models::LayerSpec& ls = model_.layer(i);
  const models::LayerType& type = model_.type(i);
  auto layer = make_layer(ls, type, backend_, options_.dtype);
  const int input = model_.input(i);
  if (auto it = reader.find(input); it != reader.end())
    throw std::invalid_argument(layer->where() + ": input '" +
                                (input < 0 ? std::string("<model input>") : model_.layer(input).name) +
                                "' is already read by layer '" + model_.layer(it->second).name +
                                "'; the layerwise strategy runs a chain of layers (one reader per output)");
  reader[input] = i;

  Blob* bottom = input < 0 ? input_ : layer_output_[static_cast<std::size_t>(input)];
  std::vector<Blob*> bottoms{bottom}, tops;
  if (type.loss) {
    bottoms.push_back(labels_);
  } else {
    // In place unless that would overwrite the model input or output data that the
    // producer's backward still reads.
    const bool in_place = type.in_place && input >= 0 && !model_.type(static_cast<std::size_t>(input)).backward_reads_output;
    tops.push_back(in_place ? bottom : make_blob(ls.name, options_.dtype, true));
    layer_output_[i] = tops[0];
  }
  layer->setup(bottoms, tops);
  propagate_down_[i] = bottom != input_ || options_.force_backward;
  bottoms_[i] = std::move(bottoms);
  tops_[i] = std::move(tops);
  layers_.push_back(std::move(layer));
}

void Net::collect_parameters() {
  parameters_.clear();
  state_.clear();
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    Layer& layer = *layers_[i];
    for (std::size_t b = 0; b < layer.blobs().size(); ++b) {
      const std::string& suffix = layer.blob_suffixes()[b];
      const models::ParamSettings settings = models::param_settings(layer.spec(), suffix);
      parameters_.push_back({layer.name() + "." + suffix, layer.blobs()[b], settings.lr_mult, settings.decay_mult});
    }
    for (std::size_t b = 0; b < layer.state_blobs().size(); ++b)
      state_.push_back({layer.name() + "." + layer.state_suffixes()[b], layer.state_blobs()[b]});
  }
}

void Net::reshape(std::int64_t batch) {
  check_batch_size(batch);
  if (batch == batch_) return;
  batch_ = batch;
  input_->reshape(model_.input_shape(batch));
  labels_->reshape({batch});
  for (std::size_t i = 0; i < layers_.size(); ++i) layers_[i]->reshape(bottoms_[i], tops_[i]);
}

Blob& Net::scores() { return *bottoms_[loss_layer_][0]; }

Blob& Net::blob(const std::string& layer_name) {
  for (std::size_t i = 0; i < layers_.size(); ++i)
    if (layers_[i]->name() == layer_name) {
      if (!layer_output_[i]) throw std::invalid_argument("layer '" + layer_name + "' is a loss and has no output blob");
      return *layer_output_[i];
    }
  throw std::invalid_argument("model '" + model_.name() + "' has no layer '" + layer_name + "'");
}

double Net::forward(std::int64_t iteration, std::uint64_t seed) {
  const LayerContext context{options_.phase, iteration, seed, options_.first_sample};
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const kernels::OpLabelScope label({"forward", layers_[i]->name(), layers_[i]->type()});
    layers_[i]->forward(bottoms_[i], tops_[i], context);
  }
  return layers_[loss_layer_]->loss();
}

void Net::backward() {
  for (std::size_t i = layers_.size(); i-- > 0;) {
    const kernels::OpLabelScope label({"backward", layers_[i]->name(), layers_[i]->type()});
    layers_[i]->backward(tops_[i], propagate_down_[i], bottoms_[i]);
  }
}

namespace {

// Copies named initial values (models::InitialParameter or InitialState) into the net's
// blobs of the same names, order and shapes; `what` names them in errors.
template <class Initial, class Target>
void copy_initial(const std::string& model, const char* what, const std::vector<Initial>& initial,
                  const std::vector<Target>& targets, kernels::Backend& backend) {
  if (initial.size() != targets.size())
    throw std::invalid_argument("model '" + model + "': " + std::to_string(initial.size()) + " initial " + what +
                                " for a net of " + std::to_string(targets.size()));
  for (std::size_t i = 0; i < initial.size(); ++i) {
    const Target& t = targets[i];
    const Initial& init = initial[i];
    if (init.name != t.name || init.value.shape() != t.blob->shape())
      throw std::invalid_argument("model '" + model + "': initial " + what + " " + std::to_string(i) + " is " +
                                  init.name + " " + kernels::shape_string(init.value.shape()) + "; the net expects " +
                                  t.name + " " + kernels::shape_string(t.blob->shape()));
    if (t.blob->data().device() == kernels::Device::cpu)
      t.blob->data().copy_from(init.value);
    else
      backend.copy(init.value, t.blob->data());
  }
}

}  // namespace

void Net::set_parameters(const std::vector<models::InitialParameter>& initial) {
  copy_initial(model_.name(), "parameters", initial, parameters_, backend_);
}

void Net::set_state(const std::vector<models::InitialState>& initial) {
  copy_initial(model_.name(), "state", initial, state_, backend_);
}

void Net::share_parameters(const Net& source) {
  if (source.layers_.size() != layers_.size() || source.parameters_.size() != parameters_.size())
    throw std::invalid_argument("cannot share the parameters of a net of " + std::to_string(source.layers_.size()) +
                                " layers with one of " + std::to_string(layers_.size()));
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const std::pair<std::vector<std::shared_ptr<Blob>>*, const std::vector<std::shared_ptr<Blob>>*> kinds[] = {
        {&layers_[i]->blobs(), &source.layers_[i]->blobs()},
        {&layers_[i]->state_blobs(), &source.layers_[i]->state_blobs()}};
    for (const auto& [mine, theirs] : kinds) {
      if (mine->size() != theirs->size())
        throw std::invalid_argument("layer '" + layers_[i]->name() + "': blob counts differ between the nets");
      for (std::size_t b = 0; b < mine->size(); ++b) {
        const Blob& from = *(*theirs)[b];
        const Blob& to = *(*mine)[b];
        if (to.shape() != from.shape() || to.dtype() != from.dtype())
          throw std::invalid_argument("layer '" + layers_[i]->name() + "': cannot share blob " + from.name() + " " +
                                      kernels::shape_string(from.shape()) + " with " + kernels::shape_string(to.shape()));
        (*mine)[b] = (*theirs)[b];
      }
    }
  }
  collect_parameters();
}

}  // namespace ablate::graph::layerwise
