// Drawing PNG plots with bench/report/plots.py and Debian's matplotlib (/usr/bin/python3), for
// `ablate report` (a results file) and `ablate compare --report` (the comparison's data). Without
// the interpreter, the script or matplotlib the plots are skipped and the reason returned.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace ablate::bench::experiments {

// The source tree's bench/report/plots.py.
std::string default_plot_script();
// Runs `PYTHON SCRIPT ARGS... STAGING` (no shell) with STAGING a fresh folder inside `dir`, then
// renames each PNG drawn there into `dir` (whole: two commands drawing into one folder at once
// do not collide) and the script's output to DIR/plots.log; returns "" or why the plots
// were skipped ("matplotlib is not installed for /usr/bin/python3 (...)").
std::string draw_plots(const std::string& python, const std::string& script, const std::vector<std::string>& args,
                       const std::filesystem::path& dir);
// The .png files in `dir`, sorted by name.
std::vector<std::string> png_files(const std::filesystem::path& dir);
// "![a.png](a.png)\n\n" for each PNG of `dir` (the report's plot section).
std::string png_markdown(const std::filesystem::path& dir);

}  // namespace ablate::bench::experiments
