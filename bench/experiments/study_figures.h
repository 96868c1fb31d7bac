// The study's published default-settings figures (Wu, Liu, Pu et al., "A Comparative
// Measurement Study of Deep Learning as a Service Framework", IEEE TSC 2019; the tables of
// ../shared/reference/frameworks.md), CPU columns, for `ablate compare` to print next to its
// own. They were measured in 2017 on the study's "Server 1" (Xeon E5-1620 3.6 GHz, 4 cores /
// 8 threads, AVX), on MNIST or CIFAR-10, at each framework's full default length, with each
// framework's own timing: reference only, not this machine or this data set.
#pragma once

#include <string>
#include <vector>

namespace ablate::bench::experiments {

struct StudyFigure {
  std::string framework;
  double train_s = 0, test_s = 0;  // CPU
  double accuracy_pct = 0;         // CPU
};

// The table for a data set family: "mnist" (MNIST-format data) or "cifar10"; empty otherwise.
const std::vector<StudyFigure>& study_figures(const std::string& family);
const StudyFigure* study_figure(const std::string& family, const std::string& framework);
// "MNIST" or "CIFAR-10": the data set the figures are for.
std::string study_dataset(const std::string& family);
// The label printed with them.
std::string study_label(const std::string& family);

}  // namespace ablate::bench::experiments
