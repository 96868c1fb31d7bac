// Backend options as typed values (kernels/backend_options.h, registry.h): the parsers name
// the known values, one table says which backend takes which option and an option a backend
// does not take is refused naming both, the options reach the backend (choices() reports
// them), and no environment variable of ours is read any more.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>

#include "kernels/registry.h"
#include "test_tensors.h"

namespace ablate::kernels::test {
namespace {

std::map<std::string, std::string> choices_of(const Backend& b) {
  std::map<std::string, std::string> out;
  for (const auto& [name, value] : b.choices()) out[name] = value;
  return out;
}

TEST(BackendOptions, ParsersRoundTripAndNameTheKnownValues) {
  for (cpu::ConvMode m : {cpu::ConvMode::per_image, cpu::ConvMode::batched, cpu::ConvMode::omp_per_image,
                          cpu::ConvMode::omp_batched})
    EXPECT_EQ(parse_conv_mode(cpu::conv_mode_name(m)), m);
  for (onednn::ConvLayout l : {onednn::ConvLayout::plain, onednn::ConvLayout::nhwc, onednn::ConvLayout::blocked,
                               onednn::ConvLayout::autotune})
    EXPECT_EQ(parse_conv_layout(onednn::conv_layout_name(l)), l);
  EXPECT_EQ(invalid_argument_of([] { parse_conv_mode("im2col"); }),
            "convolution mode 'im2col' is not known; expected one of per_image, batched, omp_per_image, omp_batched");
  EXPECT_EQ(invalid_argument_of([] { parse_conv_layout("NHWC"); }),
            "onednn convolution layout 'NHWC' is not known; expected plain, nhwc, blocked or autotune");
}

TEST(BackendOptions, OneTableSaysWhichBackendTakesWhich) {
  EXPECT_EQ(backends_taking(BackendOption::onednn_conv_layout), std::vector<std::string>{"onednn"});
  EXPECT_EQ(backends_taking(BackendOption::conv_mode), (std::vector<std::string>{"eigen", "openblas", "onednn"}));
  EXPECT_EQ(backends_taking(BackendOption::threads), backend_names());
  EXPECT_EQ(backends_taking(BackendOption::deterministic), backend_names());
  for (const std::string& name : backend_names())
    for (BackendOption o : backend_options_of(name)) {
      const auto owners = backends_taking(o);
      EXPECT_NE(std::find(owners.begin(), owners.end(), name), owners.end()) << name << " " << backend_option_name(o);
    }
  EXPECT_NE(invalid_argument_of([] { backend_options_of("nope"); }).find("'nope' is not known"), std::string::npos);
}

TEST(BackendOptions, AnOptionTheBackendDoesNotTakeIsRefusedNamingBoth) {
  BackendOptions layout;
  layout.onednn_conv_layout = onednn::ConvLayout::nhwc;
  EXPECT_EQ(invalid_argument_of([&] { check_backend_options("openblas", layout); }),
            "onednn_conv_layout 'nhwc' is an option of the onednn backend, not of 'openblas'");
  EXPECT_EQ(invalid_argument_of([&] { make_backend("eigen", layout); }),
            "onednn_conv_layout 'nhwc' is an option of the onednn backend, not of 'eigen'");
  BackendOptions mode;
  mode.conv_mode = cpu::ConvMode::batched;
  EXPECT_EQ(invalid_argument_of([&] { check_backend_options("reference", mode); }),
            "conv_mode 'batched' is an option of the eigen, openblas, onednn backends, not of 'reference'");
  EXPECT_EQ(invalid_argument_of([&] { check_backend_options("onednn", mode); }), "(no error)");
  BackendOptions none;
  none.threads = 0;
  EXPECT_EQ(invalid_argument_of([&] { check_backend_options("eigen", none); }),
            "--threads 0: expected a count of at least 1");
}

TEST(BackendOptions, TheOptionsReachTheBackend) {
  BackendOptions o;
  o.threads = 2;
  o.conv_mode = cpu::ConvMode::batched;
  for (const char* name : {"eigen", "openblas", "onednn"}) {
    auto b = make_backend(name, o);
    EXPECT_EQ(b->threads(), 2) << name;
    EXPECT_EQ(choices_of(*b)["conv_mode"], "batched") << name;
    EXPECT_NE(b->library_version().find("conv=batched"), std::string::npos) << b->library_version();
  }
  o.onednn_conv_layout = onednn::ConvLayout::nhwc;
  auto onednn = make_backend("onednn", o);
  EXPECT_EQ(choices_of(*onednn)["conv_layout_setting"], "nhwc");
  EXPECT_TRUE(onednn->deterministic());
  // Defaults: the measured fastest conv mode; oneDNN autotunes its layouts (not deterministic).
  EXPECT_EQ(choices_of(*make_backend("openblas"))["conv_mode"], "omp_per_image");
  auto autotuned = make_backend("onednn");
  EXPECT_EQ(choices_of(*autotuned)["conv_layout_setting"], "autotune");
  EXPECT_FALSE(autotuned->deterministic());
}

TEST(BackendOptions, DeterministicSwitchesOrRefuses) {
  BackendOptions o;
  o.deterministic = true;
  for (const char* name : {"reference", "eigen", "openblas", "onednn"})
    EXPECT_TRUE(make_backend(name, o)->deterministic()) << name;
  EXPECT_EQ(choices_of(*make_backend("onednn", o))["conv_layout_setting"], "plain");
  o.onednn_conv_layout = onednn::ConvLayout::autotune;
  EXPECT_EQ(invalid_argument_of([&] { make_backend("onednn", o); }),
            "onednn_conv_layout 'autotune' chooses layouts by timing them, which deterministic rules out; choose plain, "
            "nhwc or blocked");
}

// The environment variables that used to carry these switches change nothing now.
TEST(BackendOptions, NoEnvironmentVariableIsRead) {
  setenv("ABLATE_CONV_MODE", "batched", 1);
  setenv("ABLATE_ONEDNN_CONV_LAYOUT", "blocked", 1);
  auto onednn = make_backend("onednn");
  auto eigen = make_backend("eigen");
  unsetenv("ABLATE_CONV_MODE");
  unsetenv("ABLATE_ONEDNN_CONV_LAYOUT");
  EXPECT_EQ(choices_of(*eigen)["conv_mode"], "omp_per_image");
  EXPECT_EQ(choices_of(*onednn)["conv_mode"], "omp_per_image");
  EXPECT_EQ(choices_of(*onednn)["conv_layout_setting"], "autotune");
}

}  // namespace
}  // namespace ablate::kernels::test
