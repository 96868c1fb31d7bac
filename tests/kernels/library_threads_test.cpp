// OpenBLAS's thread count as the backends set it (kernels/openblas/openblas_threads.h): a count
// set again unchanged, and f32 work on the onednn backend (whose f32 products are dnnl_sgemm's),
// leave a stopped OpenBLAS pool stopped. Setting the count while the pool is stopped starts it
// again (Debian's pthread build), and its fresh threads spin beside OpenMP's: once a step, a
// mixed plan's LeNet mean step up to 29% longer.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "kernels/op_params.h"
#include "kernels/registry.h"
#include "tests/kernels/library_pool.h"

namespace ablate::kernels {
namespace {

using testing::product;
using testing::thread_count;

// An openblas backend whose products run on OpenBLAS's own 2 threads, its pool started by a
// product and then stopped; returns the process's thread count with the pool stopped.
int stopped_pool(Backend& openblas) {
  product(openblas);
  const int with_pool = thread_count();
  openblas.release_threads();
  const int stopped = thread_count();
  EXPECT_LT(stopped, with_pool) << "release_threads stops OpenBLAS's threads";
  return stopped;
}

BackendOptions library_threads() {
  BackendOptions o;
  o.threads = 2;
  o.conv_lowering = cpu::ConvLowering::per_image_gemm;
  o.threading = cpu::Threading::library;
  return o;
}

TEST(LibraryThreads, AnUnchangedCountLeavesAStoppedPoolStopped) {
  if (const std::string why = testing::no_openblas_pool(); !why.empty()) GTEST_SKIP() << why;
  std::unique_ptr<Backend> openblas = make_backend("openblas", library_threads());
  const int stopped = stopped_pool(*openblas);
  openblas->set_threads(2);  // the same count: nothing to set
  EXPECT_EQ(thread_count(), stopped) << "setting the unchanged count started OpenBLAS's threads again";
  product(*openblas);  // the next product starts them, and is right
  EXPECT_GT(thread_count(), stopped);
}

TEST(LibraryThreads, F32WorkOnOnednnLeavesAStoppedOpenBlasPoolStopped) {
  if (const std::string why = testing::no_openblas_pool(); !why.empty()) GTEST_SKIP() << why;
  const std::vector<std::string> names = backend_names();
  if (std::find(names.begin(), names.end(), "onednn") == names.end()) GTEST_SKIP() << "no onednn backend in this build";
  std::unique_ptr<Backend> openblas = make_backend("openblas", library_threads());
  std::unique_ptr<Backend> onednn = make_backend("onednn", library_threads());
  // The fully connected weight gradient folded into Caffe's update: its bands run on OpenMP's
  // threads, each product single-threaded (it held the library to one thread, then gave it back).
  Tensor x({64, 32}), dy({64, 16}), w({16, 32}), history({16, 32}), dbias({16});
  for (std::int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = 0.01f * static_cast<float>(i % 7);
  for (std::int64_t i = 0; i < dy.numel(); ++i) dy.data<float>()[i] = 0.02f * static_cast<float>(i % 5);
  const std::vector<Tensor*> state = {&history};
  auto f32_work = [&] {
    EXPECT_EQ(onednn->linear_backward_weights_update(x, dy, w, state, dbias, CaffeSgdParams{0.1, 0.9, 0.0}, true), 0);
    product(*onednn);
  };
  f32_work();  // OpenMP's own threads started once, before the count
  const int stopped = stopped_pool(*openblas);
  f32_work();
  EXPECT_EQ(thread_count(), stopped) << "f32 work on onednn started OpenBLAS's threads again";
}

}  // namespace
}  // namespace ablate::kernels
