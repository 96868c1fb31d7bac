// Names and descriptions of the backend options (see backend_options.h).
#include "kernels/backend_options.h"

namespace ablate::kernels {

const char* backend_option_name(BackendOption option) {
  switch (option) {
    case BackendOption::threads: return "threads";
    case BackendOption::conv_mode: return "conv_mode";
    case BackendOption::conv_lowering: return "conv_lowering";
    case BackendOption::threading: return "threading";
    case BackendOption::onednn_conv_layout: return "onednn_conv_layout";
    case BackendOption::pool_gradient: return "pool_gradient";
    case BackendOption::deterministic: return "deterministic";
  }
  return "?";
}

std::vector<BackendOption> options_set(const BackendOptions& options) {
  std::vector<BackendOption> set = {BackendOption::threads};
  if (options.conv_mode) set.push_back(BackendOption::conv_mode);
  if (options.conv_lowering) set.push_back(BackendOption::conv_lowering);
  if (options.threading) set.push_back(BackendOption::threading);
  if (options.onednn_conv_layout) set.push_back(BackendOption::onednn_conv_layout);
  if (options.pool_gradient) set.push_back(BackendOption::pool_gradient);
  if (options.deterministic) set.push_back(BackendOption::deterministic);
  return set;
}

std::string describe_option(const BackendOptions& options, BackendOption option) {
  const std::string name = backend_option_name(option);
  auto quoted = [&](bool set, const char* value) { return name + " '" + (set ? value : "unset") + "'"; };
  switch (option) {
    case BackendOption::threads: return name + " " + std::to_string(options.threads);
    case BackendOption::conv_mode:
      return quoted(options.conv_mode.has_value(), options.conv_mode ? cpu::conv_mode_name(*options.conv_mode) : "");
    case BackendOption::conv_lowering:
      return quoted(options.conv_lowering.has_value(),
                    options.conv_lowering ? cpu::conv_lowering_name(*options.conv_lowering) : "");
    case BackendOption::threading:
      return quoted(options.threading.has_value(), options.threading ? cpu::threading_name(*options.threading) : "");
    case BackendOption::onednn_conv_layout:
      return quoted(options.onednn_conv_layout.has_value(),
                    options.onednn_conv_layout ? onednn::conv_layout_name(*options.onednn_conv_layout) : "");
    case BackendOption::pool_gradient:
      return quoted(options.pool_gradient.has_value(),
                    options.pool_gradient ? pool_gradient_name(*options.pool_gradient) : "");
    case BackendOption::deterministic: return name + (options.deterministic ? " on" : " off");
  }
  return name;
}

}  // namespace ablate::kernels
