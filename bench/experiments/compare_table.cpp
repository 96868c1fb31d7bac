// Rows of `ablate compare`, their transport as text, and the table in text and Markdown.
#include "bench/experiments/compare_table.h"
#include "bench/run/text_format.h"

#include <cstdio>
#include <map>
#include <sstream>

#include "bench/experiments/study_figures.h"

namespace ablate::bench::experiments {

namespace {

std::string one_line(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '\r') c = ' ';
  return s;
}

std::string pad(const std::string& s, std::size_t width, bool right = false) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

std::string target_cell(const CompareRow& r) {
  if (!r.measured()) return "";
  if (!r.reached) return "never";
  return run::fmt("%.2f s", r.time_to_target_s) + " @ " + std::to_string(r.target_iteration);
}

std::string status_cell(const CompareRow& r) { return r.state; }

// The planned length, and where a run stopped before it (early stopping, divergence).
std::string length_cell(const CompareRow& r) {
  if (r.iterations_done >= r.iterations || r.iterations == 0) return r.length;
  return r.length + ", stopped at " + std::to_string(r.iterations_done);
}

// The measured columns of a row, or its note.
struct Cells {
  std::vector<std::string> values;
};
Cells measured_cells(const CompareRow& r) {
  return {{run::fmt("%.2f", r.train_s), run::fmt("%.2f", r.test_s), run::fmt("%.4f", r.accuracy), target_cell(r),
           run::mib_text(r.peak_rss_bytes), run::fmt("%.2f", r.cpu_util)}};
}

std::string target_header(double target) { return target > 0 ? "to " + run::fmt("%g", target) : "to target"; }

std::string timing_line(run::Timing timing) {
  if (timing == run::Timing::framework)
    return "framework timing: each framework's times as its own script counted them (as the study's figures)";
  return "uniform timing: training = the training iterations alone (loader waits included, every evaluation "
         "excluded); testing = the final pass over the test set";
}

}  // namespace

namespace {

// "T:V T:V ..." -> {(T, V), ...} (to_text's points).
std::vector<std::pair<double, double>> pairs(const std::string& text) {
  std::vector<std::pair<double, double>> out;
  std::istringstream points(text);
  for (std::string p; points >> p;) {
    const auto colon = p.find(':');
    if (colon != std::string::npos)
      out.emplace_back(std::strtod(p.c_str(), nullptr), std::strtod(p.c_str() + colon + 1, nullptr));
  }
  return out;
}

}  // namespace

CompareRow row_from_result(const run::RunResult& r) {
  CompareRow row;
  row.framework = r.config.framework;
  row.state = r.status;
  row.note = r.status == "completed" ? "" : r.error;
  const run::RunMetrics& m = r.metrics;
  row.train_s = m.train_time_s;
  row.test_s = m.test_time_s;
  row.accuracy = m.accuracy;
  row.reached = m.time_to_accuracy.reached;
  row.time_to_target_s = m.timing == run::Timing::framework ? m.time_to_accuracy.framework_train_s : m.time_to_accuracy.train_s;
  row.target_iteration = m.time_to_accuracy.iteration;
  row.iterations = r.config.iterations;
  row.iterations_done = m.iterations_done;
  row.peak_rss_bytes = m.peak_rss_bytes;
  row.cpu_util = m.cpu_util;
  row.uniform_train_s = m.uniform.train_s;
  row.uniform_test_s = m.uniform.test_s;
  row.framework_train_s = m.framework.train_s;
  row.framework_test_s = m.framework.test_s;
  for (const run::CurvePoint& p : r.curve) {
    if (p.test_accuracy) row.test_points.emplace_back(p.elapsed_s, *p.test_accuracy);
    row.loss_points.emplace_back(p.elapsed_s, p.loss);
    row.progress_points.emplace_back(static_cast<double>(p.iteration), p.elapsed_s);
  }
  return row;
}

