// Net construction (blobs, Split layers, in-place decisions, set-up), forward, backward and parameter
// sharing (see net.h).
#include "graph/layerwise/net.h"

#include <algorithm>
#include <stdexcept>

#include "graph/blocked_layers.h"
#include "graph/layerwise/layer_factory.h"
#include "graph/layerwise/layout_convert_layer.h"
#include "graph/layerwise/split_layer.h"
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
  no_diff_.insert(labels_);
  if (!options.force_backward) no_diff_.insert(input_);

  const std::size_t count = model_.size();
  layer_output_.assign(count, nullptr);
  feeds_.assign(count + 1, {});
  fed_.assign(count + 1, 0);
  add_feeds(-1, input_);
  for (std::size_t i = 0; i < count; ++i) {
    add_layer(i);
    if (layer_output_[i]) add_feeds(static_cast<int>(i), layer_output_[i]);
  }
  loss_layer_ = layers_.size() - 1;
  collect_parameters();
}

// Caffe's insert_splits for one blob: the blob that output `producer` (-1: the model input)
// writes goes to its one reader as it is; read by k > 1 layers (or k times by one), a Split
// layer "<blob>_<producer>_0_split" follows the producer, and its tops
// "<blob>_<producer>_0_split_<j>" feed the readers in file order. The model input's producer
// is named "input", as Caffe names a net's input blobs.
void Net::add_feeds(int producer, Blob* blob) {
  std::vector<Blob*>& feeds = feeds_[static_cast<std::size_t>(producer + 1)];
  const std::size_t readers = model_.readers(producer).size();
  if (readers <= 1) {
    feeds.push_back(blob);
    return;
  }
  models::LayerSpec spec;
  const std::string producer_name = producer < 0 ? "input" : model_.layer(static_cast<std::size_t>(producer)).name;
  spec.name = blob->name() + "_" + producer_name + "_0_split";
  spec.type = "split";
  spec.inputs = {producer < 0 ? std::string(models::kModelInput) : producer_name};
  spec.source = producer < 0 ? model_.spec().source : model_.layer(static_cast<std::size_t>(producer)).source;
  auto split = std::make_unique<SplitLayer>(spec, static_cast<int>(readers), backend_, options_.dtype);
  const bool no_diff = no_diff_.count(blob) != 0;
  for (std::size_t j = 0; j < readers; ++j) {
    feeds.push_back(make_blob(spec.name + "_" + std::to_string(j), options_.dtype, true));
    if (no_diff) no_diff_.insert(feeds.back());  // a split of a blob needing no diff: its tops need none
    producer_[feeds.back()] = producer_.count(blob) ? producer_[blob] : spec.name;
  }
  push_layer(std::move(split), {blob}, feeds);
  for (Blob* top : feeds) top->set_channel_block(blob->channel_block());  // their diffs in the source's layout
}

int Net::block_for(const std::string& layer) const {
  return options_.blocked_layout ? backend_.channel_block_for(options_.dtype, layer) : 0;
}

bool Net::takes_blocked(const std::string& type, const std::string& layer, const std::vector<Blob*>& bottoms) const {
  std::vector<int> blocks;
  for (const Blob* b : bottoms) blocks.push_back(b->channel_block());
  return layer_takes_blocked(type, block_for(layer), blocks);
}

bool Net::read_blocked(std::size_t i) const {
  for (int reader : model_.readers(static_cast<int>(i))) {
    const models::LayerSpec& r = model_.layer(static_cast<std::size_t>(reader));
    if (takes_blocked(r.type, r.name, {})) return true;  // an add's other inputs are not known yet: it may
  }
  return false;
}

Blob* Net::to_plain(Blob* blob) {
  models::LayerSpec spec;
  spec.name = blob->name() + "_to_plain";
  spec.type = "layout_convert";
  spec.source = model_.spec().source;
  Blob* plain = make_blob(spec.name, options_.dtype, true);
  if (no_diff_.count(blob)) no_diff_.insert(plain);
  producer_[plain] = producer_[blob];
  push_layer(std::make_unique<LayoutConvertLayer>(spec, backend_, options_.dtype), {blob}, {plain});
  op_labels_.back() = producer_[blob];  // the conversion is the blocked producer's cost
  return plain;
}

