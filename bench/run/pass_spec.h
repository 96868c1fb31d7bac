// `--passes SPEC` (and the preset key `passes`): which graph passes the static strategy runs,
// as TensorFlow's grappler and Theano's optimizer can be told to skip rewrites.
//   all                 every pass (the default)
//   all,-cse,-inplace   every pass but those named
//   cse,dce             only those named (a keep-list)
// The result is EngineOptions::disabled_passes. The static engine validates the names it is
// given; a keep-list is turned into the passes it leaves out, so its names are checked here
// against static_pass_names().
#pragma once

#include <string>
#include <vector>

namespace ablate::bench::run {

struct PassSpec {
  bool keep_all = true;            // "all[,-x...]": `names` are dropped; else `names` are kept
  std::vector<std::string> names;
};

// Throws std::invalid_argument naming `what` (the flag or preset line) and the bad part.
PassSpec parse_pass_spec(const std::string& text, const std::string& what);
// The passes to switch off: the dropped names, or the known passes a keep-list leaves out.
std::vector<std::string> disabled_passes(const PassSpec& spec, const std::vector<std::string>& known,
                                         const std::string& what);
// The static strategy's passes, in pipeline order (constant folding, common
// subexpression elimination, dead-code elimination, elementwise fusion, in-place rewriting,
// memory planning). Must match graph/static's pass_names() (graph/static/passes.h).
const std::vector<std::string>& static_pass_names();

}  // namespace ablate::bench::run
