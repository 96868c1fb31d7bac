// This thread's op label (see op_label.h).
#include "kernels/op_label.h"

namespace ablate::kernels {
namespace {
thread_local OpLabel current;
}  // namespace

const OpLabel& current_op_label() { return current; }

OpLabelScope::OpLabelScope(const OpLabel& label) : saved_(current) { current = label; }

OpLabelScope::~OpLabelScope() { current = saved_; }

std::string_view layer_of_parameter(std::string_view name) { return name.substr(0, name.find('.')); }

}  // namespace ablate::kernels
