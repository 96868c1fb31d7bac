// Net construction (blobs, in-place decisions, set-up), forward, backward and parameter
// sharing (see net.h).
#include "graph/layerwise/net.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "graph/layerwise/layer_factory.h"
#include "models/layer_params.h"

namespace ablate::graph::layerwise {

Net::~Net() = default;

Blob* Net::make_blob(const std::string& name, kernels::DType dtype, bool with_diff) {
  blobs_.push_back(std::make_unique<Blob>(name, dtype, backend_.allocator(), with_diff));
  return blobs_.back().get();
}

Net::Net(const models::ModelSpec& spec, kernels::Backend& backend, const NetOptions& options)
    : spec_(spec), backend_(backend), options_(options) {
  if (options.batch <= 0)
    throw std::invalid_argument("net of model '" + spec.name + "': batch size " + std::to_string(options.batch) +
                                "; expected a positive count");
  if (options.dtype != kernels::DType::f32 && options.dtype != kernels::DType::f64)
    throw std::invalid_argument(std::string("net of model '") + spec.name + "': precision " +
                                kernels::dtype_name(options.dtype) + "; expected f32 or f64");
  if (spec.input_shape.size() != 3)
    throw std::invalid_argument("model '" + spec.name + "' (" + spec.source + ") needs an input shape C H W");
  if (spec.layers.empty()) throw std::invalid_argument("model '" + spec.name + "' (" + spec.source + ") has no layers");
  batch_ = options.batch;
  input_ = make_blob("data", options.dtype, true);
  input_->reshape({batch_, spec.input_shape[0], spec.input_shape[1], spec.input_shape[2]});
  labels_ = make_blob("label", kernels::DType::i32, false);
  labels_->reshape({batch_});

  const std::size_t count = spec.layers.size();
  layer_output_.resize(count);
  bottoms_.resize(count);
  tops_.resize(count);
  propagate_down_.resize(count);
  std::map<std::string, std::string> reader;
  for (std::size_t i = 0; i < count; ++i) add_layer(i, reader);
  loss_layer_ = count - 1;
  const kernels::Shape& scores_shape = bottoms_[loss_layer_][0]->shape();
  if (scores_shape.size() != 2 || scores_shape[1] != spec.classes)
    throw std::invalid_argument(layers_[loss_layer_]->where() + ": its input is " +
                                kernels::shape_string(scores_shape) + "; expected [N, " +
                                std::to_string(spec.classes) + "] for the model's " + std::to_string(spec.classes) +
                                " classes");
  collect_parameters();
}

// Creates layer i, connects it to its input blob (in place where Caffe's prototxts would
// write it) and sets it up. `reader` maps each output to the layer that reads it: the
// layer-wise net runs chains (Caffe would insert a Split layer for a blob read twice).
void Net::add_layer(std::size_t i, std::map<std::string, std::string>& reader) {
  const models::LayerSpec& ls = spec_.layers[i];
  auto layer = make_layer(ls, backend_, options_.dtype);
  const std::string where = layer->where();
  // An empty input is the model input for the first layer and the previous layer's output
  // after it (the parser fills it in; a spec built in code may leave it empty).
  const std::string input = ls.input.empty() && i > 0 ? spec_.layers[i - 1].name : ls.input;
  std::size_t input_index = 0;
  if (!input.empty()) {
    input_index = std::find_if(layers_.begin(), layers_.end(), [&](const auto& l) { return l->name() == input; }) -
                  layers_.begin();
    if (input_index == layers_.size())
      throw std::invalid_argument(where + ": input '" + input + "' is not a layer defined before it");
  }
  for (const auto& earlier : layers_)
    if (earlier->name() == ls.name) throw std::invalid_argument(where + ": the layer name is used twice");
  const std::string key = input.empty() ? std::string("<model input>") : input;
  if (reader.count(key))
    throw std::invalid_argument(where + ": input '" + key + "' is already read by layer '" + reader[key] +
                                "'; the layerwise strategy runs a chain of layers (one reader per output)");
  reader[key] = ls.name;
  const bool is_last = i + 1 == spec_.layers.size();
  if (layer->is_loss() != is_last)
    throw std::invalid_argument(where + (is_last ? ": the last layer must be a loss (softmax_loss or nll_loss)"
                                                 : ": a loss layer must be the last layer"));

  Blob* bottom = input.empty() ? input_ : layer_output_[input_index];
  const Layer* producer = input.empty() ? nullptr : layers_[input_index].get();
  std::vector<Blob*> bottoms{bottom}, tops;
  if (layer->is_loss()) {
    bottoms.push_back(labels_);
  } else {
    // In place as Caffe's prototxts write ReLU and Dropout, unless that would overwrite the
    // model input or top data that the producer's backward still reads.
    const bool in_place = layer->can_run_in_place() && producer && !producer->backward_needs_top_data();
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
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    Layer& layer = *layers_[i];
    for (std::size_t b = 0; b < layer.blobs().size(); ++b) {
      const std::string& suffix = layer.blob_suffixes()[b];
      const models::ParamSettings settings =
          suffix == "weight" ? models::weight_settings(layer.spec()) : models::bias_settings(layer.spec());
      parameters_.push_back({layer.name() + "." + suffix, layer.blobs()[b], settings.lr_mult, settings.decay_mult});
    }
  }
}

void Net::reshape(std::int64_t batch) {
  if (batch <= 0)
    throw std::invalid_argument("net of model '" + spec_.name + "': batch size " + std::to_string(batch) +
                                "; expected a positive count");
  if (batch == batch_) return;
  batch_ = batch;
  input_->reshape({batch, spec_.input_shape[0], spec_.input_shape[1], spec_.input_shape[2]});
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
  throw std::invalid_argument("model '" + spec_.name + "' has no layer '" + layer_name + "'");
}

double Net::forward(std::int64_t iteration, std::uint64_t seed) {
  const LayerContext context{options_.phase, iteration, seed, options_.first_sample};
  for (std::size_t i = 0; i < layers_.size(); ++i) layers_[i]->forward(bottoms_[i], tops_[i], context);
  return layers_[loss_layer_]->loss();
}

void Net::backward() {
  for (std::size_t i = layers_.size(); i-- > 0;) layers_[i]->backward(tops_[i], propagate_down_[i], bottoms_[i]);
}

void Net::set_parameters(const std::vector<models::InitialParameter>& initial) {
  if (initial.size() != parameters_.size())
    throw std::invalid_argument("model '" + spec_.name + "': " + std::to_string(initial.size()) +
                                " initial parameters for a net of " + std::to_string(parameters_.size()));
  for (std::size_t i = 0; i < initial.size(); ++i) {
    NetParameter& p = parameters_[i];
    const models::InitialParameter& init = initial[i];
    if (init.name != p.name || init.value.shape() != p.blob->shape())
      throw std::invalid_argument("model '" + spec_.name + "': initial parameter " + std::to_string(i) + " is " +
                                  init.name + " " + kernels::shape_string(init.value.shape()) + "; the net expects " +
                                  p.name + " " + kernels::shape_string(p.blob->shape()));
    if (p.blob->data().device() == kernels::Device::cpu)
      p.blob->data().copy_from(init.value);
    else
      backend_.copy(init.value, p.blob->data());
  }
}

void Net::share_parameters(const Net& source) {
  if (source.layers_.size() != layers_.size() || source.parameters_.size() != parameters_.size())
    throw std::invalid_argument("cannot share the parameters of a net of " + std::to_string(source.layers_.size()) +
                                " layers with one of " + std::to_string(layers_.size()));
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    auto& mine = layers_[i]->blobs();
    const auto& theirs = source.layers_[i]->blobs();
    if (mine.size() != theirs.size())
      throw std::invalid_argument("layer '" + layers_[i]->name() + "': parameter counts differ between the nets");
    for (std::size_t b = 0; b < mine.size(); ++b) {
      if (mine[b]->shape() != theirs[b]->shape() || mine[b]->dtype() != theirs[b]->dtype())
        throw std::invalid_argument("layer '" + layers_[i]->name() + "': cannot share parameter " + theirs[b]->name() +
                                    " " + kernels::shape_string(theirs[b]->shape()) + " with " +
                                    kernels::shape_string(mine[b]->shape()));
      mine[b] = theirs[b];
    }
  }
  collect_parameters();
}

}  // namespace ablate::graph::layerwise
