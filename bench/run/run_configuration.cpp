// One configuration end to end (run_configuration.h).
#include "bench/run/run_configuration.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "bench/run/distributed_run.h"
#include "bench/run/training_loop.h"
#include "datasets/dataset_registry.h"

namespace ablate::bench::run {

RunOutcome run_configuration(RunConfig config, const RunHooks& hooks) {
  join_distributed(config);  // --distributed: MPI starts here, after resolution
  datasets::TrainTest data = datasets::load_dataset(config.dataset, config.data_dir, config.seed);
  if (hooks.fit_to_data) hooks.fit_to_data(config, data);
  RunOutcome outcome;
  outcome.result = train_and_test(std::move(config), std::move(data));
  nlohmann::ordered_json record = to_json(outcome.result);
  if (hooks.annotate) hooks.annotate(record);
  outcome.record = json_line(record);
  const RunConfig& done = outcome.result.config;
  if (!done.out.empty() && done.rank == 0) append_record(done.out, outcome.record);
  return outcome;
}

}  // namespace ablate::bench::run
