// index.html of `ablate explain`: one self-contained page (no scripts, no network) tying the
// outputs together: the side-by-side step (step.txt), the per-strategy summary, the static
// memory plan as inline SVG, the net, the tape and the compiled graph drawn inline
// (dot_svg.h), and every dot file's text (render it better with `dot -Tsvg FILE`).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "bench/experiments/step_explanation.h"

namespace ablate::bench::experiments {

// `step_text` is step.txt; `files` (file name, dot text) are the dot files written beside it.
std::string explain_page(const Explanation& explanation, const std::string& step_text,
                         const std::vector<std::pair<std::string, std::string>>& files);

}  // namespace ablate::bench::experiments
