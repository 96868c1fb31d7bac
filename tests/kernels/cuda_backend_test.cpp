// The CUDA backend: without a GPU, selecting it is a clear error and the GPU tests
// are skipped with a message; with one, a handful of ops (device tensors, host staging, the
// cuDNN and own-kernel paths) match the reference backend. The full op set runs in the
// conformance suite (conformance_test.cpp), which lists "cuda" when it is built.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <string>

#include "kernels/reference/reference_backend.h"
#include "kernels/registry.h"
#include "test_tensors.h"
#ifdef ABLATE_HAVE_CUDA
#include "kernels/cuda/cuda_backend.h"
#endif

namespace ablate::kernels::test {
namespace {

// The CUDA backend, or nullptr with the reason when it is not built or there is no GPU.
std::unique_ptr<Backend> try_cuda(std::string& why) {
#ifdef ABLATE_HAVE_CUDA
  try {
    return make_cuda_backend();
  } catch (const std::runtime_error& e) {
    why = e.what();
    return nullptr;
  }
#else
  why = "the CUDA backend is not built (ABLATE_CUDA=OFF or no toolkit)";
  return nullptr;
#endif
}

#define REQUIRE_GPU(backend)                                                   \
  std::string why;                                                             \
  auto backend = try_cuda(why);                                                \
  if (!backend) GTEST_SKIP() << "no CUDA device: GPU tests skipped (" << why << ")"

TEST(CudaBackend, WithoutDeviceSelectingItIsAClearError) {
#ifndef ABLATE_HAVE_CUDA
  GTEST_SKIP() << "the CUDA backend is not built";
#else
  std::string why;
  auto backend = try_cuda(why);
  if (backend) {
    EXPECT_EQ(backend->name(), "cuda");
    EXPECT_EQ(backend->device(), Device::cuda);
    EXPECT_EQ(backend->allocator().device(), Device::cuda);
    GTEST_SKIP() << "a CUDA device is present: " << backend->library_version();
  }
  EXPECT_NE(why.find("backend 'cuda': no CUDA device found ("), std::string::npos) << why;
  try {
    make_backend("cuda", 1);
    FAIL() << "make_backend(\"cuda\") succeeded without a device";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("no CUDA device found"), std::string::npos) << e.what();
  }
#endif
}

// Copies a host tensor to the device through the backend, and back.
Tensor to_device(Backend& b, const Tensor& host) {
  Tensor d(host.shape(), host.dtype(), &b.allocator());
  b.copy(host, d);
  return d;
}
Tensor to_host(Backend& b, const Tensor& dev) {
  Tensor h(dev.shape(), dev.dtype());
  b.copy(dev, h);
  return h;
}

TEST(CudaBackend, DeviceTensorsAndCountedBytes) {
  REQUIRE_GPU(cuda);
  Rng rng(1);
  Tensor x = random_tensor({3, 5}, DType::f32, rng);
  auto before = cuda->allocator().stats().live_bytes;
  Tensor d = to_device(*cuda, x);
  EXPECT_EQ(d.device(), Device::cuda);
  EXPECT_GE(cuda->allocator().stats().live_bytes - before, std::int64_t(x.bytes()));
  EXPECT_TRUE(all_near(to_host(*cuda, d), x, 0.0));
  EXPECT_NEAR(cuda->sum(d), make_reference_backend()->sum(x), 1e-5);
}

TEST(CudaBackend, GemmConvPoolMatchReferenceOnDeviceTensors) {
  REQUIRE_GPU(cuda);
  auto ref = make_reference_backend();
  Rng rng(7);
  Tensor a = random_tensor({4, 6}, DType::f32, rng), b = random_tensor({5, 6}, DType::f32, rng);
  Tensor c_ref({4, 5}), c_dev = to_device(*cuda, Tensor({4, 5}));
  ref->gemm(false, true, 1.5, a, b, 0.0, c_ref);
  cuda->gemm(false, true, 1.5, to_device(*cuda, a), to_device(*cuda, b), 0.0, c_dev);
  EXPECT_TRUE(all_near(to_host(*cuda, c_dev), c_ref, tolerance(DType::f32, 6)));

  // TF SAME with an odd total padding: asymmetric, padded explicitly before cuDNN.
  Tensor x = random_tensor({2, 3, 7, 7}, DType::f32, rng), w = random_tensor({4, 3, 2, 2}, DType::f32, rng);
  Tensor bias = random_tensor({4}, DType::f32, rng);
  Conv2dParams p = make_same_conv2d_params(2, 2, 1, 7, 7);
  Tensor y_ref({2, 4, 7, 7}), y_dev = to_device(*cuda, Tensor({2, 4, 7, 7}));
  ref->conv2d_forward(x, w, bias, y_ref, p);
  cuda->conv2d_forward(to_device(*cuda, x), to_device(*cuda, w), to_device(*cuda, bias), y_dev, p);
  EXPECT_TRUE(all_near(to_host(*cuda, y_dev), y_ref, tolerance(DType::f32, 12)));

  Tensor dx_ref({2, 3, 7, 7}), dx_dev = to_device(*cuda, Tensor({2, 3, 7, 7}));
  ref->conv2d_backward_data(y_ref, w, dx_ref, p);
  cuda->conv2d_backward_data(to_device(*cuda, y_ref), to_device(*cuda, w), dx_dev, p);
  EXPECT_TRUE(all_near(to_host(*cuda, dx_dev), dx_ref, tolerance(DType::f32, 16)));

  // Caffe's ceil-rounded max pooling, forward and backward through the workspace.
  Pool2dParams pp = make_pool2d_params(PoolKind::max, 3, 2, 0, PoolPadding::caffe_ceil, 7, 7);
  Shape ys{2, 3, pp.out_h, pp.out_w};
  Tensor py_ref(ys), ws_ref, py_dev = to_device(*cuda, Tensor(ys)), ws_dev;
  ref->pool2d_forward(x, py_ref, ws_ref, pp);
  cuda->pool2d_forward(to_device(*cuda, x), py_dev, ws_dev, pp);
  EXPECT_TRUE(all_near(to_host(*cuda, py_dev), py_ref, 0.0));
  Tensor pdx_ref({2, 3, 7, 7}), pdx_dev = to_device(*cuda, Tensor({2, 3, 7, 7}));
  ref->pool2d_backward(x, py_ref, py_ref, ws_ref, pdx_ref, pp);
  cuda->pool2d_backward(to_device(*cuda, x), py_dev, py_dev, ws_dev, pdx_dev, pp);
  EXPECT_TRUE(all_near(to_host(*cuda, pdx_dev), pdx_ref, tolerance(DType::f32, 4)));
}

// Concatenation's strided copies with parts on the device and in host memory (staged), and
// its split into a host and a device part.
TEST(CudaBackend, ConcatMixesDeviceAndHostParts) {
  REQUIRE_GPU(cuda);
  auto ref = make_reference_backend();
  Rng rng(11);
  Tensor a = random_tensor({3, 2, 5, 3}, DType::f32, rng), c = random_tensor({3, 1, 5, 3}, DType::f32, rng);
  Tensor y_ref({3, 3, 5, 3}), y_dev = to_device(*cuda, Tensor({3, 3, 5, 3}));
  ref->concat_forward({&a, &c}, y_ref);
  Tensor a_dev = to_device(*cuda, a);
  cuda->concat_forward({&a_dev, &c}, y_dev);
  EXPECT_TRUE(all_near(to_host(*cuda, y_dev), y_ref, 0.0));
  Tensor da_dev = to_device(*cuda, Tensor({3, 2, 5, 3})), dc_host({3, 1, 5, 3});
  cuda->concat_backward(y_dev, {&da_dev, &dc_host});
  EXPECT_TRUE(all_near(to_host(*cuda, da_dev), a, 0.0));
  EXPECT_TRUE(all_near(dc_host, c, 0.0));
}

TEST(CudaBackend, LossesDropoutAndAdamMatchReference) {
  REQUIRE_GPU(cuda);
  auto ref = make_reference_backend();
  Rng rng(11);
  Tensor logits = random_tensor({8, 10}, DType::f32, rng, -3, 3);
  Tensor labels = random_labels(8, 10, rng);
  Tensor prob_ref({8, 10}), prob_dev = to_device(*cuda, Tensor({8, 10}));
  double loss_ref = ref->softmax_xent_forward(logits, labels, prob_ref);
  double loss_dev = cuda->softmax_xent_forward(to_device(*cuda, logits), labels, prob_dev);  // host labels
  EXPECT_NEAR(loss_dev, loss_ref, 1e-5);
  EXPECT_TRUE(all_near(to_host(*cuda, prob_dev), prob_ref, tolerance(DType::f32, 10)));

  Tensor mask_ref({1000}), mask_dev = to_device(*cuda, Tensor({1000}));
  ref->dropout_mask(mask_ref, 0.6, 42);
  cuda->dropout_mask(mask_dev, 0.6, 42);
  EXPECT_TRUE(all_near(to_host(*cuda, mask_dev), mask_ref, 0.0));  // identical on every backend

  Tensor w = random_tensor({50}, DType::f32, rng), g = random_tensor({50}, DType::f32, rng);
  Tensor w_ref = w.clone(), m_ref({50}), v_ref({50});
  Tensor w_dev = to_device(*cuda, w), m_dev = to_device(*cuda, Tensor({50})), v_dev = to_device(*cuda, Tensor({50}));
  AdamParams ap;
  ap.t = 3;
  ref->adam_update(w_ref, g, m_ref, v_ref, ap);
  cuda->adam_update(w_dev, to_device(*cuda, g), m_dev, v_dev, ap);
  EXPECT_TRUE(all_near(to_host(*cuda, w_dev), w_ref, tolerance(DType::f32, 1)));
  EXPECT_TRUE(all_near(to_host(*cuda, v_dev), v_ref, tolerance(DType::f32, 1)));
}

}  // namespace
}  // namespace ablate::kernels::test
