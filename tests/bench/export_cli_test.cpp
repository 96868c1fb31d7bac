// `ablate export` (bench/cli/export_command.cpp): the ONNX file it writes, with a checkpoint's
// weights or the seed's initial ones, ablate's own logits beside it, and its errors: each names
// what is wrong, exits non-zero and leaves no file and no half-written one behind.
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <gtest/gtest.h>

#include "command_runner.h"
#include "graph/checkpoint_file.h"
#include "models/model_spec.h"
#include "models/onnx/onnx_export.h"
#include "models/onnx/onnx_import.h"
#include "models/parameters.h"

namespace fs = std::filesystem;

namespace {

using ablate::bench::testing::slurp;
using ablate::kernels::DType;
using ablate::kernels::Tensor;

class ExportCli : public ablate::bench::testing::CommandTest {
 protected:
  onnx::ModelProto read_model(const fs::path& p) {
    onnx::ModelProto m;
    EXPECT_TRUE(m.ParseFromString(slurp(p))) << p;
    return m;
  }
  // A checkpoint holding every parameter and state tensor of `model`, element k of the i-th
  // tensor (i + 1) / 8 + k / 1024 (exact in float32), as `ablate run --snapshot-every` names them.
  fs::path checkpoint_of(const std::string& model) {
    ablate::graph::Checkpoint c;
    c.metadata["strategy"] = "layerwise";
    const auto spec = ablate::models::load_model(model);
    std::vector<std::pair<std::string, Tensor>> tensors;
    for (auto& p : ablate::models::make_initial_parameters(spec, DType::f32, 1)) tensors.emplace_back(p.name, std::move(p.value));
    for (auto& s : ablate::models::make_initial_state(spec, DType::f32)) tensors.emplace_back(s.name, std::move(s.value));
    for (std::size_t i = 0; i < tensors.size(); ++i) {
      Tensor& t = tensors[i].second;
      for (std::int64_t k = 0; k < t.numel(); ++k) t.data<float>()[k] = static_cast<float>((i + 1) / 8.0 + (k % 512) / 1024.0);
      c.tensors.emplace_back(tensors[i].first, std::move(t));
    }
    const fs::path path = dir_ / (model + ".ckpt");
    ablate::graph::write_checkpoint(path.string(), c);
    return path;
  }
};

std::map<std::string, ablate::models::GivenValues> initializers(const onnx::ModelProto& m) {
  std::map<std::string, ablate::models::GivenValues> out;
  for (const auto& t : m.graph().initializer()) out[t.name()] = ablate::models::onnx_import::tensor_values(t, t.name());
  return out;
}

// No file FILE.XXXXXX (run::write_text_file's unique temporary) is left beside FILE.
bool no_temporary_beside(const fs::path& file) {
  for (const auto& e : fs::directory_iterator(file.parent_path()))
    if (e.path().filename().string().rfind(file.filename().string() + ".", 0) == 0) return false;
  return true;
}

}  // namespace

