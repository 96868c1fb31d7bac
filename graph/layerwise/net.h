// Net: Caffe's Net. Built from a checked model for one phase (train or test): one layer per
// LayerSpec in file order, reading every input of the spec as a bottom (the loss then the
// labels), a blob per layer output ("data" is the model input, "label" the labels), the
// layers whose type may run in place (ReLU, Dropout) in place as Caffe's prototxts write
// them. As Caffe's insert_splits, a blob read by more than one layer (the model input too)
// gets a Split layer right after its producer, whose tops share its data and feed the readers
// in order; the Split's backward sums their diffs (split_layer.h). All blobs are
// allocated at construction for the batch size; reshape() to another batch size reuses the
// storage when it is large enough (Caffe's grow-only Blob::Reshape), so no step allocates.
// Forward runs the layers in order and returns the loss; Backward runs them in reverse.
// ClearParamDiffs is not needed: the backend's backward-weights ops overwrite the diffs
// (each parameter belongs to exactly one layer).
//
// With NetOptions::blocked_layout (Intel Caffe's MKL-DNN engine; BVLC Caffe keeps NCHW) a
// blob may be channel-blocked (nChw{B}c, kernels/tensor.h) where the backend runs its layers
// blocked (Backend::channel_block_for, per layer under a plan):
//   a convolution's output, when some reader can take it: in B when its channels are a
//   multiple of B, channels-last (NHWC, B = C) when not (LeNet's 20 and 50 channels);
//   the output of a pooling, LRN or batch norm layer (whose backend runs it blocked), of an
//   activation, or of an add whose inputs all are in one layout, when its input is: the same
//   layout;
//   a Split's tops: their source's layout.
// A reader that takes only NCHW (fully connected, losses, concat, dropout, a layer whose backend
// runs plain, an add of mixed inputs) reads it through a LayoutConvertLayer
// "<blob>_to_plain" inserted before it (its ops labelled with the blob's producer, where a
// plan's timing counts them). The model input and the scores stay NCHW.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "graph/layerwise/blob.h"
#include "graph/layerwise/layer.h"
#include "kernels/backend.h"
#include "models/checked_model.h"
#include "models/parameters.h"

namespace ablate::graph::layerwise {

struct NetOptions {
  Phase phase = Phase::train;
  std::int64_t batch = 1;
  kernels::DType dtype = kernels::DType::f32;
  // Caffe's force_backward: also compute the diff of the input blob (gradient checks).
  bool force_backward = false;
  std::int64_t first_sample = 0;  // EngineOptions::first_sample (dropout masks of a data-parallel slice)
  bool blocked_layout = false;     // channel-blocked blobs where the backend runs blocked (above)
};

// A learnable blob of the net with its Caffe multipliers (from the layer's
// weight_lr_mult, bias_decay_mult, ... keys).
struct NetParameter {
  std::string name;  // "<layer>.weight" or "<layer>.bias"
  std::shared_ptr<Blob> blob;
  double lr_mult = 1.0, decay_mult = 1.0;
};

// A state blob of the net (BatchNorm's running statistics: graph::StateTensor).
struct NetState {
  std::string name;  // "<layer>.<suffix>": "bn1.running_mean"
  std::shared_ptr<Blob> blob;
};

class Net {
 public:
  // Throws std::invalid_argument naming the layer for a model the net cannot run or a batch
  // size below 1.
  Net(const models::CheckedModel& model, kernels::Backend& backend, const NetOptions& options);
  ~Net();
  Net(const Net&) = delete;
  Net& operator=(const Net&) = delete;

  Phase phase() const { return options_.phase; }
  kernels::DType dtype() const { return options_.dtype; }
  std::int64_t batch() const { return batch_; }
  // Reshapes every blob for `batch` samples; allocates only beyond the largest batch so far.
  void reshape(std::int64_t batch);

  Blob& input() { return *input_; }    // [N, C, H, W]
  Blob& labels() { return *labels_; }  // i32 [N]
  Blob& scores();                      // the loss layer's input [N, classes]
  // The blob a layer writes (for an in-place layer, its bottom's blob). Throws if unknown.
  Blob& blob(const std::string& layer_name);

