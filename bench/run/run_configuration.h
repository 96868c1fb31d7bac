// One configuration end to end, the way `ablate run`, each row of `ablate compare` and each
// point of `ablate sweep` run it:
//   join the MPI job (--distributed) -> load the data set -> assemble backend and engine (prepared_run.h) -> train and test
//   (training_loop.h) -> the result record, appended to config.out unless that is empty.
// Rank 0 alone writes the record of a distributed run (the ranks train one model).
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "bench/run/result_record.h"
#include "bench/run/run_config.h"
#include "datasets/image_set.h"

namespace ablate::bench::run {

// What a caller adds to the sequence; both optional.
struct RunHooks {
  // Called once the data set is loaded, before anything is built: `ablate sweep` fits the
  // validation split and the length to a small data set here, noting what it changed.
  std::function<void(RunConfig& config, const datasets::TrainTest& data)> fit_to_data;
  // Adds members to the record before it is written (`ablate sweep`: its "sweep" member).
  std::function<void(nlohmann::ordered_json& record)> annotate;
};

struct RunOutcome {
  RunResult result;
  std::string record;  // the JSON line, as written (or as it would be, without config.out)
};

// Throws what resolution cannot know beforehand: a missing or damaged data file, a model the
// data cannot feed, a batch beyond the memory. A run that diverges, fails mid-way or is
// interrupted is an outcome (result.status), with its record.
RunOutcome run_configuration(RunConfig config, const RunHooks& hooks = {});

}  // namespace ablate::bench::run