TEST_F(ExportCli, WritesTheInferenceGraphAndSaysWhatItLeftOut) {
  const fs::path out = dir_ / "lenet.onnx";
  auto o = ablate("export --model lenet --onnx " + out.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_HAS(o.out, "wrote " + out.string() + ": model 'lenet', 8 nodes, 8 initializers, opset 13, output 'ip2'");
  EXPECT_HAS(o.out, "the initial weights of seed 1");
  EXPECT_HAS(o.out, "the loss 'loss' (softmax_loss) is not exported: the output 'ip2' is what it read (the logits)");
  EXPECT_TRUE(no_temporary_beside(out)) << "a temporary of " << out << " is left";
  const onnx::ModelProto m = read_model(out);
  EXPECT_EQ(m.graph().output(0).name(), "ip2");
  // The seed's initial weights, as a run of that seed starts from them (rounded to float32).
  const auto spec = ablate::models::load_model("lenet");
  const auto values = initializers(m);
  for (const auto& p : ablate::models::make_initial_parameters(spec, DType::f32, 1)) {
    SCOPED_TRACE(p.name);
    ASSERT_TRUE(values.count(p.name));
    for (std::int64_t k = 0; k < p.value.numel(); ++k)
      ASSERT_EQ(values.at(p.name).values[static_cast<std::size_t>(k)], p.value.data<float>()[k]);
  }
  auto other = ablate("export --model lenet --seed 2 --onnx " + (dir_ / "seed2.onnx").string());
  ASSERT_EQ(other.exit_code, 0) << other.err;
  EXPECT_NE(initializers(read_model(dir_ / "seed2.onnx")).at("conv1.weight").values, values.at("conv1.weight").values);
}

TEST_F(ExportCli, TakesEveryWeightAndStatisticFromTheCheckpoint) {
  const fs::path ckpt = checkpoint_of("resnet20"), out = dir_ / "r20.onnx";
  auto o = ablate("export --model resnet20 --checkpoint " + ckpt.string() + " --onnx " + out.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_HAS(o.out, "weights: the checkpoint " + ckpt.string());
  const auto values = initializers(read_model(out));
  const auto saved = ablate::graph::read_checkpoint(ckpt.string());
  ASSERT_EQ(values.size(), saved.tensors.size());  // 20 conv + 21 x 4 batch norm + fc's 2 + ...
  for (const auto& [name, t] : saved.tensors) {
    SCOPED_TRACE(name);
    ASSERT_TRUE(values.count(name));
    EXPECT_EQ(values.at(name).shape, t.shape());
    for (std::int64_t k = 0; k < t.numel(); ++k)
      ASSERT_EQ(values.at(name).values[static_cast<std::size_t>(k)], t.data<float>()[k]);
  }
}

TEST_F(ExportCli, ACheckpointOfAnotherModelIsRefusedNamingTheTensor) {
  const fs::path ckpt = checkpoint_of("lenet"), out = dir_ / "r20.onnx", model = dir_ / "fc.model";
  auto o = ablate("export --model resnet20 --checkpoint " + ckpt.string() + " --onnx " + out.string());
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_HAS(o.err, "--checkpoint " + ckpt.string() + ": tensor 'conv1.weight' is f32[20, 1, 5, 5], model 'resnet20' has "
                    "[16, 3, 3, 3] (a checkpoint of another model?)");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_TRUE(no_temporary_beside(out)) << "a temporary of " << out << " is left";
  std::ofstream(model) << "model fc\ninput 1 28 28\nclasses 10\nlayer fc inner_product outputs=10\nlayer loss softmax_loss\n";
  o = ablate("export --model " + model.string() + " --checkpoint " + ckpt.string() + " --onnx " + out.string());
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_HAS(o.err, "--checkpoint " + ckpt.string() + ": no tensor 'fc.weight' of model 'fc' (a checkpoint of another model?)");
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(ExportCli, AnUnexportableLayerIsAnErrorAndTheFileThereIsKept) {
  const fs::path model = dir_ / "m.model", out = dir_ / "m.onnx";
  std::ofstream(model) << "model m\ninput 1 6 6\nclasses 4\n"
                          "layer pool1 pooling mode=avg kernel=3 stride=2 pad=1 padding=caffe_ceil\n"
                          "layer ip inner_product outputs=4\nlayer loss softmax_loss\n";
  std::ofstream(out) << "previous";
  auto o = ablate("export --model " + model.string() + " --onnx " + out.string());
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_HAS(o.err, "layer 'pool1' (pooling): cannot be exported to ONNX: average pooling with Caffe's ceil rounding");
  EXPECT_EQ(slurp(out), "previous");
  EXPECT_TRUE(no_temporary_beside(out)) << "a temporary of " << out << " is left";
}

TEST_F(ExportCli, MissingOptionsAreNamed) {
  auto o = ablate("export --model lenet");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_HAS(o.err, "--onnx FILE is required");
  o = ablate("export --onnx x.onnx");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_HAS(o.err, "--model NAME|FILE is required");
  o = ablate("export --model lenet --onnx " + (dir_ / "x.onnx").string() + " --logits-input in.pb");
  EXPECT_EQ(o.exit_code, 2);
  EXPECT_HAS(o.err, "--logits-input and --logits-out go together");
}

TEST_F(ExportCli, WritesAblatesOutputForAnInputBesideTheFile) {
  ablate::models::GivenValues x{{2, 1, 28, 28}, std::vector<double>(2 * 28 * 28)};
  for (std::size_t i = 0; i < x.values.size(); ++i) x.values[i] = std::sin(0.01 * static_cast<double>(i));
  const fs::path in = dir_ / "x.pb", logits = dir_ / "y.pb";
  std::ofstream(in, std::ios::binary) << ablate::models::onnx_export::float_tensor("data", x).SerializeAsString();
  auto o = ablate("export --model lenet --onnx " + (dir_ / "lenet.onnx").string() + " --logits-input " + in.string() +
                  " --logits-out " + logits.string());
  ASSERT_EQ(o.exit_code, 0) << o.err;
  EXPECT_HAS(o.out, "wrote " + logits.string() + ": ablate's output f32[2, 10]");
  onnx::TensorProto y;
  ASSERT_TRUE(y.ParseFromString(slurp(logits)));
  EXPECT_EQ(y.name(), "ip2");
  const auto v = ablate::models::onnx_import::tensor_values(y, "y");
  EXPECT_EQ(v.shape, (std::vector<std::int64_t>{2, 10}));
  for (double e : v.values) EXPECT_TRUE(std::isfinite(e));
  EXPECT_NE(v.values[0], v.values[1]);   // logits of classes, not one value repeated
  EXPECT_NE(v.values[0], v.values[10]);  // the two images give two outputs
}