std::string to_text(const CompareRow& r) {
  std::ostringstream out;
  out.precision(17);
  out << "state " << r.state << "\nnote " << one_line(r.note) << "\ntrain_s " << r.train_s << "\ntest_s " << r.test_s
      << "\naccuracy " << r.accuracy << "\nreached " << (r.reached ? 1 : 0) << "\ntime_to_target_s "
      << r.time_to_target_s << "\ntarget_iteration " << r.target_iteration << "\niterations " << r.iterations
      << "\niterations_done " << r.iterations_done << "\npeak_rss_bytes " << r.peak_rss_bytes << "\ncpu_util "
      << r.cpu_util << "\nuniform_train_s " << r.uniform_train_s << "\nuniform_test_s " << r.uniform_test_s
      << "\nframework_train_s " << r.framework_train_s << "\nframework_test_s " << r.framework_test_s << "\ntest_points";
  for (const auto& [t, a] : r.test_points) out << " " << t << ":" << a;
  out << "\nloss_points";
  for (const auto& [t, l] : r.loss_points) out << " " << t << ":" << l;
  out << "\nprogress_points";
  for (const auto& [i, t] : r.progress_points) out << " " << i << ":" << t;
  out << "\n";
  return out.str();
}

void read_measurements(const std::string& text, CompareRow& r) {
  std::map<std::string, std::string> v;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    auto space = line.find(' ');
    if (space != std::string::npos) v[line.substr(0, space)] = line.substr(space + 1);
  }
  auto num = [&](const char* k) { return v.count(k) ? std::strtod(v[k].c_str(), nullptr) : 0.0; };
  auto count = [&](const char* k) { return v.count(k) ? std::strtoll(v[k].c_str(), nullptr, 10) : 0LL; };
  r.state = v.count("state") ? v["state"] : "failed";
  r.note = v["note"];
  r.train_s = num("train_s");
  r.test_s = num("test_s");
  r.accuracy = num("accuracy");
  r.reached = count("reached") != 0;
  r.time_to_target_s = num("time_to_target_s");
  r.target_iteration = count("target_iteration");
  r.iterations = count("iterations");
  r.iterations_done = count("iterations_done");
  r.peak_rss_bytes = count("peak_rss_bytes");
  r.cpu_util = num("cpu_util");
  r.uniform_train_s = num("uniform_train_s");
  r.uniform_test_s = num("uniform_test_s");
  r.framework_train_s = num("framework_train_s");
  r.framework_test_s = num("framework_test_s");
  r.test_points = pairs(v["test_points"]);
  r.loss_points = pairs(v["loss_points"]);
  r.progress_points = pairs(v["progress_points"]);
}

std::string text_table(const CompareSummary& s, const std::vector<CompareRow>& rows) {
  const std::vector<std::size_t> w = {11, 10, 30, 9, 8, 9, 16, 10, 9};
  const bool study = !study_figures(s.family).empty();
  std::ostringstream out;
  out << "\nablate compare on " << s.dataset << ": " << s.budget << ", length factor " << run::fmt("%g", s.factor)
      << (s.factor_note.empty() ? "" : " (" + s.factor_note + ")") << "\n";
  std::vector<std::string> head = {"framework", "status", "length", "train s", "test s", "accuracy",
                                   target_header(s.target_accuracy), "peak RSS", "mean CPU"};
  std::string line;
  for (std::size_t i = 0; i < head.size(); ++i) line += pad(head[i], w[i], i >= 3) + (i + 1 < head.size() ? " " : "");
  if (study) line += "  | study: train s   test s  acc %";
  out << line << "\n" << std::string(line.size(), '-') << "\n";
  for (const auto& r : rows) {
    std::string row = pad(r.framework, w[0]) + " " + pad(status_cell(r), w[1]) + " ";
    std::string tail;
    if (r.measured()) {
      row += pad(length_cell(r), w[2]) + " ";
      Cells c = measured_cells(r);
      for (std::size_t i = 0; i < c.values.size(); ++i) row += pad(c.values[i], w[3 + i], true) + (i + 1 < c.values.size() ? " " : "");
      if (!r.note.empty()) tail = "            note: " + r.note + "\n";
    } else {
      std::size_t span = 0;
      for (std::size_t i = 2; i < w.size(); ++i) span += w[i] + 1;
      span -= 1;
      if (r.note.size() <= span) {
        row += pad(r.note, span);
      } else {
        row += pad("(see below)", span);
        tail = "            " + r.note + "\n";
      }
    }
    if (study) {
      const StudyFigure* f = study_figure(s.family, r.framework);
      row += "  | " + (f ? pad(run::fmt("%.2f", f->train_s), 13, true) + " " + pad(run::fmt("%.2f", f->test_s), 8, true) + " " +
                               pad(run::fmt("%.2f", f->accuracy_pct), 6, true)
                         : std::string());
    }
    out << row << "\n" << tail;
  }
  out << "\n" << timing_line(s.timing) << ".\n";
  if (study) out << "study: " << study_label(s.family) << ".\n";
  out << "A diverged run is a result, not a failure; 'not run' marks a framework without a preset for this data set.\n";
  return out.str();
}

