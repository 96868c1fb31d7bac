// Names and descriptions of the backend options (see backend_options.h).
#include "kernels/backend_options.h"

namespace ablate::kernels {

const char* backend_option_name(BackendOption option) {
  switch (option) {
    case BackendOption::threads: return "threads";
    case BackendOption::conv_mode: return "conv_mode";
    case BackendOption::onednn_conv_layout: return "onednn_conv_layout";
    case BackendOption::deterministic: return "deterministic";
  }
  return "?";
}

std::vector<BackendOption> options_set(const BackendOptions& options) {
  std::vector<BackendOption> set = {BackendOption::threads};
  if (options.conv_mode) set.push_back(BackendOption::conv_mode);
  if (options.onednn_conv_layout) set.push_back(BackendOption::onednn_conv_layout);
  if (options.deterministic) set.push_back(BackendOption::deterministic);
  return set;
}

std::string describe_option(const BackendOptions& options, BackendOption option) {
  const std::string name = backend_option_name(option);
  switch (option) {
    case BackendOption::threads: return name + " " + std::to_string(options.threads);
    case BackendOption::conv_mode:
      return name + " '" + (options.conv_mode ? cpu::conv_mode_name(*options.conv_mode) : "unset") + "'";
    case BackendOption::onednn_conv_layout:
      return name + " '" + (options.onednn_conv_layout ? onednn::conv_layout_name(*options.onednn_conv_layout) : "unset") +
             "'";
    case BackendOption::deterministic: return name + (options.deterministic ? " on" : " off");
  }
  return name;
}

}  // namespace ablate::kernels
