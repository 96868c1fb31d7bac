// Layer: Caffe's Layer. A layer reads its bottom blobs and writes its top blobs; it is set
// up once (geometry, parameter blobs), reshaped whenever its bottom shapes change, and runs
// forward and backward through kernels::Backend ops only. Parameter blobs (weight, then bias)
// and state blobs (running statistics) belong to the layer and may be shared with another
// net's layer (Caffe's test net shares the train net's weights).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/layerwise/blob.h"
#include "kernels/backend.h"
#include "models/model_spec.h"

namespace ablate::graph::layerwise {

enum class Phase { train, test };  // Caffe's TRAIN and TEST

// What a forward pass needs beyond the blobs: the phase, and for dropout the iteration and
// the engine seed its mask is derived from.
struct LayerContext {
  Phase phase = Phase::train;
  std::int64_t iteration = 0;
  std::uint64_t seed = 1;
  std::int64_t first_sample = 0;  // the batch's place in a global batch (dropout masks: EngineOptions)
};

class Layer {
 public:
  Layer(const models::LayerSpec& spec, kernels::Backend& backend, kernels::DType dtype);
  virtual ~Layer() = default;
  Layer(const Layer&) = delete;
  Layer& operator=(const Layer&) = delete;

  const models::LayerSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }
  virtual const char* type() const = 0;  // Caffe's type name: "Convolution", "ReLU", ...

  // Caffe's SetUp: checks the number of bottoms and tops, reads the geometry and creates the
  // parameter blobs (layer_setup), then shapes the tops (reshape).
  void setup(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top);
  // Shapes the tops (and internal buffers) for the bottoms' current shapes.
  virtual void reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) = 0;
  virtual void forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top,
                       const LayerContext& context) = 0;
  // Caffe's Backward: writes the parameter diffs (overwritten, not accumulated) and the diff
  // of each bottom k whose propagate_down[k] is set (one flag per bottom; overwritten, not
  // accumulated: a blob read twice goes through a Split layer, which sums). Labels never
  // receive a diff. Throws unless there is one flag per bottom.
  void backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                const std::vector<Blob*>& bottom);
  // The same for a layer whose only data bottom is bottom[0] (the loss's labels follow it).
  void backward(const std::vector<Blob*>& top, bool propagate_down, const std::vector<Blob*>& bottom);

  // Caffe's ExactNumBottomBlobs and MinBottomBlobs: a layer takes exactly bottom_count()
  // bottoms, or when that is -1, at least min_bottom_count().
  virtual int bottom_count() const { return 1; }  // loss layers: 2 (scores, labels)
  virtual int min_bottom_count() const { return bottom_count(); }
  virtual int top_count() const { return 1; }     // loss layers: 0 (the loss is loss()); Split: its readers
  // The mean loss of the last forward (loss layers).
  virtual double loss() const { return 0.0; }

  // Parameter blobs in canonical order (weight, then bias) and their suffixes.
  std::vector<std::shared_ptr<Blob>>& blobs() { return blobs_; }
  const std::vector<std::shared_ptr<Blob>>& blobs() const { return blobs_; }
  const std::vector<std::string>& blob_suffixes() const { return blob_suffixes_; }
  // State blobs (models::LayerShapes::state: BatchNorm's running statistics) in the type's
  // order and their suffixes: no diff, never trained; shared with another net's layer as the
  // parameter blobs are (Caffe shares BatchNorm's blobs with the test net likewise).
  std::vector<std::shared_ptr<Blob>>& state_blobs() { return state_blobs_; }
  const std::vector<std::shared_ptr<Blob>>& state_blobs() const { return state_blobs_; }
  const std::vector<std::string>& state_suffixes() const { return state_suffixes_; }

  // "lenet.model:5: layer 'conv1' (convolution)", the prefix of every error about the layer.
  std::string where() const;

 protected:
  virtual void layer_setup(const std::vector<Blob*>& bottom) {}
  // The layer's backward (Caffe's Backward_cpu / Backward_gpu), called by backward() with
  // one flag per bottom.
  virtual void run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                            const std::vector<Blob*>& bottom) = 0;
  [[noreturn]] void fail(const std::string& what) const;
  // Creates parameter blob "<layer>.<suffix>" of `shape`.
  void add_blob(const std::string& suffix, const kernels::Shape& shape);
  // Creates state blob "<layer>.<suffix>" of `shape` (zeros until the net sets its initial value).
  void add_state(const std::string& suffix, const kernels::Shape& shape);
  // Throws unless bottom[0] has `dims` dimensions; `layout` describes them ("[N, C, H, W]").
  void require_dims(const Blob& bottom, int dims, const char* layout) const;

  kernels::Backend& backend_;
  kernels::DType dtype_;
  models::LayerSpec spec_;

 private:
  std::vector<std::shared_ptr<Blob>> blobs_, state_blobs_;
  std::vector<std::string> blob_suffixes_, state_suffixes_;
};

}  // namespace ablate::graph::layerwise
