// Workspace handling of the onednn backend's pooling and LRN (see dnnl_desc.h).
#include "kernels/onednn/dnnl_desc.h"

#include <string>

namespace ablate::kernels::onednn {

void ensure_workspace(Tensor& workspace, std::size_t bytes) {
  const auto n = static_cast<std::int64_t>(bytes);
  if (workspace.empty() || workspace.dtype() != DType::u8 || workspace.numel() != n) workspace = Tensor({n}, DType::u8);
}

void check_workspace(const OpCheck& check, const Tensor& workspace, std::size_t bytes, const char* producer) {
  if (workspace.empty() || workspace.dtype() != DType::u8 || workspace.numel() != static_cast<std::int64_t>(bytes))
    check.fail("workspace is " + (workspace.empty() ? std::string("empty") : workspace.describe()) + ", expected u8[" +
               std::to_string(bytes) + "] as filled by " + producer + " of the onednn backend on the same shapes");
}

void add_workspace_and_scratchpad(CachedPrimitive& entry, const dnnl::engine& engine,
                                  const dnnl::primitive_desc_base& pd, bool forward) {
  entry.workspace_bytes = pd.workspace_desc().get_size();
  if (entry.workspace_bytes > 0) {
    if (forward)
      entry.add_output(engine, DNNL_ARG_WORKSPACE, pd.workspace_desc(), pd.workspace_desc());
    else
      entry.add_input(engine, DNNL_ARG_WORKSPACE, pd.workspace_desc(), pd.workspace_desc());
  }
  entry.add_scratchpad(engine, pd.scratchpad_desc());
}

void run_forward_with_workspace(CachedPrimitive& prim, dnnl::stream& stream, const Tensor& x, Tensor& y,
                                Tensor& workspace) {
  if (prim.workspace_bytes == 0) {
    execute(prim, stream, {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DST, y.raw_data()}});
    return;
  }
  ensure_workspace(workspace, prim.workspace_bytes);
  execute(prim, stream,
          {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DST, y.raw_data()}, {DNNL_ARG_WORKSPACE, workspace.raw_data()}});
}

tag channel_block_tag(int block) {
  switch (block) {
    case 0: return tag::nchw;
    case 8: return tag::nChw8c;
    case 16: return tag::nChw16c;
    default: throw std::invalid_argument("onednn: no layout tag for a channel block of " + std::to_string(block));
  }
}

bool library_blocked(const Tensor& t) { return t.channel_block() == 8 || t.channel_block() == 16; }

tag activation_tag(const Tensor& t) {
  return t.channels_last() && !library_blocked(t) ? tag::nhwc : channel_block_tag(t.channel_block());
}

}  // namespace ablate::kernels::onednn
