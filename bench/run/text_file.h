// Writing a whole text file so that nothing is written half: the text goes to a temporary
// file beside `path`, which is then renamed into place; a missing folder is made. Used by
// the commands that write reports and pictures (ablate graph, ablate explain).
#pragma once

#include <string>

namespace ablate::bench::run {

// The temporary is unique (mkstemp: PATH.XXXXXX), so two processes writing one file at once each
// leave it whole. Throws std::invalid_argument "<what>: cannot write '<path>' (reason)" when it
// cannot be written.
void write_text_file(const std::string& path, const std::string& text, const std::string& what);

}  // namespace ablate::bench::run