// Creates layer i, connects it to its input blobs (each input's next feed: the blob itself
// or a Split top) and sets it up. It writes in place where its type allows, its one input
// blob has this layer as its only reader (in place on a split top would overwrite the data
// the other readers share) and the producer's backward does not read the output it would
// overwrite, as Caffe's prototxts write ReLU and Dropout.
void Net::add_layer(std::size_t i) {
  const models::LayerSpec& ls = model_.layer(i);
  const models::LayerType& type = model_.type(i);
  auto layer = make_layer(ls, type, backend_, options_.dtype);
  std::vector<Blob*> bottoms, tops;
  for (int input : model_.inputs(i)) {
    const auto slot = static_cast<std::size_t>(input + 1);
    bottoms.push_back(feeds_[slot].at(fed_[slot]++));
  }
  if (options_.blocked_layout && !takes_blocked(ls.type, ls.name, bottoms))
    for (Blob*& b : bottoms)
      if (b->channel_block() > 0) b = to_plain(b);
  if (type.loss) {
    bottoms.push_back(labels_);
  } else {
    const int input = model_.input(i);
    const bool in_place = type.in_place && model_.inputs(i).size() == 1 && input >= 0 &&
                          model_.readers(input).size() == 1 &&
                          !model_.type(static_cast<std::size_t>(input)).backward_reads_output;
    tops.push_back(in_place ? bottoms[0] : make_blob(ls.name, options_.dtype, true));
    layer_output_[i] = tops[0];
    if (!in_place) producer_[tops[0]] = ls.name;
  }
  Blob* top = tops.empty() || (!bottoms.empty() && tops[0] == bottoms[0]) ? nullptr : tops[0];
  const int input_block = bottoms.empty() ? 0 : bottoms[0]->channel_block();
  push_layer(std::move(layer), std::move(bottoms), std::move(tops));
  if (!top || !options_.blocked_layout) return;
  // The output's layout (net.h): a convolution's is its backend's block where its channels
  // divide, else channels-last (a block of all C), where a reader can take it; a follower's is
  // its input's.
  int block = 0;
  if (ls.type == "convolution") {
    if (top->shape().size() == 4 && read_blocked(i)) block = conv_output_block(block_for(ls.name), top->shape()[1]);
  } else if (takes_blocked(ls.type, ls.name, bottoms_.back())) {
    block = input_block;
  }
  if (block > 0) top->set_channel_block(block);
}

// Sets the layer up and appends it; a bottom gets a diff unless it needs none (the labels,
// the model input without force_backward and the tops of a Split of either).
void Net::push_layer(std::unique_ptr<Layer> layer, std::vector<Blob*> bottoms, std::vector<Blob*> tops) {
  layer->setup(bottoms, tops);
  std::vector<bool> propagate(bottoms.size());
  for (std::size_t k = 0; k < bottoms.size(); ++k) propagate[k] = no_diff_.count(bottoms[k]) == 0;
  propagate_down_.push_back(std::move(propagate));
  bottoms_.push_back(std::move(bottoms));
  tops_.push_back(std::move(tops));
  op_labels_.push_back(layer->name());
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
  for (std::size_t i = 0; i < model_.size(); ++i)
    if (model_.layer(i).name == layer_name) {
      if (!layer_output_[i]) throw std::invalid_argument("layer '" + layer_name + "' is a loss and has no output blob");
      return *layer_output_[i];
    }
  throw std::invalid_argument("model '" + model_.name() + "' has no layer '" + layer_name + "'");
}

double Net::forward(std::int64_t iteration, std::uint64_t seed) {
  const LayerContext context{options_.phase, iteration, seed, options_.first_sample};
  for (std::size_t i = 0; i < layers_.size(); ++i) {
    const kernels::OpLabelScope label({"forward", op_labels_[i], layers_[i]->type()});
    layers_[i]->forward(bottoms_[i], tops_[i], context);
  }
  return layers_[loss_layer_]->loss();
}

void Net::backward() {
  for (std::size_t i = layers_.size(); i-- > 0;) {
    const kernels::OpLabelScope label({"backward", op_labels_[i], layers_[i]->type()});
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
