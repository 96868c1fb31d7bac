// The reference backend against golden values from PyTorch (golden/reference_golden.txt,
// written once in f64 by golden/make_reference_golden.py): convolution with asymmetric
// padding and strides, max and avg pooling under Caffe's ceil rule (PyTorch's ceil_mode is
// the same rule and divisor), valid with padding, and TF SAME; LRN; log-softmax, NLL and
// softmax cross-entropy; each forward and the gradient of <output, dy>. Bound 1e-12.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "kernels/op_params.h"
#include "kernels/registry.h"
#include "test_tensors.h"

namespace ablate::kernels::test {
namespace {

constexpr double kBound = 1e-12;

class Golden : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const std::string path = std::string(ABLATE_SOURCE_DIR) + "/tests/kernels/golden/reference_golden.txt";
    std::ifstream in(path);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string name;
      int ndim = 0;
      fields >> name >> ndim;
      Shape shape(static_cast<std::size_t>(ndim));
      for (auto& d : shape) fields >> d;
      Tensor t(shape, DType::f64);
      for (std::int64_t i = 0; i < t.numel(); ++i) fields >> t.data<double>()[i];
      if (!fields) throw std::runtime_error(path + ": tensor '" + name + "' is short of values");
      tensors()[name] = t;
    }
  }
  static std::map<std::string, Tensor>& tensors() {
    static std::map<std::string, Tensor> all;
    return all;
  }
  static const Tensor& get(const std::string& name) {
    auto it = tensors().find(name);
    if (it == tensors().end()) throw std::runtime_error("golden tensor '" + name + "' is missing");
    return it->second;
  }
  static Tensor zeros_like(const std::string& name) { return Tensor(get(name).shape(), DType::f64); }

  std::unique_ptr<Backend> b = make_backend("reference");
};

TEST_F(Golden, Conv2dAsymmetricPaddingAndStride) {
  Conv2dParams p{2, 1, 1, 0, 2, 1};  // stride 2x1; pad top 1, left 0, bottom 2, right 1
  Tensor y = zeros_like("conv.y"), dx = zeros_like("conv.x"), dw = zeros_like("conv.w"), db = zeros_like("conv.b");
  b->conv2d_forward(get("conv.x"), get("conv.w"), get("conv.b"), y, p);
  b->conv2d_backward_data(get("conv.dy"), get("conv.w"), dx, p);
  b->conv2d_backward_weights(get("conv.x"), get("conv.dy"), dw, db, p);
  EXPECT_TRUE(all_near(y, get("conv.y"), kBound));
  EXPECT_TRUE(all_near(dx, get("conv.dx"), kBound));
  EXPECT_TRUE(all_near(dw, get("conv.dw"), kBound));
  EXPECT_TRUE(all_near(db, get("conv.db"), kBound));
}

TEST_F(Golden, PoolingConventions) {
  struct Convention {
    const char* name;
    PoolKind kind;
    PoolPadding padding;
    int pad;
  };
  for (Convention c : {Convention{"pool_max_caffe", PoolKind::max, PoolPadding::caffe_ceil, 1},
                       Convention{"pool_avg_caffe", PoolKind::avg, PoolPadding::caffe_ceil, 1},
                       Convention{"pool_max_valid", PoolKind::max, PoolPadding::valid, 1},
                       Convention{"pool_avg_valid", PoolKind::avg, PoolPadding::valid, 1},
                       Convention{"pool_max_same", PoolKind::max, PoolPadding::tf_same, 0},
                       Convention{"pool_avg_same", PoolKind::avg, PoolPadding::tf_same, 0}}) {
    const std::string n = c.name;
    const Tensor& x = get("pool.x");
    Pool2dParams p = make_pool2d_params(c.kind, 3, 2, c.pad, c.padding, int(x.dim(2)), int(x.dim(3)));
    Tensor y(Shape{x.dim(0), x.dim(1), p.out_h, p.out_w}, DType::f64), workspace, dx = zeros_like("pool.x");
    ASSERT_EQ(y.shape(), get(n + ".y").shape()) << n;
    b->pool2d_forward(x, y, workspace, p);
    b->pool2d_backward(x, y, get(n + ".dy"), workspace, dx, p);
    EXPECT_TRUE(all_near(y, get(n + ".y"), kBound)) << n;
    EXPECT_TRUE(all_near(dx, get(n + ".dx"), kBound)) << n;
  }
}

TEST_F(Golden, Lrn) {
  LrnParams p{5, 0.9, 0.75, 1.5};
  Tensor y = zeros_like("lrn.x"), dx = zeros_like("lrn.x"), workspace;
  b->lrn_forward(get("lrn.x"), y, workspace, p);
  b->lrn_backward(get("lrn.x"), y, get("lrn.dy"), workspace, dx, p);
  EXPECT_TRUE(all_near(y, get("lrn.y"), kBound));
  EXPECT_TRUE(all_near(dx, get("lrn.dx"), kBound));
}

TEST_F(Golden, LogSoftmaxNllAndCrossEntropy) {
  const Tensor& x = get("loss.x");
  Tensor labels(get("loss.labels").shape(), DType::i32);
  labels.copy_from(get("loss.labels"));
  Tensor y = zeros_like("loss.x"), dx = zeros_like("loss.x"), prob = zeros_like("loss.x");
  b->log_softmax_forward(x, y);
  b->log_softmax_backward(y, get("log_softmax.dy"), dx);
  EXPECT_TRUE(all_near(y, get("log_softmax.y"), kBound));
  EXPECT_TRUE(all_near(dx, get("log_softmax.dx"), kBound));

  EXPECT_NEAR(b->softmax_xent_forward(x, labels, prob), get("xent.loss").at(0), kBound);
  b->softmax_xent_backward(prob, labels, 1.0 / double(x.dim(0)), dx);
  EXPECT_TRUE(all_near(dx, get("xent.dx"), kBound));

  EXPECT_NEAR(b->nll_forward(get("nll.logp"), labels), get("nll.loss").at(0), kBound);
  b->nll_backward(labels, 1.0 / double(x.dim(0)), dx);
  EXPECT_TRUE(all_near(dx, get("nll.dlogp"), kBound));
}

}  // namespace
}  // namespace ablate::kernels::test
