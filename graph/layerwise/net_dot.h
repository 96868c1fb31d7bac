// A layer-wise net as Graphviz dot, as Caffe's draw_net.py draws a prototxt: layers as boxes
// (name and type), blobs as ellipses (name and shape), an edge from each bottom blob to its
// layer and from the layer to each top blob. A layer that runs in place (Caffe's ReLU and
// Dropout writing over their bottom) gets a bold edge back to its bottom blob, labelled "in
// place" (constraint=false: not a rank of its own), instead of a blob of its own. Parameter blobs are listed inside their layer's box.
#pragma once

#include <string>

#include "graph/layerwise/net.h"

namespace ablate::graph::layerwise {

std::string net_dot(const Net& net, const std::string& title);

}  // namespace ablate::graph::layerwise