std::string markdown_report(const CompareSummary& s, const std::vector<CompareRow>& rows, const run::Environment& env) {
  const bool study = !study_figures(s.family).empty();
  std::ostringstream out;
  auto get = [&](const char* k) {
    auto it = env.values.find(k);
    return it == env.values.end() ? std::string("?") : it->second;
  };
  out << "# ablate compare: " << s.dataset << "\n\n";
  out << "- Budget: " << s.budget << "; every framework's default length × " << run::fmt("%g", s.factor)
      << (s.factor_note.empty() ? "" : " (" + s.factor_note + ")") << "\n";
  out << "- Timing: " << timing_line(s.timing) << "\n";
  out << "- Target accuracy for time-to-accuracy: " << (s.target_accuracy > 0 ? run::fmt("%g", s.target_accuracy) : "none")
      << "\n";
  out << "- Machine: " << get("cpu_model") << ", " << get("logical_cores") << " logical cores; OPENBLAS_CORETYPE="
      << get("env.OPENBLAS_CORETYPE") << "; " << get("compiler") << ", " << get("build_type") << ", git "
      << get("git_revision") << "\n";
  out << "- Whole comparison: " << run::fmt("%.1f", s.wall_s) << " s\n\n";
  out << "| framework | status | length | train s | test s | accuracy | " << target_header(s.target_accuracy)
      << " (s @ iteration) | peak RSS | mean CPU (cores) |";
  if (study) out << " study train s | study test s | study accuracy % |";
  out << "\n|---|---|---|---:|---:|---:|---:|---:|---:|" << (study ? "---:|---:|---:|" : "") << "\n";
  for (const auto& r : rows) {
    out << "| " << r.framework << " | " << r.state << " | ";
    if (r.measured()) {
      out << length_cell(r) << " | ";
      for (const auto& c : measured_cells(r).values) out << c << " | ";
    } else {
      out << one_line(r.note) << " | | | | | | |";
    }
    if (study) {
      const StudyFigure* f = study_figure(s.family, r.framework);
      if (f)
        out << " " << run::fmt("%.2f", f->train_s) << " | " << run::fmt("%.2f", f->test_s) << " | "
            << run::fmt("%.2f", f->accuracy_pct) << " |";
      else out << " | | |";
    }
    out << "\n";
  }
  out << "\n";
  if (study) out << "Study columns: " << study_label(s.family) << ".\n\n";
  out << "A diverged run is a result, not a failure (its row says so); `not run` marks a framework without a "
         "preset for this data set.\n\n";
  bool any_note = false;
  for (const auto& r : rows)
    if (r.measured() && !r.note.empty()) {
      if (!any_note) out << "Notes:\n\n";
      any_note = true;
      out << "- " << r.framework << ": " << one_line(r.note) << "\n";
    }
  if (any_note) out << "\n";
  out << "Each row again:\n\n```sh\n";
  for (const auto& r : rows)
    if (!r.command.empty()) out << r.command << "\n";
  out << "```\n";
  return out.str();
}

}  // namespace ablate::bench::experiments
