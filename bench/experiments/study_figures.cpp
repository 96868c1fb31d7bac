// The study's default-settings results on Server 1, CPU (frameworks.md, "Results of the study").
#include "bench/experiments/study_figures.h"

namespace ablate::bench::experiments {

const std::vector<StudyFigure>& study_figures(const std::string& family) {
  static const std::vector<StudyFigure> mnist = {
      {"tensorflow", 1114.34, 2.73, 99.28},
      {"caffe", 512.18, 3.33, 99.03},
      {"theano", 11555.43, 4.49, 99.08},
      {"torch", 9647.34, 56.52, 99.24},
  };
  static const std::vector<StudyFigure> cifar10 = {
      {"tensorflow", 119102.62, 2.69, 87.00},
      {"caffe", 2708.88, 16.81, 75.79},
      {"torch", 46850.68, 52.10, 66.20},
      {"theano", 532.81, 1.17, 49.66},
  };
  static const std::vector<StudyFigure> none;
  if (family == "mnist") return mnist;
  if (family == "cifar10") return cifar10;
  return none;
}

const StudyFigure* study_figure(const std::string& family, const std::string& framework) {
  for (const auto& f : study_figures(family))
    if (f.framework == framework) return &f;
  return nullptr;
}

std::string study_dataset(const std::string& family) {
  if (family == "mnist") return "MNIST";
  if (family == "cifar10") return "CIFAR-10";
  return "";
}

std::string study_label(const std::string& family) {
  return "the study's published figures (Wu et al., IEEE TSC 2019): " + study_dataset(family) +
         ", CPU, full default lengths, each framework's own timing, measured in 2017 on its Server 1 "
         "(Xeon E5-1620 3.6 GHz, 4 cores / 8 threads): for reference, not this machine or data set";
}

}  // namespace ablate::bench::experiments