  // Forward through every layer in the net's phase; returns the loss of the loss layer (mean
  // over the batch). `iteration` and `seed` give the dropout masks of the train phase.
  double forward(std::int64_t iteration = 0, std::uint64_t seed = 1);
  // Backward through every layer in reverse order; parameter diffs are overwritten.
  void backward();

  // Learnable blobs in canonical order (layers in file order; weight, then bias), the order
  // of models::make_initial_parameters.
  const std::vector<NetParameter>& parameters() const { return parameters_; }
  // Copies initial values in; names, order and shapes must match the net's parameters.
  void set_parameters(const std::vector<models::InitialParameter>& initial);
  // State blobs in models::make_initial_state's order (layers in file order).
  const std::vector<NetState>& state() const { return state_; }
  // Copies initial state values in; names, order and shapes must match the net's state.
  void set_state(const std::vector<models::InitialState>& initial);
  // Caffe's ShareTrainedLayersWith: uses `source`'s parameter and state blobs (the test net
  // shares the train net's weights and running statistics). Shapes must match.
  void share_parameters(const Net& source);

  // The net's layers in run order: the model's layers in file order with the Split layers
  // inserted (so layer i of the net is not layer i of the model once a blob is read twice).
  const std::vector<std::unique_ptr<Layer>>& layers() const { return layers_; }
  // Layer i's input blobs (its inputs, and labels for the loss) and output blobs (none for the
  // loss; one per reader for a Split).
  const std::vector<Blob*>& bottoms(std::size_t i) const { return bottoms_.at(i); }
  const std::vector<Blob*>& tops(std::size_t i) const { return tops_.at(i); }
  // Whether layer i writes its output into its input blob.
  bool in_place(std::size_t i) const { return !tops_.at(i).empty() && bottoms_[i][0] == tops_[i][0]; }

 private:
  Blob* make_blob(const std::string& name, kernels::DType dtype, bool with_diff);
  void add_feeds(int producer, Blob* blob);
  void add_layer(std::size_t i);
  void push_layer(std::unique_ptr<Layer> layer, std::vector<Blob*> bottoms, std::vector<Blob*> tops);
  void collect_parameters();
  void check_batch_size(std::int64_t batch) const;
  // The blocked layout (above): the block of `layer`'s ops (0 without blocked_layout), whether
  // layer type `type` named `layer` takes blocked `bottoms`, whether some reader of model
  // layer i could take its output blocked, and the plain copy of a blocked blob.
  int block_for(const std::string& layer) const;
  bool takes_blocked(const std::string& type, const std::string& layer, const std::vector<Blob*>& bottoms) const;
  bool read_blocked(std::size_t i) const;
  Blob* to_plain(Blob* blob);

  models::CheckedModel model_;
  kernels::Backend& backend_;
  NetOptions options_;
  std::int64_t batch_ = 0;
  std::vector<std::unique_ptr<Blob>> blobs_;
  Blob* input_ = nullptr;
  Blob* labels_ = nullptr;
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<std::vector<Blob*>> bottoms_, tops_;
  std::vector<std::string> op_labels_;  // per net layer: the layer its ops are labelled with (kernels/op_label.h)
  std::map<const Blob*, std::string> producer_;  // construction only: the layer that wrote a blob
  std::vector<Blob*> layer_output_;  // per model layer: the blob holding its output (none for the loss)
  // Construction only: per output (index i + 1; 0: the model input), the blobs handed to its
  // readers in order (the output itself, or the tops of its Split), and how many are handed out.
  std::vector<std::vector<Blob*>> feeds_;
  std::vector<std::size_t> fed_;
  std::set<const Blob*> no_diff_;  // blobs that get no diff (labels; the input unless force_backward)
  std::vector<std::vector<bool>> propagate_down_;  // per net layer, per bottom
  std::size_t loss_layer_ = 0;
  std::vector<NetParameter> parameters_;
  std::vector<NetState> state_;
};

}  // namespace ablate::graph::layerwise
